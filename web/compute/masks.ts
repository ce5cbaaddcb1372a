// The one mask builder of the page: which (query, key) cells the learner's mask choice hides. The
// engine options (full run and long-view rows), the fully masked rows of the long view and the PyTorch
// program all read it from here, so a change to what a mask means is made once.

import type { MaskSpec } from 'attention-playground'
import type { MaskKind } from '../params'

/** The part of the state that decides the mask. */
export interface MaskChoice {
  mask: MaskKind
  padKeys: readonly number[]
  maskCells: ReadonlyArray<readonly [number, number]>
}

/** The padded key positions below nk (positions past the current text are ignored). */
export function paddedKeys(m: MaskChoice, nk: number): number[] {
  return m.padKeys.filter((j) => j < nk)
}

/** One boolean per key, true = padding. */
export function keyPadding(m: MaskChoice, nk: number): boolean[] {
  const out = new Array<boolean>(nk).fill(false)
  for (const j of paddedKeys(m, nk)) out[j] = true
  return out
}

/**
 * The mask of query positions `rows` against nk keys as a rows.length × nk matrix, 1 = masked.
 * Row i of the matrix is query rows[i], so a slice of rows (the long view) keeps its causal diagonal.
 */
export function maskMatrix(m: MaskChoice, rows: readonly number[], nk: number): Uint8Array {
  const out = new Uint8Array(rows.length * nk)
  switch (m.mask) {
    case 'causal':
      rows.forEach((r, i) => out.fill(1, i * nk + Math.min(r + 1, nk), (i + 1) * nk))
      break
    case 'padding':
      for (const j of paddedKeys(m, nk)) for (let i = 0; i < rows.length; i++) out[i * nk + j] = 1
      break
    case 'cells': {
      const at = new Map(rows.map((r, i) => [r, i]))
      for (const [r, j] of m.maskCells) {
        const i = at.get(r)
        if (i !== undefined && j < nk) out[i * nk + j] = 1
      }
      break
    }
    case 'none':
      break
  }
  return out
}

/** The positions 0 … n-1. */
export function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i)
}

/**
 * The mask in the engine's form for nq queries (or just the query positions `rows`) against nk keys:
 * the engine's own 'causal' and keyPadding where they say the same, the matrix otherwise.
 */
export function engineMask(m: MaskChoice, nq: number, nk: number, rows?: readonly number[]): MaskSpec {
  switch (m.mask) {
    case 'none':
      return 'none'
    case 'padding':
      return { keyPadding: keyPadding(m, nk) }
    case 'causal':
      // The engine's 'causal' aligns row i with key i: right for the whole matrix, not for a slice of rows.
      return rows ? { matrix: maskMatrix(m, rows, nk) } : 'causal'
    case 'cells':
      return { matrix: maskMatrix(m, rows ?? range(nq), nk) }
  }
}

/**
 * The query rows whose keys are all masked (their weights and output are 0), without building the
 * nq × nk matrix: the long view has thousands of rows.
 */
export function fullyMaskedRows(m: MaskChoice, nq: number, nk: number): number[] {
  if (m.mask === 'padding') return new Set(paddedKeys(m, nk)).size === nk ? range(nq) : []
  if (m.mask === 'cells') {
    const count = new Map<number, Set<number>>()
    for (const [i, j] of m.maskCells) {
      if (i >= nq || j >= nk) continue
      const keys = count.get(i) ?? new Set<number>()
      keys.add(j)
      count.set(i, keys)
    }
    return [...count]
      .filter(([, keys]) => keys.size >= nk)
      .map(([i]) => i)
      .sort((x, y) => x - y)
  }
  return []
}
