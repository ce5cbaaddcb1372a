// "Why ÷√d_k", measured on the engine: queries and keys with unit-variance entries, for d_k from 1 to
// 512. Without the scale the variance of q·k grows like d_k, softmax saturates (one weight near 1,
// entropy near 0) and its gradient vanishes; with it the variance stays near 1.

import type { Engine, Tensor } from 'attention-playground'
import { mulberry32 } from './random'

export const SCALING_DKS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512] as const

export interface ScalingSide {
  /** Variance of the scores the softmax sees (q·k, or q·k/√d_k), mean over blocks. */
  variance: number
  /** Standard error of that mean, from the spread of the independent blocks. */
  varianceSE: number
  /** Mean over rows of the largest softmax weight. */
  maxWeight: number
  /** Mean row entropy of the weights, in nats (ln n for a uniform row). */
  entropy: number
  /** Mean Frobenius norm of softmax's Jacobian diag(p) − p pᵀ per row (0 when one-hot). */
  gradient: number
}

export interface ScalingPoint {
  dk: number
  raw: ScalingSide
  scaled: ScalingSide
}

export interface ScalingOptions {
  /** Queries and keys per block (the softmax rows have this many keys). */
  n?: number
  /** Independent blocks of fresh q and k per d_k. */
  blocks?: number
  seed?: number
}

/** mulberry32 + Box–Muller: reproducible standard normal draws. */
export function normals(seed: number): () => number {
  const u = mulberry32(seed)
  return () => Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u())
}

export function randn(next: () => number, rows: number, cols: number): Tensor {
  const data = new Float32Array(rows * cols)
  for (let i = 0; i < data.length; i++) data[i] = next()
  return { data, shape: [rows, cols] }
}

function rowStats(
  w: Float32Array,
  rows: number,
  cols: number,
): { maxWeight: number; entropy: number; gradient: number } {
  let mx = 0,
    ent = 0,
    grad = 0
  for (let i = 0; i < rows; i++) {
    let m = 0,
      h = 0,
      s2 = 0,
      s3 = 0
    for (let j = 0; j < cols; j++) {
      const p = w[i * cols + j]
      if (p > m) m = p
      if (p > 0) h -= p * Math.log(p)
      s2 += p * p
      s3 += p * p * p
    }
    mx += m
    ent += h
    // ‖diag(p) − p pᵀ‖_F² = Σp² − 2Σp³ + (Σp²)²
    grad += Math.sqrt(Math.max(0, s2 - 2 * s3 + s2 * s2))
  }
  return { maxWeight: mx / rows, entropy: ent / rows, gradient: grad / rows }
}

function variance(x: Float32Array, factor: number): number {
  let s = 0,
    s2 = 0
  for (const v of x) {
    const y = v * factor
    s += y
    s2 += y * y
  }
  const n = x.length
  return (s2 - (s * s) / n) / (n - 1)
}

function meanSE(xs: number[]): { mean: number; se: number } {
  const n = xs.length
  const mean = xs.reduce((a, b) => a + b, 0) / n
  const v = xs.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, n - 1)
  return { mean, se: Math.sqrt(v / n) }
}

export function measureScaling(
  engine: Engine,
  dks: readonly number[] = SCALING_DKS,
  opts: ScalingOptions = {},
): ScalingPoint[] {
  if (!engine.attention) throw new Error('scaling: this engine build has no attention() call')
  const n = opts.n ?? 32,
    blocks = opts.blocks ?? 12
  const next = normals(opts.seed ?? 2024)
  const value: Tensor = { data: new Float32Array(n), shape: [n, 1] }
  return dks.map((dk) => {
    const acc = { raw: [] as ScalingSide[], scaled: [] as ScalingSide[] }
    for (let b = 0; b < blocks; b++) {
      const query = randn(next, n, dk),
        key = randn(next, n, dk)
      for (const side of ['raw', 'scaled'] as const) {
        const r = engine.attention!({
          query,
          key,
          value,
          score: side === 'raw' ? 'dot' : 'scaled-dot',
          mask: 'none',
          needScores: true,
        })
        // The engine's scores are q·k before the scale; the softmax saw them times the scale.
        const scale = side === 'raw' ? 1 : 1 / Math.sqrt(dk)
        acc[side].push({ variance: variance(r.scores!.data, scale), varianceSE: 0, ...rowStats(r.weights!.data, n, n) })
      }
    }
    const reduce = (xs: ScalingSide[]): ScalingSide => {
      const v = meanSE(xs.map((x) => x.variance))
      const avg = (k: 'maxWeight' | 'entropy' | 'gradient') => xs.reduce((a, x) => a + x[k], 0) / xs.length
      return {
        variance: v.mean,
        varianceSE: v.se,
        maxWeight: avg('maxWeight'),
        entropy: avg('entropy'),
        gradient: avg('gradient'),
      }
    }
    return { dk, raw: reduce(acc.raw), scaled: reduce(acc.scaled) }
  })
}
