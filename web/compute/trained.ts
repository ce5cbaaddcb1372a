// weights=trained: the pipeline on the coreference model the Train tab trains (committed parameters,
// web/compute/trained-coreference.ts, written by scripts/gen-trained-weights.mjs). The model has two layers;
// the pipeline shows the last one: its input X is what layer 1 makes of the sentence (token + position
// embeddings, then layer 1's attention added), its W_q, W_k, W_v are layer 2's, and its attention row of
// "it" is the model's answer (the loss it was trained with is −log of that row's weight on the noun).

import type { Engine, Tensor, TrainerOptions } from 'attention-playground'
import type { PlaygroundState } from '../params'
import { TRAINED_COREFERENCE } from './trained-coreference'

export const TRAINED = TRAINED_COREFERENCE
/** The lesson's sentence as the task writes it (lower case: the task's vocabulary). */
export const TRAINED_SENTENCE = TRAINED.lesson.sentence
/** The trained model's sizes: one head of width dModel on every projection. */
export const TRAINED_DIMS = Object.freeze({
  tokenizer: 'word',
  dModel: TRAINED.recipe.dModel,
  dq: TRAINED.recipe.dModel,
  dk: TRAINED.recipe.dModel,
  dv: TRAINED.recipe.dModel,
  heads: TRAINED.recipe.heads,
  score: TRAINED.recipe.score,
  mode: 'self',
  // The layer's input X already carries the model's own learned positions (the recipe's); the page adds none.
  positions: 'none',
} as const)

/** base64 of little-endian float32 (the generated files' tensors) as a Float32Array. */
export function floats(b64: string): Float32Array {
  const bin = atob(b64)
  const bytes = new Uint8Array(bin.length)
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i)
  return new Float32Array(bytes.buffer)
}

/**
 * The trained model's last layer on the lesson's sentence (averaged over its heads, tokens × tokens): the Why tab's
 * arcs, committed beside the parameters by the same script (the model's own trace, checked by web-trained.test.ts).
 */
export function trainedLessonWeights(): { tokens: string[]; weights: Float32Array } {
  return { tokens: [...TRAINED.lesson.tokens], weights: floats(TRAINED.lesson.weights) }
}

/** The committed parameters as tensors (name → tensor), as Trainer.parameters() returned them. */
export function trainedParameters(): Record<string, Tensor> {
  const out: Record<string, Tensor> = {}
  for (const [name, p] of Object.entries(TRAINED.params)) out[name] = { data: floats(p.data), shape: [...p.shape] }
  return out
}

/** The trainer's options of the recipe (the step count is how long it was trained, not an option). */
export function trainerOptions(): TrainerOptions {
  const { steps: _steps, ...options } = TRAINED.recipe
  return { ...options }
}

export interface TrainedLayerInputs {
  tokens: string[]
  /** The last layer's input [n, dModel] and its projections [dModel, d]. */
  X: Tensor
  Wq: Tensor
  Wk: Tensor
  Wv: Tensor
  /** The layer shown (1-based) and how many there are. */
  layer: number
  layers: number
}

let last: { text: string; inputs: TrainedLayerInputs } | null = null

/**
 * The last layer's input and projections for a sentence of the task's vocabulary (a word outside it is the
 * trainer's error, naming the word). The trainer lives for this call only: nothing stays in wasm memory.
 */
export function trainedLayerInputs(engine: Engine, text: string): TrainedLayerInputs {
  if (last && last.text === text) return last.inputs
  const tr = engine.createTrainer(trainerOptions())
  try {
    tr.setParameters(trainedParameters())
    const t = tr.trace(text)
    const inputs = {
      tokens: t.tokens,
      X: t.embeddings,
      Wq: t.Wq,
      Wk: t.Wk,
      Wv: t.Wv,
      layer: t.layer + 1,
      layers: t.layers,
    }
    last = { text, inputs }
    return inputs
  } finally {
    tr.dispose()
  }
}

/** The fields a trained state must have (the model's sizes); the rest of the state stays the learner's. */
export function withTrainedDims(s: PlaygroundState): PlaygroundState {
  return s.weights === 'trained' ? { ...s, ...TRAINED_DIMS } : s
}
