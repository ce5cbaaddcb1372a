/**
 * Training attention in the browser: a small attention model whose backward pass runs in the
 * C++ core. `ap.createTrainer(options)` (wired in index.ts) calls `createTrainerFor(module, options)`.
 *
 * ```ts
 * const tr = ap.createTrainer({ task: 'coreference', seed: 0 })
 * tr.step(300)                       // { loss, accuracy } averaged over those steps' minibatches
 * tr.evaluate()                      // { loss, accuracy } on held-out sentences
 * tr.trace("the animal didn't cross the street because it was too tired").weights
 * tr.dispose()
 * ```
 *
 * The model: token embedding + a learned position embedding (`positions`: or the sinusoidal table, or RoPE in
 * every head, or none), `layers` residual multi-head attention
 * layers (Q = H·Wq, K = H·Wk, V = H·Wv, any scoring rule, mask, softmax with temperature, ·V, heads
 * concatenated, ·Wo + bo), then the task's output:
 * - `coreference` (2 layers by default): the answer *is* the last layer's attention row of "it"
 *   (averaged over heads); loss = −log(weight on the referent). Held-out sentences use
 *   (animal, place, adjective) combinations never seen in training.
 * - `reverse` (1 layer): 6 digits, each output position predicts the mirrored input digit (a linear head).
 * - `next-char` (1 layer, causal mask): predicts each next character of `text` (default: a built-in
 *   paragraph) in windows of `context` characters; the last tenth of the text is held out.
 * - `induction` (2 layers, causal mask, constant lr): 24 words from a vocabulary of 32 holding a segment
 *   of 4–8 distinct words that appears twice in a row after a prefix of random length; each next word is
 *   predicted. `evaluate()` gives the copyable words' accuracy (the second copy after its first word) as
 *   `accuracy` and the others' as `restAccuracy` (chance); `headScores()` each head's previous-token and
 *   induction scores. Its model starts with small word vectors (0.1 of nn.Embedding's N(0, 1)) and
 *   full-size positions (N(0, 1)); the other tasks start the other way round (words 1, positions 0.1).
 *   From that start layer 1 learns a previous-token head and layer 2 an induction head (seeds 0, 1 and 3 of
 *   0–4; seed 2's layer 1 takes the duplicate-token route below).
 */
import type { ScoreRule, Trace } from './types.js'
import { AttentionError, checkOptions, readOptions, toTensor, unwrap } from './util.js'
import type { Tensor, TensorLike } from './util.js'
import { createPoemsTrainerFor } from './poemsTrainer.js'
import type { PoemsTrainer, PoemsTrainerOptions } from './poemsTrainer.js'

export type TrainTask = 'coreference' | 'reverse' | 'next-char' | 'induction'

// `Symbol.dispose` is declared by TypeScript's lib only from `esnext.disposable` (or `esnext`) on, yet the
// Trainer's `[Symbol.dispose]` member is part of the shipped types, and projects on `"lib": ["es2020", "dom"]`
// without skipLibCheck must still compile them. The same declaration @types/node carries: it merges with the
// lib's identical one where that exists (so `using` keeps working), and stands alone where it does not. At run
// time the member is installed under `Symbol.for('Symbol.dispose')` when the engine has no Symbol.dispose.
declare global {
  interface SymbolConstructor {
    readonly dispose: unique symbol
  }
}

export interface TrainerOptions {
  task?: TrainTask
  /** Seeds parameter init (PyTorch's generator) and minibatch sampling: same seed, same run. Default 0. */
  seed?: number
  /** Attention heads per layer; must divide dq, dk and dv. Default: the task's (induction 2, the others 1). */
  heads?: number
  /** Width of embeddings and of the residual stream. Default 32. */
  dModel?: number
  /** Q, K, V widths (all heads together). Default dModel. */
  dq?: number
  dk?: number
  dv?: number
  /** Attention layers. Default: the task's (coreference 2, reverse 1, next-char 1, induction 2). */
  layers?: number
  /** A scoring rule (definitions as in ap.run). Default 'scaled-dot'. */
  score?: ScoreRule
  /** 'adam' (torch.optim.Adam defaults) or 'sgd'. Default 'adam'. */
  optimizer?: 'adam' | 'sgd'
  /** Learning rate (the schedule's peak). Default: adam 0.01 · min(1, 32 / dModel), sgd 0.1. */
  lr?: number
  /**
   * 'warmup-cosine': lr·(s+1)/50 for the first 50 steps, then a cosine decay to 0.05·lr at step 400, then
   * 0.05·lr (torch.optim.lr_scheduler: SequentialLR of LinearLR(start_factor=0.02, total_iters=49) and
   * CosineAnnealingLR(T_max=350, eta_min=0.05·lr), milestones [50]). 'constant': lr at every step, so each
   * update is torch.optim's own. Default 'auto': warmup-cosine when lr is not given, constant when it is
   * (induction: always constant).
   */
  schedule?: 'auto' | 'constant' | 'warmup-cosine'
  /** Softmax temperature. Default 1. */
  temperature?: number
  /** Score multiplier (as in ap.run: `false` = off, i.e. 1). Default 1/√(dk per head) for scaled-dot, else 1. */
  scale?: number | boolean
  /** Examples per step. Default 32. */
  batchSize?: number
  /** 'auto' (the task's: causal for next-char), 'none' or 'causal'. */
  mask?: 'auto' | 'none' | 'causal'
  /** next-char: the text to learn (UTF-8, any script). */
  text?: string
  /** next-char: window length. Default 16. */
  context?: number
  /**
   * How word order enters (docs/positions.md): 'learned' (default: a position table trained with the rest),
   * 'sinusoidal' (the fixed table added to the embeddings), 'rope' (each layer's and head's q and k turned by
   * position before the scores; nothing added to the residual stream; needs dq = dk, even per head) or 'none'.
   */
  positions?: 'learned' | 'sinusoidal' | 'rope' | 'none'
  /** rope's base. Default 10000. */
  ropeBase?: number
}

export interface TrainScore {
  loss: number
  /**
   * Fraction right: the argmax of the head (reverse, next-char) or of the attention row (coreference).
   * induction: from evaluate(), of the copyable words only; from step(), of every word.
   */
  accuracy: number
  /** induction, from evaluate(): the accuracy on the words that are not copyable (chance is 1/32). */
  restAccuracy?: number
}

/**
 * Per head, [layer][head], each in [0, 1], on held-out sequences: `previousToken` is the mean attention
 * from position i to i − 1; `induction` the mean attention from each word of the second copy to the word
 * just after its earlier occurrence; `duplicateToken` the mean attention from each word of the second copy
 * to its earlier occurrence (the other way a layer-1 head can serve an induction head: it passes on where
 * the current word was seen before, and layer 2 attends to the position after it; the task's model takes
 * that route when it starts with full-size word vectors and small positions).
 */
export interface HeadScores {
  previousToken: number[][]
  induction: number[][]
  duplicateToken: number[][]
}

export interface TrainerInfo {
  task: TrainTask
  /** Input vocabulary (token id = index). */
  vocab: string[]
  /** Outputs of the task head (empty for coreference, whose output is the attention row). */
  classes: string[]
  tokenizer: 'word' | 'char' | 'digits'
  maxLen: number
  /** A sentence of the task to trace. */
  sample: string
  trainSize: number
  testSize: number
  config: {
    dModel: number
    dq: number
    dk: number
    dv: number
    heads: number
    layers: number
    score: string
    scale: number
    temperature: number
    mask: 'none' | 'causal'
    optimizer: string
    lr: number
    batchSize: number
    seed: number
    schedule: 'constant' | 'warmup-cosine'
    lrInUse: number
    positions: 'learned' | 'sinusoidal' | 'rope' | 'none'
    ropeBase: number
  }
}

/** One example: token ids, per-position class targets (−1: no loss there), and/or a pointer [from, to]. */
export interface TrainExample {
  ids: number[]
  targets?: number[]
  pointer?: [number, number]
  /** induction (from examples()): [start, length] of the segment's first copy; the second follows it. */
  segment?: [number, number]
}

/** ap.run's trace for one layer of the trained model, plus what only a trained model has. */
export interface TrainTrace extends Trace {
  /** Which layer this is (default: the last) and how many there are. */
  layer: number
  layers: number
  /** The layer's output projection [dv, dModel] and its output H + O·Wo + bo [n, dModel]. */
  Wo: Tensor
  layerOutput: Tensor
  /** Task-head probabilities [n, classes] (not for coreference). */
  probs?: Tensor
  classes?: string[]
}

export interface Trainer {
  readonly info: TrainerInfo
  /** Optimizer steps done so far. */
  readonly steps: number
  /** Learning rate (the schedule's peak); settable between steps. */
  lr: number
  /** The learning rate the next step will use, after the schedule. */
  readonly lrInUse: number
  /** Runs n optimizer steps (default 1); returns the mean training loss and accuracy over them. */
  step(n?: number): TrainScore
  /** One optimizer step on your own batch (instead of one sampled from the task); returns its loss before the step. */
  trainOn(batch: TrainExample[]): TrainScore
  /** Loss and accuracy on the held-out data (nothing is updated); `limit`: only its first n examples (a fair sample). */
  evaluate(options?: { limit?: number }): TrainScore
  /**
   * induction: each head's previous-token and induction scores on the held-out sequences (`limit`: only
   * the first n). Other tasks throw.
   */
  headScores(options?: { limit?: number }): HeadScores
  /** The same trace as ap.run, computed with the trained weights. Default text: info.sample. */
  trace(text?: string, options?: { layer?: number }): TrainTrace
  /** Every parameter by name (copies): embedding, position, layers.L.Wq … head.W, head.b. */
  parameters(): Record<string, Tensor>
  /** Replaces the named parameters (shapes must match); all are checked before any is changed. */
  setParameters(params: Record<string, TensorLike>): void
  /** Loss, accuracy and d(loss)/d(parameter) on a batch (default: the first batchSize training examples). */
  gradients(batch?: TrainExample[]): TrainScore & { grads: Record<string, Tensor> }
  /** The task's generated data. */
  examples(split: 'train' | 'test', count?: number): TrainExample[]
  /** Frees the wasm memory. Calling any method afterwards throws. */
  dispose(): void
  [Symbol.dispose](): void
}

interface RawTrainer {
  configure(o: object): unknown
  step(n: number): unknown
  trainOn(b: unknown): unknown
  evaluate(limit?: unknown): unknown
  headScores(limit?: unknown): unknown
  setLr(lr: number): unknown
  parameters(): unknown
  setParameters(p: object): unknown
  gradients(b: unknown): unknown
  examples(split: string, count: number): unknown
  trace(text: string, layer: unknown): unknown
  delete(): void
}

export interface TrainerModule {
  TrainerHandle: new () => RawTrainer
}

// Frees the wasm side of a trainer that was dropped without dispose().
const registry =
  typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry<{ raw: RawTrainer; live: boolean }>((h) => {
        if (h.live) {
          h.live = false
          h.raw.delete()
        }
      })
    : undefined

const disposeSymbol: symbol = (Symbol as unknown as { dispose?: symbol }).dispose ?? Symbol.for('Symbol.dispose')

function intIn(name: string, v: unknown, lo: number, hi: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < lo || v > hi) {
    throw new AttentionError(
      `${name}: expected an integer in [${lo}, ${hi}], got ${typeof v === 'number' ? v : typeof v}`,
    )
  }
  return v
}

/**
 * The caller's batch read once, in JS, into plain arrays (as options are: getters and proxies run here,
 * never inside embind). What it holds is checked by the core, which names the bad example.
 */
function copyBatch(batch: unknown): unknown {
  if (!Array.isArray(batch)) return batch
  return Array.from(batch as unknown[], (e) => {
    if (e === null || typeof e !== 'object') return e
    const x = e as Record<string, unknown>
    const out: Record<string, unknown> = {}
    for (const k of ['ids', 'targets', 'pointer'] as const) {
      const v = x[k]
      if (v !== undefined) out[k] = Array.isArray(v) ? [...(v as unknown[])] : v
    }
    return out
  })
}

/** A configured trainer handle in the wasm module, and what the core says about it. */
function openHandle(module: unknown, o: Record<string, unknown>): { raw: RawTrainer; info: TrainerInfo } {
  const mod = module as Partial<TrainerModule>
  if (typeof mod?.TrainerHandle !== 'function') {
    throw new AttentionError(
      'createTrainer: this engine build has no trainer (TrainerHandle missing from the wasm module)',
    )
  }
  const conf: Record<string, unknown> = { ...o }
  if (conf.scale === false) conf.scale = 1
  else if (conf.scale === true) delete conf.scale
  const raw = new mod.TrainerHandle()
  try {
    const info = unwrap<TrainerInfo>(raw.configure(conf))
    // float32 in the core: show the value the user would have typed (0.1, not 0.10000000149…)
    info.config.lr = Number(info.config.lr.toPrecision(7))
    return { raw, info }
  } catch (e) {
    raw.delete()
    throw e
  }
}

export function createTrainerFor(module: unknown, options?: TrainerOptions): Trainer
export function createTrainerFor(module: unknown, options: PoemsTrainerOptions): PoemsTrainer
export function createTrainerFor(
  module: unknown,
  options?: TrainerOptions | PoemsTrainerOptions,
): Trainer | PoemsTrainer {
  const o = checkOptions('createTrainer', options)
  // the language model (issue 37 item 6): its own options, handle and object (poemsTrainer.ts)
  if (o.task === 'poems') return createPoemsTrainerFor(module, o)
  // The option names are the module's to check (TrainerHandle::configure reads them).
  const { raw, info } = openHandle(module, o)
  const trainer = new LiveTrainer(raw, info, typeof o.lr === 'number' ? o.lr : info.config.lr)
  if (disposeSymbol !== Symbol.dispose) {
    ;(trainer as unknown as Record<symbol, () => void>)[disposeSymbol] = () => trainer.dispose()
  }
  registry?.register(trainer, trainer.handle, trainer.handle)
  return trainer
}

class LiveTrainer implements Trainer {
  readonly handle: { raw: RawTrainer; live: boolean }
  private done = 0
  private inUse: number

  constructor(
    raw: RawTrainer,
    readonly info: TrainerInfo,
    private rate: number,
  ) {
    this.handle = { raw, live: true }
    this.inUse = info.config.lrInUse
  }

  private live(): RawTrainer {
    if (!this.handle.live) throw new AttentionError('trainer: already disposed')
    return this.handle.raw
  }

  get steps(): number {
    return this.done
  }

  get lr(): number {
    return this.rate
  }

  set lr(v: number) {
    this.inUse = unwrap<{ lrInUse: number }>(this.live().setLr(typeof v === 'number' ? v : NaN)).lrInUse
    this.rate = v
  }

  get lrInUse(): number {
    return this.inUse
  }

  step(n = 1): TrainScore {
    intIn('n', n, 1, 1_000_000)
    const r = unwrap<TrainScore & { steps: number; lrInUse: number }>(this.live().step(n))
    this.done = r.steps
    this.inUse = r.lrInUse
    return { loss: r.loss, accuracy: r.accuracy }
  }

  trainOn(batch: TrainExample[]): TrainScore {
    const r = unwrap<TrainScore & { steps: number; lrInUse: number }>(this.live().trainOn(copyBatch(batch)))
    this.done = r.steps
    this.inUse = r.lrInUse
    return { loss: r.loss, accuracy: r.accuracy }
  }

  evaluate(options?: { limit?: number }): TrainScore {
    const { o, done } = readOptions('evaluate', options)
    const limit = o.limit
    done()
    return unwrap<TrainScore>(this.live().evaluate(limit))
  }

  headScores(options?: { limit?: number }): HeadScores {
    const { o, done } = readOptions('headScores', options)
    const limit = o.limit
    done()
    return unwrap<HeadScores>(this.live().headScores(limit))
  }

  trace(text?: string, opts?: { layer?: number }): TrainTrace {
    const t = text === undefined ? this.info.sample : text
    if (typeof t !== 'string') throw new AttentionError(`text: expected a string, got ${typeof t}`)
    const { o, done } = readOptions('trace', opts)
    const layer = o.layer
    done()
    return unwrap<TrainTrace>(this.live().trace(t, layer))
  }

  parameters(): Record<string, Tensor> {
    return unwrap<Record<string, Tensor>>(this.live().parameters())
  }

  setParameters(params: Record<string, TensorLike>): void {
    const p = checkOptions('setParameters', params)
    const t: Record<string, Tensor> = {}
    for (const [k, v] of Object.entries(p)) t[k] = toTensor(`parameters.${k}`, v)
    unwrap(this.live().setParameters(t))
  }

  gradients(batch?: TrainExample[]): TrainScore & { grads: Record<string, Tensor> } {
    return unwrap<TrainScore & { grads: Record<string, Tensor> }>(this.live().gradients(copyBatch(batch)))
  }

  examples(split: 'train' | 'test', count = 100): TrainExample[] {
    intIn('count', count, 0, 1_000_000)
    return unwrap<TrainExample[]>(this.live().examples(split, count))
  }

  dispose(): void {
    if (!this.handle.live) return
    this.handle.live = false
    registry?.unregister(this.handle)
    this.handle.raw.delete()
  }

  [Symbol.dispose](): void {
    this.dispose()
  }
}
