// The engine run for a state: the full trace, or the long view's for long texts. Nothing here touches
// the DOM.

import type { Engine, RunOptions, Tensor, Trace } from 'attention-playground'
import type { EditableTensor, PlaygroundState } from '../params'
import { applyEdits } from './changes'
import { baseRunOptions } from './options'
import { TRAINED_DIMS, trainedLayerInputs } from './trained'
import { engineText } from './segment'
import { computeLong, longTokens, type LongData, type Tokenized } from './long-rows'

export interface Computed {
  trace: Trace
  /** Some edits fell outside the current shapes and were left out. */
  droppedEdits: boolean
  /** The long view's row source, for texts of more than LONG_TOKENS tokens. */
  long: LongData | null
}

/**
 * The long view for texts of more than LONG_TOKENS tokens where it applies (long-rows.ts), the full
 * trace otherwise. A long text the long view cannot take (cross, bpe, concat) gets the full run.
 */
export function computeAny(engine: Engine, s: PlaygroundState): Computed {
  if (s.weights === 'trained') return { ...compute(engine, s), long: null }
  let tok: Tokenized | null
  try {
    tok = longTokens(engine, s)
  } catch {
    tok = null
  } // the full run reports the text's error
  if (tok) return computeLong(engine, s, tok)
  return { ...compute(engine, s), long: null }
}

/** The run options of a state; with trained weights, the trained model's last layer's X, W_q, W_k, W_v. */
function runOptions(engine: Engine, s: PlaygroundState, nq: number, nk: number): RunOptions {
  const o = baseRunOptions(s, nq, nk)
  if (s.weights !== 'trained') return o
  const L = trainedLayerInputs(engine, engineText(s.text, TRAINED_DIMS.tokenizer))
  return { ...o, embeddings: L.X, Wq: L.Wq, Wk: L.Wk, Wv: L.Wv }
}

export function compute(engine: Engine, s: PlaygroundState): { trace: Trace; droppedEdits: boolean } {
  const needsSizes = s.mask === 'padding' || s.mask === 'cells' || s.edits.length > 0
  if (!needsSizes) return { trace: engine.run(runOptions(engine, s, 0, 0)), droppedEdits: false }
  // The mask and the edits need the token counts and the seed's tensors: the projections give them in O(n),
  // bit for bit the run's, without computing attention (one attention run per state).
  const { mask: _mask, temperature: _temperature, ...upToV } = runOptions(engine, s, 0, 0)
  const base = engine.projections(upToV)
  const nq = base.tokens.length
  const nk = base.sourceTokens?.length ?? nq
  const opts: RunOptions = runOptions(engine, s, nq, nk)
  let dropped = false
  if (s.edits.length) {
    const tensors: Record<EditableTensor, Tensor | undefined> = {
      embeddings: base.embeddings,
      sourceEmbeddings: base.sourceEmbeddings,
      Wq: base.Wq,
      Wk: base.Wk,
      Wv: base.Wv,
    }
    const { overrides, dropped: d } = applyEdits(tensors, s.edits)
    Object.assign(opts, overrides)
    dropped = d.length > 0
  }
  return { trace: engine.run(opts), droppedEdits: dropped }
}
