// What the flash view shows, without the DOM: the engine's flashTrace on a small input (the page's Q, K, V of its
// first few tokens when the rule has dq = dk, else a seeded random one), each step with the state it started from.

import type { Engine, FlashStep, Tensor, Trace } from 'attention-playground'
import { mulberry32 } from './random'

/** At most this many tokens: the n×n grid must fit beside its numbers. */
export const FLASH_MAX_N = 8
export const FLASH_BLOCKS = [2, 3, 4] as const

export interface FlashInput {
  query: Tensor
  key: Tensor
  value: Tensor
  tokens: string[]
  /** true: the page's own Q, K, V (first head's columns); false: a random example. */
  fromPage: boolean
}

export interface FlashRowChange {
  /** The row in the whole query. */
  row: number
  mOld: number
  mNew: number
  lOld: number
  lNew: number
  /** exp(m_old − m_new): what the row's O was multiplied by before this tile's P·V was added (0 on the first). */
  factor: number
  oOld: Float32Array
  oNew: Float32Array
}

export interface FlashModel {
  input: FlashInput
  n: number
  nk: number
  dv: number
  br: number
  bc: number
  causal: boolean
  steps: FlashStep[]
  /** Per step: each row of its block, before and after. */
  changes: FlashRowChange[][]
  /** The scaled scores [n, nk] (plain attention's, shown for the tile being computed). */
  scores: Float32Array
  output: Tensor
  plain: Tensor
  maxDiff: number
  scale: number
  kernelBlockRows: number
  kernelBlockCols: number
}

function slice(t: Tensor, rows: number, cols: number): Tensor {
  const w = t.shape[1]
  const data = new Float32Array(rows * cols)
  for (let i = 0; i < rows; i++) data.set(t.data.subarray(i * w, i * w + cols), i * cols)
  return { data, shape: [rows, cols] }
}

function randomTensor(rows: number, cols: number, next: () => number): Tensor {
  const data = new Float32Array(rows * cols)
  for (let i = 0; i < data.length; i++) data[i] = (next() * 2 - 1) * 1.5
  return { data, shape: [rows, cols] }
}

/** The page's Q, K, V (first tokens, first head's columns, at most 4 dims of V) or a seeded example. */
export function flashInput(trace: Trace | null, seed: number): FlashInput {
  const selfOk = trace && trace.selfAttention && trace.Q.shape[1] === trace.K.shape[1]
  if (trace && selfOk) {
    const n = Math.min(FLASH_MAX_N, trace.tokens.length)
    const heads = trace.weights.shape.length === 3 ? trace.weights.shape[0] : 1
    const d = trace.Q.shape[1] / heads
    const dv = Math.min(4, trace.V.shape[1] / heads)
    return {
      query: slice(trace.Q, n, d),
      key: slice(trace.K, n, d),
      value: slice(trace.V, n, dv),
      tokens: trace.tokens.slice(0, n),
      fromPage: true,
    }
  }
  const next = mulberry32(seed * 7919 + 3)
  const n = 6
  return {
    query: randomTensor(n, 4, next),
    key: randomTensor(n, 4, next),
    value: randomTensor(n, 3, next),
    tokens: Array.from({ length: n }, (_, i) => `t${i}`),
    fromPage: false,
  }
}

function rowChanges(steps: FlashStep[], br: number, dv: number): FlashRowChange[][] {
  const last = new Map<number, FlashStep>() // the previous step of each row block
  return steps.map((s) => {
    const prev = last.get(s.rowBlock)
    last.set(s.rowBlock, s)
    return Array.from(s.m, (mNew, r) => {
      const mOld = prev ? prev.m[r] : -Infinity
      return {
        row: s.rowBlock * br + r,
        mOld,
        mNew,
        lOld: prev ? prev.l[r] : 0,
        lNew: s.l[r],
        factor: prev ? Math.exp(mOld - mNew) : 0,
        oOld: prev ? prev.O.data.slice(r * dv, (r + 1) * dv) : new Float32Array(dv),
        oNew: s.O.data.slice(r * dv, (r + 1) * dv),
      }
    })
  })
}

export function flashModel(engine: Engine, input: FlashInput, br: number, bc: number, causal: boolean): FlashModel {
  const { query, key, value } = input
  const t = engine.flashTrace({ query, key, value, blockRows: br, blockCols: bc, causal })
  const plain = engine.attention({ query, key, value, mask: causal ? 'causal' : 'none', needScores: true })
  const n = query.shape[0]
  const nk = key.shape[0]
  const dv = value.shape[1]
  let maxDiff = 0
  for (let i = 0; i < t.output.data.length; i++)
    maxDiff = Math.max(maxDiff, Math.abs(t.output.data[i] - plain.output.data[i]))
  return {
    input,
    n,
    nk,
    dv,
    br,
    bc,
    causal,
    steps: t.steps,
    changes: rowChanges(t.steps, br, dv),
    scores: (plain.maskedScores as Tensor).data,
    output: t.output,
    plain: plain.output,
    maxDiff,
    scale: t.scale,
    kernelBlockRows: t.kernelBlockRows,
    kernelBlockCols: t.kernelBlockCols,
  }
}

/** The head size the view's n = 4096 figure assumes (d = d_v = 64: the kernel's full block of keys). */
export const KERNEL_FIGURE_D = 64

/**
 * Floats the fused kernel holds at once for head size d (= d_v): one tile of its br query rows × its keys per
 * block (bc for d ≤ 64, bc / 2 above, as src/kernels/kernels.h says) plus m, l and O of br rows.
 */
export function kernelTileFloats(br: number, bc: number, d: number): number {
  return br * (d > 64 ? bc / 2 : bc) + br * (d + 2)
}

/** Floats held at once: plain attention's n×nk matrix against the tiles' br×bc block plus m, l and O of br rows. */
export function flashMemory(n: number, nk: number, dv: number, br: number, bc: number) {
  return { plain: n * nk, flash: br * bc + br * (dv + 2) }
}
