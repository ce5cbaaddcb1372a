// CSV export: exact numbers (each reads back as the same float32), token labels, RFC 4180 quoting,
// no spreadsheet formulas from learner text, and clear errors for a wrong shape or label count.
import { describe, expect, it } from 'vitest'
import { getAp } from '../support/helpers'
import type { Trace } from 'attention-playground'
import { f32, matrixCsv, panelMatrix } from '../../web/export/csv'

/** A small RFC 4180 reader, written separately from the writer. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = []
  let row: string[] = [],
    field = '',
    i = 0,
    quoted = false
  while (i < text.length) {
    const ch = text[i]
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"'
        i += 2
        continue
      }
      if (ch === '"') {
        quoted = false
        i++
        continue
      }
      field += ch
      i++
      continue
    }
    if (ch === '"' && field === '') {
      quoted = true
      i++
      continue
    }
    if (ch === ',') {
      row.push(field)
      field = ''
      i++
      continue
    }
    if (ch === '\r' && text[i + 1] === '\n') {
      row.push(field)
      rows.push(row)
      row = []
      field = ''
      i += 2
      continue
    }
    field += ch
    i++
  }
  if (field !== '' || row.length) {
    row.push(field)
    rows.push(row)
  }
  return rows
}

const num = (s: string) => (s === '-inf' ? -Infinity : s === 'inf' ? Infinity : Number(s))

describe('matrixCsv', () => {
  it('writes a header of column labels and one labelled row per matrix row, numbers exact', () => {
    const data = Float32Array.from([0.1, -2.5e-7, 123456.789, Math.PI, -Infinity, 1 / 3])
    const csv = matrixCsv({ data, shape: [2, 3] }, ['我', 'cat'], ['a', 'b', 'c'])
    expect(csv.endsWith('\r\n')).toBe(true)
    const rows = parseCsv(csv)
    expect(rows[0]).toEqual(['', 'a', 'b', 'c'])
    expect(rows.map((r) => r[0])).toEqual(['', '我', 'cat'])
    const back = rows.slice(1).flatMap((r) => r.slice(1).map(num))
    expect(Float32Array.from(back)).toEqual(data)
    expect(rows[2][2]).toBe('-inf')
  })

  it('quotes commas, quotes and newlines, and defuses formulas in labels', () => {
    const labels = ['a,b', 'say "hi"', 'two\nlines', '=HYPERLINK("x")', '+1', '@sum', '-', 'plain']
    const n = labels.length
    const data = new Float32Array(n * n).map((_, i) => i - 3)
    const rows = parseCsv(matrixCsv({ data, shape: [n, n] }, labels, labels))
    expect(rows).toHaveLength(n + 1)
    const expected = ['a,b', 'say "hi"', 'two\nlines', '\'=HYPERLINK("x")', "'+1", "'@sum", "'-", 'plain']
    expect(rows[0].slice(1)).toEqual(expected)
    expect(rows.slice(1).map((r) => r[0])).toEqual(expected)
    // Negative numbers are numbers, not formulas: they keep their sign.
    expect(rows[1][1]).toBe('-3')
  })

  it('f32 gives the shortest text that reads back as the same float32', () => {
    for (const v of [0.1, 1 / 3, 1e-30, 3.4e38, -7.25, 16777217, 2 ** -149]) {
      const x = Math.fround(v)
      const s = f32(x)
      expect(Math.fround(Number(s)), s).toBe(x)
      expect(s.replace(/^-/, '').replace(/e.*$/, '').replace('.', '').replace(/^0+/, '').length).toBeLessThanOrEqual(9)
    }
    expect(f32(Math.fround(0.1))).toBe('0.1')
    expect([f32(-Infinity), f32(NaN), f32(-0)]).toEqual(['-inf', 'nan', '-0'])
  })

  it('rejects a wrong shape or label count with the numbers in the message', () => {
    const data = new Float32Array(6)
    expect(() => matrixCsv({ data, shape: [1, 2, 3] }, [], [])).toThrow(
      'matrixCsv: tensor must be 2-D [rows, cols], got shape [1, 2, 3]',
    )
    expect(() => matrixCsv({ data, shape: [2, 2] }, ['a', 'b'], ['x', 'y'])).toThrow(
      'tensor data has 6 values, shape [2, 2] needs 4',
    )
    expect(() => matrixCsv({ data, shape: [2, 3] }, ['a'], ['x', 'y', 'z'])).toThrow(
      'rowLabels has 1 labels, the tensor has 2 rows',
    )
    expect(() => matrixCsv({ data, shape: [2, 3] }, ['a', 'b'], ['x'])).toThrow(
      'colLabels has 1 labels, the tensor has 3 columns',
    )
  })
})

describe('panelMatrix (what each step panel exports)', () => {
  it('labels rows and columns with tokens, and picks one head of the per-head steps', async () => {
    const ap = await getAp()
    const trace = ap.run({ source: '我 爱 中国', target: 'I love China', tokenizer: 'word', heads: 2 }) as Trace
    const w = panelMatrix(trace, 'weights', 1)
    expect(w.rows).toEqual(['I', 'love', 'China'])
    expect(w.cols).toEqual(['我', '爱', '中国'])
    expect(w.tensor.shape).toEqual([3, 3])
    expect(Array.from(w.tensor.data)).toEqual(Array.from(trace.weights.data.subarray(9, 18)))
    const k = panelMatrix(trace, 'K')
    expect(k.rows).toEqual(['我', '爱', '中国'])
    expect(k.cols).toEqual(Array.from({ length: 24 }, (_, i) => `k${i}`))
    const wq = panelMatrix(trace, 'Wq')
    expect([wq.rows.length, wq.cols[23]]).toEqual([16, 'q23'])
    const rows = parseCsv(matrixCsv(w.tensor, w.rows, w.cols))
    expect(rows[0]).toEqual(['', '我', '爱', '中国'])
    expect(
      rows
        .slice(1)
        .map((r) =>
          r
            .slice(1)
            .map(num)
            .reduce((a, b) => a + b, 0),
        )
        .every((s) => Math.abs(s - 1) < 1e-6),
    ).toBe(true)
    expect(() => panelMatrix(trace, 'weights', 2)).toThrow('head must be from 0 to 1, got 2')
    expect(() => panelMatrix(trace, 'nope')).toThrow('unknown step "nope"')
  })
})
