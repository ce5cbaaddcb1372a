// What one change of the state does to the rest of it: edits replace cells, clicks toggle mask cells
// and padded keys, and a new text or size drops the choices bound to the old positions.

import type { Tensor } from 'attention-playground'
import { SENTENCE_FIELDS, SIZE_FIELDS, type CellEdit, type EditableTensor, type PlaygroundState } from '../params'
import { withTrainedDims } from './trained'

/**
 * Applies cell edits to copies of the traced tensors. Edits that fall outside the current shapes
 * (the text or a size changed since) are dropped and returned so the page can tell the learner.
 */
export function applyEdits(
  tensors: Record<EditableTensor, Tensor | undefined>,
  edits: readonly CellEdit[],
): { overrides: Partial<Record<EditableTensor, Tensor>>; dropped: CellEdit[] } {
  const overrides: Partial<Record<EditableTensor, Tensor>> = {}
  const dropped: CellEdit[] = []
  for (const e of edits) {
    const src = tensors[e.t]
    if (!src || src.shape.length !== 2 || e.r >= src.shape[0] || e.c >= src.shape[1]) {
      dropped.push(e)
      continue
    }
    let t = overrides[e.t]
    if (!t) {
      t = { data: new Float32Array(src.data), shape: [...src.shape] }
      overrides[e.t] = t
    }
    t.data[e.r * src.shape[1] + e.c] = e.v
  }
  return { overrides, dropped }
}

/** Replaces or adds one edit (the latest value of a cell wins). */
export function withEdit(edits: readonly CellEdit[], e: CellEdit): CellEdit[] {
  const out = edits.filter((x) => !(x.t === e.t && x.r === e.r && x.c === e.c))
  out.push(e)
  return out
}

export function toggleCell(cells: ReadonlyArray<[number, number]>, i: number, j: number): Array<[number, number]> {
  const has = cells.some(([a, b]) => a === i && b === j)
  return has ? cells.filter(([a, b]) => !(a === i && b === j)) : [...cells, [i, j]]
}

export function toggleIndex(list: readonly number[], j: number): number[] {
  return list.includes(j) ? list.filter((x) => x !== j) : [...list, j].sort((a, b) => a - b)
}

/** Changing what the tokens or shapes are invalidates position-bound choices. */
export function resetsPositions(prev: PlaygroundState, next: PlaygroundState): boolean {
  return (
    prev.text !== next.text ||
    prev.source !== next.source ||
    prev.target !== next.target ||
    prev.tokenizer !== next.tokenizer ||
    prev.mode !== next.mode
  )
}

export function resetsEdits(prev: PlaygroundState, next: PlaygroundState): boolean {
  return (
    resetsPositions(prev, next) ||
    prev.dModel !== next.dModel ||
    prev.dq !== next.dq ||
    prev.dk !== next.dk ||
    prev.dv !== next.dv ||
    prev.seed !== next.seed ||
    prev.weights !== next.weights
  )
}

/** The fields whose change means a new engine run (the rest only changes what is drawn). */
const COMPUTED_FIELDS: Array<keyof PlaygroundState> = [
  ...SENTENCE_FIELDS,
  ...SIZE_FIELDS,
  'heads',
  'score',
  'scale',
  'mask',
  'temperature',
  'weights',
  'positions',
  'ropeBase',
]

export function needsCompute(prev: PlaygroundState | null, s: PlaygroundState): boolean {
  if (!prev) return true
  if (COMPUTED_FIELDS.some((k) => prev[k] !== s[k])) return true
  return (
    JSON.stringify([prev.padKeys, prev.maskCells, prev.edits]) !== JSON.stringify([s.padKeys, s.maskCells, s.edits])
  )
}

/** The fields that define the model's weights: changing one leaves the trained model (its weights no longer fit). */
const MODEL_FIELDS = ['mode', 'tokenizer', ...SIZE_FIELDS, 'heads', 'score', 'positions'] as const

/**
 * Trained weights fix the model's sizes: a patch that changes one of them (and does not ask for trained weights)
 * goes back to random weights; a state asking for trained weights gets the trained model's sizes.
 */
export function settleWeights(
  prev: PlaygroundState,
  patch: Partial<PlaygroundState>,
  next: PlaygroundState,
): PlaygroundState {
  if (
    prev.weights === 'trained' &&
    !('weights' in patch) &&
    MODEL_FIELDS.some((k) => k in patch && patch[k] !== prev[k])
  )
    return { ...next, weights: 'random' }
  return withTrainedDims(next)
}
