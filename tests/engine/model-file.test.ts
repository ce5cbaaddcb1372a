// The package's safetensors reader and the attention-file schema (src/js/safetensors.ts, attentionFile.ts),
// beyond the bad-input rows F1–F6 of docs/bad-input.md (hardening-bad-input.test.ts): dtype decoding, files from other
// tools, the cross-attention sides, and the model view's recomputation from Q, K, V (web/views/model.ts)
// against torch's weights, here in Node.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { readAttentionFile, readSafetensors, writeSafetensors, SAFETENSORS_LIMITS } from '../../dist/index.js'
import { recompute } from '../../web/compute/attention-file'
import { ap, useEngine } from '../support/helpers'
import { defaultState, parseParams, toParams } from '../../web/state'

const MODELS = new URL('../fixtures/models/', import.meta.url)
const ref = JSON.parse(readFileSync(new URL('reference.json', MODELS), 'utf8'))

function raw(header: object, data: Uint8Array): Uint8Array {
  const json = new TextEncoder().encode(JSON.stringify(header))
  const out = new Uint8Array(8 + json.length + data.length)
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true)
  out.set(json, 8)
  out.set(data, 8 + json.length)
  return out
}

const u16 = (...v: number[]) => new Uint8Array(Uint16Array.from(v).buffer)

function thrown(f: () => unknown): string {
  try {
    f()
  } catch (e) {
    return (e as Error).message
  }
  return 'no error'
}

useEngine()

describe('readSafetensors', () => {
  it('decodes F16 (normal, subnormal, ±Infinity) and BF16 exactly', () => {
    const f = readSafetensors(
      raw(
        {
          a: { dtype: 'F16', shape: [5], data_offsets: [0, 10] },
          b: { dtype: 'BF16', shape: [2, 2], data_offsets: [10, 18] },
        },
        new Uint8Array([...u16(0x3e00, 0xc000, 0x7bff, 0x0001, 0xfc00), ...u16(0x3fc0, 0xc000, 0x4049, 0x0000)]),
      ),
    )
    expect(Array.from(f.tensors.get('a')!.data)).toEqual([1.5, -2, 65504, 2 ** -24, -Infinity])
    expect(f.tensors.get('a')!.dtype).toBe('F16')
    expect(Array.from(f.tensors.get('b')!.data)).toEqual([1.5, -2, 3.140625, 0])
    expect(f.tensors.get('b')!.shape).toEqual([2, 2])
  })

  it('decodes every one of the 65,536 F16 bit patterns to the value IEEE 754 binary16 defines', () => {
    const all = Uint16Array.from({ length: 65536 }, (_, i) => i)
    const f = readSafetensors(
      raw({ h: { dtype: 'F16', shape: [65536], data_offsets: [0, 131072] } }, new Uint8Array(all.buffer)),
    )
    const got = f.tensors.get('h')!.data
    const wrong: string[] = []
    for (const h of all) {
      // (-1)^sign × 2^(e − 15) × 1.m, subnormals 2^-14 × 0.m, e = 31: ±Infinity (m = 0) or NaN
      const sign = h & 0x8000 ? -1 : 1
      const e = (h >> 10) & 0x1f
      const m = h & 0x3ff
      const want =
        e === 31
          ? m
            ? NaN
            : sign * Infinity
          : sign * (e === 0 ? (m / 1024) * 2 ** -14 : (1 + m / 1024) * 2 ** (e - 15))
      if (!Object.is(got[h], want)) wrong.push(`0x${h.toString(16)}: ${got[h]} ≠ ${want}`)
    }
    expect(wrong.slice(0, 5)).toEqual([])
  })

  it('round-trips writeSafetensors, metadata included; the data are copies', () => {
    const src = new Float32Array([1, 2, 3, 4, 5, 6])
    const bytes = writeSafetensors({ x: { data: src, shape: [2, 3] } }, { note: '我' })
    expect((new DataView(bytes.buffer).getUint32(0, true) + 8) % 8).toBe(0)
    const f = readSafetensors(bytes)
    expect(f.metadata).toEqual({ note: '我' })
    const x = f.tensors.get('x')!
    expect(Array.from(x.data)).toEqual([1, 2, 3, 4, 5, 6])
    bytes.fill(0)
    expect(x.data[5]).toBe(6)
  })

  it('says what is wrong with a header', () => {
    expect(thrown(() => readSafetensors(raw([] as unknown as object, new Uint8Array(0))))).toBe(
      'file: the header must be a JSON object of tensors',
    )
    const bad = new Uint8Array([4, 0, 0, 0, 0, 0, 0, 0, 0x7b, 0x22, 0x61, 0x7b])
    expect(thrown(() => readSafetensors(bad))).toMatch(/^file: the header is not valid UTF-8 JSON/)
    expect(thrown(() => readSafetensors(raw({ __metadata__: { n: 5 } }, new Uint8Array(0))))).toBe(
      '__metadata__.n: must be a string, got number',
    )
    expect(
      thrown(() => readSafetensors(raw({ x: { dtype: 'F32', shape: [-1], data_offsets: [0, 0] } }, new Uint8Array(0)))),
    ).toBe('x: shape sizes must be integers ≥ 0, got [-1]')
    expect(
      thrown(() => readSafetensors(raw({ x: { dtype: 'F32', shape: [2], data_offsets: [0, 4] } }, new Uint8Array(4)))),
    ).toBe('x: data_offsets [0, 4] hold 4 bytes but F32 [2] needs 8')
    expect(
      thrown(() =>
        readSafetensors(raw({ x: { dtype: 'F32', shape: [65536, 65536], data_offsets: [0, 4] } }, new Uint8Array(4))),
      ),
    ).toBe('x: shape [65536, 65536] has 4294967296 elements, over the limit of 2^28')
    expect(SAFETENSORS_LIMITS.headerBytes).toBe(16 * 1024 * 1024)
  })
})

describe('readAttentionFile', () => {
  const meta = (o: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(o).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]))
  const t = (shape: number[], v = 0.5) => ({ data: new Float32Array(shape.reduce((a, b) => a * b, 1)).fill(v), shape })

  it('a file without layer metadata (another tool): layers from the tensor names, positions as tokens', () => {
    const f = readAttentionFile(
      writeSafetensors({ 'attention.0.weights': t([2, 3, 3]), 'attention.1.weights': t([2, 3, 3]) }),
    )
    expect(f.layers.map((l) => [l.name, l.kind, l.heads])).toEqual([
      ['attention.0', 'self', 2],
      ['attention.1', 'self', 2],
    ])
    expect(f.tokens).toEqual(['0', '1', '2'])
  })

  it('cross attention: queries from the tokens, keys from the source tokens', () => {
    const f = readAttentionFile(
      writeSafetensors(
        { 'attention.0.weights': t([1, 2, 3]) },
        meta({
          format: 'attention-playground/1',
          tokens: ['a', 'b'],
          source_tokens: ['x', 'y', 'z'],
          layers: [{ kind: 'cross', queries: 'tokens', keys: 'source_tokens' }],
        }),
      ),
    )
    expect(f.layers[0].kind).toBe('cross')
    expect(f.layers[0].queryTokens).toEqual(['a', 'b'])
    expect(f.layers[0].keyTokens).toEqual(['x', 'y', 'z'])
  })

  it('Q, K, V and the mask are checked against the tokens too', () => {
    const m = meta({ tokens: ['a', 'b'] })
    const w = t([1, 2, 2])
    expect(
      thrown(() =>
        readAttentionFile(
          writeSafetensors(
            {
              'attention.0.weights': w,
              'attention.0.q': t([1, 2, 4]),
              'attention.0.k': t([1, 3, 4]),
              'attention.0.v': t([1, 2, 4]),
            },
            m,
          ),
        ),
      ),
    ).toBe('attention.0.k: shape [1, 3, 4] does not match the tokens: expected [1, 2, 4]')
    expect(
      thrown(() => readAttentionFile(writeSafetensors({ 'attention.0.weights': w, 'attention.0.q': t([1, 2, 4]) }, m))),
    ).toBe('attention.0.k: missing (a layer has all of q, k and v, or none)')
    expect(
      thrown(() => readAttentionFile(writeSafetensors({ 'attention.0.weights': w, 'attention.0.mask': t([3, 2]) }, m))),
    ).toBe('attention.0.mask: shape [3, 2] does not match the tokens: expected [2, 2]')
    expect(thrown(() => readAttentionFile(writeSafetensors({ 'attention.0.weights': w }, { format: 'gguf' })))).toBe(
      "__metadata__.format: 'gguf' is not an attention file (expected attention-playground/1, from python/export_attention.py)",
    )
    expect(thrown(() => readAttentionFile(writeSafetensors({ x: w })))).toBe(
      'file: no attention layers (no attention.<i>.weights tensor and no layers in the metadata)',
    )
  })

  it("the committed files: the engine recomputes every head from Q, K, V within 1e-5 of torch (the model view's numbers)", () => {
    let worst = 0
    for (const [file, key] of [
      ['encoder', 'encoder'],
      ['seq2seq', 'seq2seq'],
    ] as const) {
      const f = readAttentionFile(readFileSync(new URL(`${file}.safetensors`, MODELS)))
      f.layers.forEach((l, i) => {
        const [heads, nq, nk] = l.weights.shape
        for (let h = 0; h < heads; h++) {
          const r = recompute(ap, l, h)!
          const torch = ref[key].layers[i].data.slice(h * nq * nk, (h + 1) * nq * nk) as number[]
          let d = 0
          r.weights.data.forEach((v: number, j: number) => {
            d = Math.max(d, Math.abs(v - torch[j]))
          })
          expect(d, `${file} layer ${i} head ${h}`).toBeLessThanOrEqual(1e-5)
          expect(r.maxDiff).toBeLessThanOrEqual(1e-5)
          worst = Math.max(worst, d)
        }
      })
    }
    console.log(`engine vs torch over all heads of the committed files: ${worst.toExponential(2)}`)
  })
})

describe('the src parameter (page URL and widget attribute)', () => {
  it('opens the model view unless the link names a view; kept in links; over 2048 characters a notice', () => {
    const a = parseParams(new URLSearchParams('src=models/a.safetensors'), defaultState())
    expect([a.state.src, a.state.view, a.notices]).toEqual(['models/a.safetensors', 'model', []])
    const b = parseParams(new URLSearchParams('src=a.safetensors&view=why'), defaultState())
    expect([b.state.src, b.state.view]).toEqual(['a.safetensors', 'why'])
    expect(toParams(a.state).toString()).toBe('view=model&src=models%2Fa.safetensors')
    const c = parseParams(new URLSearchParams('src=' + 'x'.repeat(2049)), defaultState())
    expect([c.state.src, c.state.view, c.notices.map((n) => n.param)]).toEqual(['', 'pipeline', ['src']])
  })
})
