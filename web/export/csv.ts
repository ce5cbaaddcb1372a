// Export: one step's matrix as CSV, numbers exact.

import { STEP_NAMES } from 'attention-playground/constants'
import type { Tensor, Trace } from 'attention-playground'
import { headTensor, isPerHeadStep } from '../compute/heads'

/** Shortest decimal that reads back as the same float32 (9 significant digits always suffice). */
export function f32(v: number): string {
  if (v === -Infinity) return '-inf'
  if (v === Infinity) return 'inf'
  if (Number.isNaN(v)) return 'nan'
  if (v === 0) return Object.is(v, -0) ? '-0' : '0'
  for (let p = 1; p <= 9; p++) {
    const s = v.toPrecision(p)
    if (Math.fround(Number(s)) === v) return String(Number(s))
  }
  return String(Number(v.toPrecision(9)))
}

function csvField(s: string, isLabel: boolean): string {
  // A label is learner text: a leading = + - @ would be run as a formula by spreadsheet programs.
  let v = isLabel && /^[=+\-@\t\r]/.test(s) ? `'${s}` : s
  if (/[",\r\n]/.test(v)) v = `"${v.replace(/"/g, '""')}"`
  return v
}

/**
 * One matrix as CSV (RFC 4180, CRLF): a header row of column labels, then one row per matrix row led
 * by its label. Numbers are exact (they read back as the same float32); masked cells are -inf.
 */
export function matrixCsv(tensor: Tensor, rowLabels: string[], colLabels: string[]): string {
  if (tensor.shape.length !== 2) {
    throw new Error(`matrixCsv: tensor must be 2-D [rows, cols], got shape [${tensor.shape.join(', ')}]`)
  }
  const [rows, cols] = tensor.shape
  if (tensor.data.length !== rows * cols) {
    throw new Error(
      `matrixCsv: tensor data has ${tensor.data.length} values, shape [${rows}, ${cols}] needs ${rows * cols}`,
    )
  }
  if (rowLabels.length !== rows)
    throw new Error(`matrixCsv: rowLabels has ${rowLabels.length} labels, the tensor has ${rows} rows`)
  if (colLabels.length !== cols)
    throw new Error(`matrixCsv: colLabels has ${colLabels.length} labels, the tensor has ${cols} columns`)
  const lines = [['', ...colLabels].map((s, i) => csvField(s, i > 0)).join(',')]
  for (let i = 0; i < rows; i++) {
    const cells = [csvField(rowLabels[i], true)]
    for (let j = 0; j < cols; j++) cells.push(f32(tensor.data[i * cols + j]))
    lines.push(cells.join(','))
  }
  return lines.join('\r\n') + '\r\n'
}

/** The matrix a step's panel shows (one head of the per-head steps) with its row and column labels. */
/** A position step's matrix (docs/positions.md); an error when the trace's encoding has no such step. */
function positionMatrix(
  trace: Trace,
  step: 'positions' | 'rotatedQ' | 'rotatedK' | 'positionBias',
  head: number,
): { tensor: Tensor; rows: string[]; cols: string[] } {
  const t = trace[step]
  if (!t) throw new Error(`panelMatrix: "${step}" exists only with the positions that make it (docs/positions.md)`)
  const cols = (prefix: string) => Array.from({ length: t.shape[t.shape.length - 1] }, (_, i) => `${prefix}${i}`)
  const k = trace.sourceTokens ?? trace.tokens
  if (step === 'positions')
    return { tensor: t, rows: Array.from({ length: t.shape[0] }, (_, i) => `p${i}`), cols: cols('d') }
  if (step === 'rotatedQ') return { tensor: t, rows: trace.tokens, cols: cols('q') }
  if (step === 'rotatedK') return { tensor: t, rows: k, cols: cols('k') }
  return { tensor: headTensor(t, head, 'panelMatrix'), rows: trace.tokens, cols: k }
}

export function panelMatrix(trace: Trace, step: string, head = 0): { tensor: Tensor; rows: string[]; cols: string[] } {
  const q = trace.tokens
  const k = trace.sourceTokens ?? trace.tokens
  const dims = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`)
  switch (step) {
    case 'embeddings':
      return { tensor: trace.embeddings, rows: q, cols: dims('d', trace.embeddings.shape[1]) }
    case 'sourceEmbeddings':
      if (!trace.sourceEmbeddings) throw new Error('panelMatrix: sourceEmbeddings exists only in cross attention')
      return { tensor: trace.sourceEmbeddings, rows: k, cols: dims('d', trace.sourceEmbeddings.shape[1]) }
    case 'Wq':
    case 'Wk':
    case 'Wv': {
      const t = trace[step]
      return { tensor: t, rows: dims('d', t.shape[0]), cols: dims(step[1], t.shape[1]) }
    }
    case 'Q':
      return { tensor: trace.Q, rows: q, cols: dims('q', trace.Q.shape[1]) }
    case 'K':
      return { tensor: trace.K, rows: k, cols: dims('k', trace.K.shape[1]) }
    case 'V':
      return { tensor: trace.V, rows: k, cols: dims('v', trace.V.shape[1]) }
    case 'output':
      return { tensor: trace.output, rows: q, cols: dims('v', trace.output.shape[1]) }
    case 'positions':
    case 'rotatedQ':
    case 'rotatedK':
    case 'positionBias':
      return positionMatrix(trace, step, head)
    default:
      if (isPerHeadStep(step)) return { tensor: headTensor(trace[step], head, 'panelMatrix'), rows: q, cols: k }
      throw new Error(
        `panelMatrix: unknown step "${step}"; expected one of ${STEP_NAMES.join(', ')} or sourceEmbeddings`,
      )
  }
}
