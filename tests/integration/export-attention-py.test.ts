// python/export_attention.py under real PyTorch (/usr/bin/python3 with Debian's python3-torch):
// tests/fixtures/check_export_attention.py exports real nn modules, reads the file back with its own
// reader, and reports; here every report is held to torch's numbers. Then the committed fixtures
// (tests/fixtures/gen_model_files.py) are read by the package's reader and checked the same way.
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { beforeAll, describe, expect, it } from 'vitest'
import { readAttentionFile } from '../../dist/index.js'

const PY = '/usr/bin/python3'
const SCRIPT = new URL('../fixtures/check_export_attention.py', import.meta.url).pathname
const MODELS = new URL('../fixtures/models/', import.meta.url)

// eslint-disable-next-line @typescript-eslint/no-explicit-any
let r: any

beforeAll(() => {
  const probe = existsSync(PY) ? spawnSync(PY, ['-c', 'import torch'], { encoding: 'utf8' }) : null
  if (!probe || probe.status !== 0) {
    throw new Error(
      `export-attention: PyTorch is needed under ${PY} (${probe ? probe.stderr.trim().split('\n').pop() : 'missing'}); install it with: apt-get install -y python3-torch`,
    )
  }
  r = JSON.parse(execFileSync(PY, [SCRIPT], { encoding: 'utf8', timeout: 120_000 }))
}, 130_000)

describe('python/export_attention.py with real PyTorch', () => {
  it("nn.TransformerEncoder (2 layers, 4 heads, batch_first): weights equal torch's; softmax(Q·Kᵀ·scale) from the file equals them", () => {
    const e = r.encoder
    expect(e.format).toBe('attention-playground/1')
    expect(e.tokens).toEqual("the animal didn't cross the street because it was too tired".split(' '))
    expect(e.layers).toBe(2)
    expect(e.heads).toBe(4)
    expect(e.scale).toBe(0.5)
    expect(e.qkv).toEqual([true, true])
    expect(e.names).toEqual([
      'attention.0.k',
      'attention.0.q',
      'attention.0.v',
      'attention.0.weights',
      'attention.1.k',
      'attention.1.q',
      'attention.1.v',
      'attention.1.weights',
    ])
    expect(e.weights_vs_torch).toBeLessThanOrEqual(1e-7)
    expect(e.recomputed_vs_weights).toBeLessThanOrEqual(1e-6)
    expect(e.header_aligned).toBe(true)
    expect(e.returned_meta_equal).toBe(true)
  })

  it('leaves the model as it was: forward restored, eval/train mode kept, same outputs', () => {
    expect(r.encoder.forward_restored).toBe(true)
    expect(r.encoder.training_restored).toBe(true)
    expect(r.encoder.output_unchanged).toBe(true)
  })

  it('a causal nn.TransformerDecoder with cross attention: sides, mask, weights', () => {
    const s = r.seq2seq
    expect(s.kinds).toEqual(['self', 'self', 'cross', 'self', 'cross'])
    expect(s.sides).toEqual([
      ['source_tokens', 'source_tokens'],
      ['tokens', 'tokens'],
      ['tokens', 'source_tokens'],
      ['tokens', 'tokens'],
      ['tokens', 'source_tokens'],
    ])
    expect(s.source_tokens).toEqual(['我', '爱', '中国'])
    expect(s.cross_shape).toEqual([2, 4, 3])
    expect(s.causal_mask).toEqual([
      [0, 1, 1, 1],
      [0, 0, 1, 1],
      [0, 0, 0, 1],
      [0, 0, 0, 0],
    ])
    expect(s.weights_vs_torch).toBeLessThanOrEqual(1e-7)
    expect(s.recomputed_vs_weights).toBeLessThanOrEqual(1e-6)
  })

  it('kdim/vdim projections, sequence-first input, key padding, a fully masked query row', () => {
    const k = r.kdim
    expect(k.kind).toBe('cross')
    expect(k.sides).toEqual(['tokens', 'source_tokens'])
    // No tokens given: positions are named.
    expect(k.tokens).toEqual(['0', '1', '2'])
    expect(k.source_tokens).toEqual(['0', '1', '2', '3'])
    expect(k.shapes).toEqual({
      'attention.0.weights': [2, 3, 4],
      'attention.0.q': [2, 3, 4],
      'attention.0.k': [2, 4, 4],
      'attention.0.v': [2, 4, 4],
      'attention.0.mask': [3, 4],
    })
    expect(k.mask).toEqual([
      [0, 0, 1, 0],
      [0, 0, 1, 0],
      [1, 1, 1, 1],
    ])
    expect(k.weights_vs_torch).toBeLessThanOrEqual(1e-7)
    expect(k.recomputed_vs_weights).toBeLessThanOrEqual(1e-6)
    // torch's NaN row is written as zeros (the page refuses NaN).
    expect(k.masked_row).toBe(0)
  })

  it('F16 and BF16 files hold the weights to their precision', () => {
    expect(r.F16_dtype).toBe('F16')
    expect(r.BF16_dtype).toBe('BF16')
    expect(r.F16).toBeLessThan(5e-4)
    expect(r.BF16).toBeLessThan(4e-3)
  })

  it('a Hugging Face model (a stand-in object): output_attentions=True, every group of layers, no Q/K/V', () => {
    expect(r.hf.called_with_output_attentions).toEqual([true])
    expect(r.hf.names).toEqual([
      'encoder_attentions.0',
      'encoder_attentions.1',
      'decoder_attentions.0',
      'cross_attentions.0',
    ])
    expect(r.hf.sides).toEqual([
      ['source_tokens', 'source_tokens'],
      ['source_tokens', 'source_tokens'],
      ['tokens', 'tokens'],
      ['tokens', 'source_tokens'],
    ])
    expect(r.hf.qkv).toEqual([false, false, false, false])
    expect(r.hf.shapes).toEqual([
      [3, 5, 5],
      [3, 5, 5],
      [3, 2, 2],
      [3, 2, 5],
    ])
  })

  it('bad calls say what is wrong', () => {
    expect(r.errors.no_attention).toMatch(/^export: the model ran but has no torch.nn.MultiheadAttention/)
    expect(r.errors.bad_dtype).toBe("dtype: expected one of ['BF16', 'F16', 'F32'], got 'I8'")
    expect(r.errors.bad_tokens).toBe("tokens: expected a list, or a dict with 'source' and 'target', got keys ['src']")
    expect(r.errors.token_count).toBe(
      'tokens: 5 tokens, but encoder.layers.0.self_attn has 11 queries (weights [4, 11, 11]); pass one token per position of batch item 0',
    )
  })
})

describe('the committed fixtures, read by the package (readAttentionFile)', () => {
  const ref = JSON.parse(readFileSync(new URL('reference.json', MODELS), 'utf8'))
  const maxDiff = (a: ArrayLike<number>, b: ArrayLike<number>) => {
    expect(a.length).toBe(b.length)
    let m = 0
    for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]))
    return m
  }
  for (const [file, key, tol] of [
    ['encoder', 'encoder', 0],
    ['encoder-f16', 'encoder', 5e-4],
    ['seq2seq', 'seq2seq', 0],
  ] as const) {
    it(`${file}.safetensors: tokens, layers and torch's weights`, () => {
      const f = readAttentionFile(readFileSync(new URL(`${file}.safetensors`, MODELS)))
      expect(f.tokens).toEqual(ref[key].tokens)
      expect(f.sourceTokens).toEqual(ref[key].source_tokens)
      expect(f.layers).toHaveLength(ref[key].layers.length)
      f.layers.forEach((l, i) => {
        expect(l.weights.shape).toEqual(ref[key].layers[i].shape)
        expect(maxDiff(l.weights.data, ref[key].layers[i].data)).toBeLessThanOrEqual(tol)
        expect(l.q && l.k && l.v).toBeTruthy()
      })
    })
  }
})
