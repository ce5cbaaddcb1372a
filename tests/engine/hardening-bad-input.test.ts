// The bad-input table of docs/bad-input.md, one test per row, through the package:
// each row's example gives exactly the documented message (or, for the rows that are not errors, the
// documented result), and after every row the course program still gives PyTorch's numbers — the
// module keeps working. The last test keeps the table and these tests in step: a row without a test,
// or a test without a row, fails.
//
// tests/engine/engine-errors.test.ts (the engine's own suite) covers more variants per class; this file is
// the user-facing contract, message by message.
import { readFileSync } from 'node:fs'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { createTrainerFor } from '../../dist/trainer.js'
import { readAttentionFile, writeSafetensors, type MultiHeadAttentionOptions } from '../../dist/index.js'
import { expectCourseProgram, rng, type Tensor, ap, useEngine } from '../support/helpers'
// a file whose header is a text as it is (JSON.stringify cannot write every hostile header)
import { join as rawText } from '../support/file-mutants'
import { isAbort, readModelResponse, readModelUrl, type DownloadProgress } from '../../web/views/model-file'

useEngine()
// The module keeps working after whatever the row threw at it.
afterEach(() => expectCourseProgram(ap))

const g = rng(11)
const T = (...shape: number[]): Tensor => g.tensor(shape)
const filled = (shape: number[], v: number): Tensor => ({
  data: new Float32Array(shape.reduce((a, b) => a * b, 1)).fill(v),
  shape,
})
const withValue = (t: Tensor, i: number, x: number): Tensor => {
  const data = Float32Array.from(t.data)
  data[i] = x
  return { data, shape: t.shape }
}
// multiHeadAttention on two rows of E features, packed projections, numHeads heads, and the options under test.
const mhaCall = (E: number, numHeads: number, extra: Partial<MultiHeadAttentionOptions> = {}) =>
  ap.multiHeadAttention({
    query: T(2, E),
    key: T(2, E),
    value: T(2, E),
    numHeads,
    inProjWeight: T(3 * E, E),
    outProjWeight: T(E, E),
    ...extra,
  })
const q = T(5, 6),
  k = T(5, 6),
  v = T(5, 7)

// The thrown error: an AttentionError (an Error) whose message is exactly `message` (a string) or
// matches it (a RegExp), starting with the argument's name.
function expectError(f: () => unknown, message: string | RegExp) {
  let thrown: unknown
  try {
    f()
  } catch (e) {
    thrown = e
  }
  expect(thrown, 'expected an AttentionError, got no error').toBeInstanceOf(Error)
  const e = thrown as Error
  expect(e.name).toBe('AttentionError')
  if (typeof message === 'string') expect(e.message).toBe(message)
  else expect(e.message).toMatch(message)
  expect(e.message).toMatch(/^[\w./[\]]+: /)
}

// Model files (the page's model view): a safetensors file built byte by byte, header first.
function rawFile(header: object, data: Uint8Array, declared?: number): Uint8Array {
  const json = new TextEncoder().encode(JSON.stringify(header))
  const out = new Uint8Array(8 + json.length + data.length)
  new DataView(out.buffer).setBigUint64(0, BigInt(declared ?? json.length), true)
  out.set(json, 8)
  out.set(data, 8 + json.length)
  return out
}
/** The first 64 KiB of a file as a download starts: a safetensors header length of 64, then zeros. */
const SAFETENSORS_START = new Uint8Array(65536)
SAFETENSORS_START[0] = 64

/** Runs `test` with a local server answering every request with `respond`, as the page's base URL (document.baseURI). */
async function withServer(respond: (res: ServerResponse) => void, test: (base: string) => Promise<void>) {
  const server = createServer((_, res) => respond(res))
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
  const doc = globalThis as { document?: { baseURI: string } }
  doc.document = { baseURI: base }
  try {
    await test(base)
  } finally {
    delete doc.document
    server.closeAllConnections()
    server.close()
  }
}

/** A body of 100 chunks of 1 MiB (a safetensors header length of 64 first), counting the chunks pulled. */
function mibBody() {
  let pulled = 0
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      if (pulled === 100) return c.close()
      const b = new Uint8Array(2 ** 20)
      if (pulled === 0) b[0] = 64
      pulled++
      c.enqueue(b)
    },
  })
  return { stream, pulled: () => pulled }
}
// A language-model file from the torch fixture lm-learned-tied-bias (tests/fixtures/gen_lm_fixtures.py), edited.
const lmFixture = JSON.parse(readFileSync(new URL('../fixtures/lm/lm-learned-tied-bias.json', import.meta.url), 'utf8'))
function lmFile(
  meta: Record<string, string | undefined> = {},
  edit: {
    drop?: string[]
    reshape?: Record<string, number[]>
    add?: Record<string, Tensor>
    rename?: Record<string, string>
  } = {},
): Uint8Array {
  const tensors: Record<string, Tensor> = {}
  for (const [name, t] of Object.entries(lmFixture.params as Record<string, { shape: number[]; data: number[] }>)) {
    if (edit.drop?.includes(name)) continue
    tensors[edit.rename?.[name] ?? name] = { data: Float32Array.from(t.data), shape: edit.reshape?.[name] ?? t.shape }
  }
  Object.assign(tensors, edit.add ?? {})
  const md: Record<string, string | undefined> = { vocab: JSON.stringify(lmFixture.vocab), n_head: '2', ...meta }
  const defined = Object.fromEntries(Object.entries(md).filter(([, v]) => v !== undefined)) as Record<string, string>
  return writeSafetensors(tensors, defined)
}
const modelMeta = (tokens: string[]) => ({ format: 'attention-playground/1', tokens: JSON.stringify(tokens) })
const uniform = (h: number, n: number) => filled([h, n, n], 1 / n)
const goodModel = () => writeSafetensors({ 'attention.0.weights': uniform(2, 3) }, modelMeta(['a', 'b', 'c']))
const expectFileError = (bytes: Uint8Array, message: string | RegExp) => {
  expectError(() => readAttentionFile(bytes), message)
  // The reader keeps working: a good file right after reads.
  expect(readAttentionFile(goodModel()).layers[0].weights.shape).toEqual([2, 3, 3])
}

const createTrainer = (o: object) =>
  typeof ap.createTrainer === 'function' ? ap.createTrainer(o) : createTrainerFor(ap.module, o)

const rows: Record<string, [string, () => void]> = {
  E1: [
    'empty text',
    () => {
      const msg = 'text: is empty (or only whitespace); type at least one word'
      expectError(() => ap.run({ text: '' }), msg)
      expectError(() => ap.tokenize(''), msg)
    },
  ],
  E2: [
    'only whitespace, Unicode spaces included',
    () => {
      const msg = 'text: is empty (or only whitespace); type at least one word'
      expectError(() => ap.run({ text: ' \u3000\t\u00a0\n' }), msg)
      expectError(() => ap.tokenize('\u2003', 'char'), msg)
    },
  ],
  E3: [
    'only commas for the course tokenizer',
    () => {
      expectError(() => ap.run({ text: ',,,' }), 'text: has no words once commas are removed')
    },
  ],
  E4: [
    'cross attention with a side missing or empty',
    () => {
      expectError(
        () => ap.run({ source: 'a b' }),
        'source/target: cross attention needs both source (keys, values) and target (queries)',
      )
      expectError(
        () => ap.run({ target: 'a b' }),
        'source/target: cross attention needs both source (keys, values) and target (queries)',
      )
      // The empty side is named as the user named it.
      expectError(
        () => ap.run({ source: 'a', target: ' ' }),
        'target: is empty (or only whitespace); type at least one word',
      )
      expectError(
        () => ap.run({ source: '', target: 'a' }),
        'source: is empty (or only whitespace); type at least one word',
      )
    },
  ],
  L1: [
    'too many tokens',
    () => {
      expectError(() => ap.run({ text: 'a '.repeat(5000), tokenizer: 'word' }), 'text: 5000 tokens, the limit is 4096')
      expectError(() => ap.tokenize('字'.repeat(4097), 'char'), 'text: 4097 tokens, the limit is 4096')
      // At the limit it works.
      expect(ap.tokenize('字'.repeat(4096), 'char').tokens).toHaveLength(4096)
    },
  ],
  L2: [
    'text over 1 MiB',
    () => {
      expectError(() => ap.tokenize('a'.repeat(1048577), 'char'), 'text: 1048577 bytes, the limit is 1048576')
      // Bytes, not UTF-16 units: 349,526 Chinese characters are 1,048,578 bytes.
      expectError(() => ap.tokenize('中'.repeat(349526), 'char'), 'text: 1048578 bytes, the limit is 1048576')
    },
  ],
  L3: [
    'a weights matrix over 2^26 cells',
    () => {
      const big = filled([9000, 1], 0.5)
      expectError(
        () => ap.attention({ query: big, key: big, value: big }),
        'query/key: the weights matrix [9000, 9000] is over the limit of 67108864 cells; pass needWeights: false for long inputs',
      )
      // The way out the message names works.
      const r = ap.attention({ query: big, key: big, value: big, needWeights: false })
      expect(r.output.shape).toEqual([9000, 1])
      expect(r.output.data[8999]).toBeCloseTo(0.5, 6)
    },
  ],
  L5: [
    'an additive call too costly as a whole',
    () => {
      const x = filled([2048, 1], 0.5)
      const p = { Wq: filled([64, 1], 0.1), Wk: filled([64, 1], 0.1), v: filled([64], 0.1) }
      expectError(
        () => ap.attention({ query: x, key: x, value: x, score: 'additive', params: p }),
        "params.Wq: score 'additive' needs nq·nk·h = 2048·2048·64 tanh evaluations, over the limit of 134217728; use fewer tokens or a smaller hidden size",
      )
      // Just under the limit it answers.
      const y = filled([1024, 1], 0.5)
      expect(
        ap.attention({ query: y, key: y, value: y, score: 'additive', params: p, needWeights: false }).output.shape,
      ).toEqual([1024, 1])
    },
  ],
  L6: [
    'a BPE corpus too costly to learn from',
    () => {
      let seed = 1
      const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
      const zh = Array.from({ length: 21000 }, () => String.fromCharCode(0x4e00 + Math.floor(rnd() * 300))).join('')
      expectError(
        () => ap.tokenize('我爱中国', 'bpe', { bpeCorpus: zh, bpeMerges: 1024 }),
        /^bpeCorpus: learning 1024 merges from this corpus is too much work \(stopped at merge \d+; merges stay within words/,
      )
      // A smaller request on the same text is fine.
      expect(
        ap.tokenize('我爱中国', 'bpe', { bpeCorpus: zh.slice(0, 3000), bpeMerges: 200 }).merges.length,
      ).toBeGreaterThan(10)
    },
  ],
  L4: [
    'sizes over their limits',
    () => {
      expectError(() => ap.run({ dModel: 5000 }), 'dModel: must be an integer from 1 to 4096, got 5000')
      expectError(() => ap.run({ tokenizer: 'bpe', bpeMerges: 2000 }), 'bpeMerges: expected 0..1024, got 2000')
      // One limit, one message, whichever layer checks it.
      expectError(() => ap.run({ tokenizer: 'bpe', bpeMerges: -1 }), 'bpeMerges: expected 0..1024, got -1')
      expectError(
        () => ap.tokenize('a', 'bpe', { bpeCorpus: 'x'.repeat(65537) }),
        'bpeCorpus: 65537 bytes, the limit is 65536',
      )
      expectError(
        () => ap.attention({ query: { data: new Float32Array(4), shape: [1 << 15, 1 << 15] }, key: k, value: v }),
        'query: too many elements (limit 2^28)',
      )
    },
  ],
  U1: [
    'invalid UTF-8 cannot reach the engine from JS; TextDecoder gives U+FFFD, an ordinary character',
    () => {
      const decoded = new TextDecoder().decode(Uint8Array.of(0x61, 0xed, 0xa0, 0x80, 0x62)) // 'a', a UTF-8 surrogate, 'b'
      expect(decoded).toContain('\uFFFD')
      const t = ap.tokenize(decoded, 'char')
      expect(t.tokens[0]).toBe('a')
      expect(t.tokens[t.tokens.length - 1]).toBe('b')
      expect(t.tokens.slice(1, -1).every((x: string) => x === '\uFFFD')).toBe(true)
    },
  ],
  U2: [
    'an unpaired UTF-16 surrogate',
    () => {
      expectError(
        () => ap.run({ text: 'a \uD800 b' }),
        'text: unpaired UTF-16 surrogate U+D800 at index 2 (not valid Unicode)',
      )
      expectError(
        () => ap.tokenize('ab\uDC00', 'char'),
        'text: unpaired UTF-16 surrogate U+DC00 at index 2 (not valid Unicode)',
      )
      expectError(
        () => ap.run({ source: 'x', target: 'y\uD83D' }),
        'target: unpaired UTF-16 surrogate U+D83D at index 1 (not valid Unicode)',
      )
      expectError(
        () => ap.tokenize('ab', 'bpe', { bpeCorpus: 'x\uD800y' }),
        'bpeCorpus: unpaired UTF-16 surrogate U+D800 at index 1 (not valid Unicode)',
      )
      // A proper pair is one character.
      expect(ap.tokenize('a\uD83D\uDE00b', 'char').tokens).toEqual(['a', '😀', 'b'])
    },
  ],
  U3: [
    'control characters and NUL are ordinary characters',
    () => {
      expect(ap.tokenize('a\u0000b', 'char').tokens).toEqual(['a', '\u0000', 'b'])
      expect(ap.tokenize('<script>alert(1)</script>', 'word').tokens).toEqual(['<script>alert(1)</script>'])
    },
  ],
  N1: [
    'NaN or ±Infinity in a Tensor',
    () => {
      expectError(
        () => ap.attention({ query: withValue(q, 3, NaN), key: k, value: v }),
        'query: every value must be finite, got nan at index 3',
      )
      expectError(
        () => ap.attention({ query: q, key: k, value: withValue(v, 0, Infinity) }),
        'value: every value must be finite, got inf at index 0',
      )
      expectError(
        () => ap.attention({ query: [[-Infinity, 1]], key: [[1, 1]], value: [[1]] }),
        'query: every value must be finite, got -inf at index 0',
      )
      expectError(
        () => ap.run({ embeddings: withValue(filled([4, 16], 0.1), 17, NaN) }),
        'embeddings: every value must be finite, got nan at index 17',
      )
      expectError(
        () => ap.run({ Wq: withValue(filled([16, 24], 0.1), 5, Infinity) }),
        'Wq: every value must be finite, got inf at index 5',
      )
      expectError(
        () => ap.attention({ query: q, key: k, value: v, score: 'general', params: { W: withValue(T(6, 6), 1, NaN) } }),
        'params.W: every value must be finite, got nan at index 1',
      )
    },
  ],
  N2: [
    'NaN or ±Infinity as an option',
    () => {
      expectError(() => ap.run({ temperature: NaN }), 'temperature: must be finite, got nan')
      expectError(() => ap.attention({ query: q, key: k, value: v, scale: Infinity }), 'scale: must be finite, got inf')
      expectError(() => ap.run({ seed: NaN }), 'seed: must be finite, got nan')
      expectError(() => ap.run({ dModel: Infinity }), 'dModel: must be finite, got inf')
    },
  ],
  N3: [
    'temperature out of range',
    () => {
      expectError(() => ap.run({ temperature: 0 }), /^temperature: must be a number from 1e-6 to 1e6, got 0(\.0+)?$/)
      expectError(
        () => ap.attention({ query: q, key: k, value: v, temperature: -2 }),
        /^temperature: must be a number from 1e-6 to 1e6, got -2(\.0+)?$/,
      )
      expectError(
        () => ap.run({ temperature: 1e7 }),
        /^temperature: must be a number from 1e-6 to 1e6, got (10000000(\.0+)?|1e\+?0?7)$/,
      )
    },
  ],
  S1: [
    'data length does not match the shape',
    () => {
      expectError(
        () => ap.attention({ query: { data: new Float32Array(5), shape: [2, 3] }, key: k, value: v }),
        'query: data has 5 values but shape [2, 3] needs 6',
      )
      expectError(
        () => ap.attention({ query: { data: [0.5, 'a'] as unknown as number[], shape: [1, 2] }, key: k, value: v }),
        'query.data: expected numbers, got a string at index 1',
      )
    },
  ],
  S2: [
    'wrong rank, negative sizes, ragged arrays',
    () => {
      expectError(
        () => ap.attention({ query: { data: new Float32Array(3), shape: [3] }, key: k, value: v }),
        /^query: expected \[n, d\] or \[batch, n, d\], got (rank 1|\[3\])$/,
      )
      expectError(
        () => ap.attention({ query: { data: new Float32Array(0), shape: [-1, 0] }, key: k, value: v }),
        'query.shape: sizes must be ≥ 0, got -1',
      )
      expectError(
        () => ap.attention({ query: { data: new Float32Array(3), shape: [1.5, 2] }, key: k, value: v }),
        /^query\.shape\[0\]: expected an integer, got 1\.50*$/,
      )
      expectError(
        () => ap.attention({ query: [[1, 2], [3]], key: k, value: v }),
        'query: ragged nested array (length 1 where 2 was expected)',
      )
    },
  ],
  S3: [
    'shapes that do not fit together',
    () => {
      expectError(
        () => ap.attention({ query: T(5, 4), key: k, value: v }),
        "query/key: score 'scaled-dot' needs dq = dk, got query [5, 4] and key [5, 6]",
      )
      expectError(
        () => ap.attention({ query: q, key: k, value: T(4, 7) }),
        'value: needs one row per key row, got key [5, 6] and value [4, 7]',
      )
      expectError(
        () => ap.attention({ query: T(2, 5, 6), key: T(3, 5, 6), value: T(3, 5, 7) }),
        'query/key/value: need the same rank and batch size, got query [2, 5, 6], key [3, 5, 6], value [3, 5, 7]',
      )
    },
  ],
  S4: [
    'an edited matrix of the wrong shape',
    () => {
      expectError(() => ap.run({ embeddings: filled([3, 16], 0.1) }), 'embeddings: expected [4, 16], got [3, 16]')
      expectError(() => ap.run({ Wv: filled([16, 24], 0.1) }), 'Wv: expected [16, 28], got [16, 24]')
    },
  ],
  S5: [
    'rule parameters or masks of the wrong shape',
    () => {
      expectError(
        () => ap.attention({ query: q, key: k, value: v, score: 'general', params: { W: T(4, 6) } }),
        "params.W: score 'general' needs W [dq, dk] = [6, 6], got [4, 6]",
      )
      expectError(
        () => ap.attention({ query: q, key: k, value: v, mask: { matrix: new Uint8Array(7) } }),
        'mask.matrix: expected 25 entries (nq·nk = 5·5), got 7',
      )
      expectError(
        () => ap.attention({ query: q, key: k, value: v, mask: { keyPadding: [true, false, true] } }),
        'mask.keyPadding: expected 5 entries (one per key), got 3',
      )
    },
  ],
  D1: [
    'dk = 0, and other sizes that are not positive integers',
    () => {
      expectError(() => ap.run({ dk: 0 }), 'dk: must be an integer from 1 to 4096, got 0')
      expectError(() => ap.run({ dq: 0, dk: 0 }), 'dq: must be an integer from 1 to 4096, got 0')
      expectError(() => ap.run({ dv: -3 }), 'dv: must be an integer from 1 to 4096, got -3')
      expectError(() => ap.run({ dModel: 2.5 }), /^dModel: expected an integer, got 2\.50*$/)
      expectError(
        () => ap.attention({ query: filled([5, 0], 0), key: filled([5, 0], 0), value: v }),
        'query: needs at least one row and one column, got [5, 0]',
      )
    },
  ],
  D2: [
    'dq ≠ dk for the dot rules',
    () => {
      expectError(() => ap.run({ dk: 16 }), "dq/dk: score 'scaled-dot' needs dq = dk, got dq = 24, dk = 16")
      expectError(() => ap.run({ dk: 16, score: 'dot' }), "dq/dk: score 'dot' needs dq = dk, got dq = 24, dk = 16")
      // The rules that allow it do.
      expect(ap.run({ dk: 16, score: 'general' }).weights.shape).toEqual([4, 4])
    },
  ],
  H1: [
    'heads not dividing dq, dk, dv',
    () => {
      expectError(
        () => ap.run({ heads: 5 }),
        'heads: must divide dq, dk and dv, got heads = 5 with dq = 24, dk = 24, dv = 28',
      )
      expectError(
        () => ap.run({ heads: 3, dv: 28 }),
        'heads: must divide dq, dk and dv, got heads = 3 with dq = 24, dk = 24, dv = 28',
      )
      expect(ap.run({ heads: 4 }).weights.shape).toEqual([4, 4, 4])
    },
  ],
  H2: [
    'heads out of range',
    () => {
      expectError(() => ap.run({ heads: 0 }), 'heads: must be an integer from 1 to 64, got 0')
      expectError(() => ap.run({ heads: 65 }), 'heads: must be an integer from 1 to 64, got 65')
    },
  ],
  P1: [
    'unknown positions encoding',
    () => {
      expectError(
        () => ap.run({ positions: 'absolute' as never }),
        "positions: unknown encoding 'absolute'; expected one of none, sinusoidal, learned, rope, alibi",
      )
    },
  ],
  P2: [
    'rope with an odd size, or dq ≠ dk',
    () => {
      expectError(
        () => ap.run({ positions: 'rope', dq: 6, dk: 6, heads: 2 }),
        "positions: 'rope' pairs dimension i with i + d/2 in each head, so it needs an even dq / heads, got 6 / 2 = 3",
      )
      expectError(
        () => ap.run({ positions: 'rope', score: 'general', dk: 16 }),
        "positions: 'rope' rotates Q and K alike, so it needs dq = dk, got dq = 24, dk = 16",
      )
      expectError(
        () => ap.attention({ query: T(3, 5), key: T(3, 5), value: T(3, 2), rope: {} }),
        'rope: pairs dimension i with i + d/2, so it needs an even d, got d = 5',
      )
      expectError(
        () => mhaCall(6, 2, { rope: {} }),
        'rope: pairs dimension i with i + d/2 in each head, so it needs an even head size, got E / numHeads = 6 / 2 = 3',
      )
    },
  ],
  P3: [
    'rope positions beyond the limits, fractional, or not one per row',
    () => {
      const qkv = { query: T(3, 4), key: T(3, 4), value: T(3, 2) }
      expectError(
        () => ap.attention({ ...qkv, rope: { queryPositions: [0, 1, 70000] } }),
        'rope.queryPositions[2]: must be an integer from 0 to 65535, got 70000',
      )
      expectError(
        () => ap.attention({ ...qkv, rope: { keyPositions: [0, -1, 2] } }),
        'rope.keyPositions[1]: must be an integer from 0 to 65535, got -1',
      )
      expectError(
        () => ap.attention({ ...qkv, rope: { queryPositions: [0, 1.5, 2] } }),
        'rope.queryPositions[1]: expected an integer, got 1.5',
      )
      expectError(
        () => ap.attention({ ...qkv, rope: { keyPositions: [0, 1] } }),
        'rope.keyPositions: expected 3 positions (one per row), got 2',
      )
    },
  ],
  P4: [
    'rope base out of range',
    () => {
      expectError(() => ap.run({ positions: 'rope', ropeBase: 0 }), 'ropeBase: must be a number from 1 to 1e9, got 0')
      expectError(
        () => ap.attention({ query: T(3, 4), key: T(3, 4), value: T(3, 2), rope: { base: 1e10 } }),
        'rope.base: must be a number from 1 to 1e9, got 1e+10',
      )
    },
  ],
  P5: [
    'alibi with a rule that has no query–key scores to bias (concat)',
    () => {
      expectError(
        () => ap.run({ positions: 'alibi', score: 'concat' }),
        "positions: 'alibi' biases the score of query i for key j by their distance, but score 'concat' has no " +
          'query-key scores (one per value row); use another score or positions',
      )
      const params = { W: T(3, 8), b: T(3) }
      expectError(
        () => ap.attention({ query: T(3, 4), key: T(3, 4), value: T(3, 2), score: 'concat', params, alibiSlope: 0.5 }),
        "alibiSlope: biases the score of query i for key j by their distance, but score 'concat' has no " +
          'query-key scores (one per value row); use another score',
      )
    },
  ],
  P6: [
    'alibiSlope out of range',
    () => {
      expectError(
        () => ap.attention({ query: T(3, 4), key: T(3, 4), value: T(3, 2), alibiSlope: -1 }),
        'alibiSlope: must be a number from 0 to 1000, got -1',
      )
    },
  ],
  P7: [
    'runBackward with positions',
    () => {
      expectError(
        () => ap.runBackward({ positions: 'rope', loss: { kind: 'attend', query: 0, key: 1 } }),
        "positions: runBackward differentiates the course's program, which has no positions; got 'rope' (use 'none')",
      )
    },
  ],
  P8: [
    "a trainer's positions it does not take, or rope with an odd size",
    () => {
      expectError(
        () => ap.createTrainer({ positions: 'alibi' as never }),
        "positions: the trainer takes 'learned', 'sinusoidal', 'rope' or 'none', got 'alibi'",
      )
      expectError(
        () => ap.createTrainer({ positions: 'rope', dModel: 12, heads: 4 }),
        "positions: 'rope' pairs dimension i with i + d/2 in each head, so it needs an even dq / heads, got 12 / 4 = 3",
      )
    },
  ],
  H3: [
    'numHeads not dividing E',
    () => {
      expectError(() => mhaCall(4, 3), 'numHeads: must divide the embedding size E = 4, got 3')
    },
  ],
  K1: [
    'unknown tokenizer',
    () => {
      expectError(
        () => ap.run({ tokenizer: 'sentencepiece' as never }),
        "tokenizer: unknown 'sentencepiece'; expected one of word-sorted, word, char, bpe",
      )
      expectError(
        () => ap.tokenize('a b', 'wordpiece' as never),
        "tokenizer: unknown 'wordpiece'; expected one of word-sorted, word, char, bpe",
      )
    },
  ],
  K2: [
    'unknown scoring rule',
    () => {
      expectError(
        () => ap.attention({ query: q, key: k, value: v, score: 'cosine' as never }),
        "score: unknown rule 'cosine'; expected one of dot, scaled-dot, general, additive, concat",
      )
    },
  ],
  H4: [
    'numKVHeads not dividing numHeads',
    () => {
      expectError(
        () => mhaCall(8, 4, { numKVHeads: 3 }),
        'numKVHeads: must divide numHeads = 4 (each K/V head serves numHeads / numKVHeads query heads), got 3',
      )
    },
  ],
  W1: [
    'a sliding window under 1 key',
    () => {
      const X = T(4, 3)
      expectError(
        () => ap.attention({ query: X, key: X, value: X, mask: { window: 0 } }),
        "mask.window: a sliding window needs at least 1 key (the query's own), got 0",
      )
      expectError(
        () => mhaCall(4, 2, { window: -2 }),
        "window: a sliding window needs at least 1 key (the query's own), got -2",
      )
    },
  ],
  W2: [
    'sinks out of range or without a window',
    () => {
      const X = T(4, 3)
      expectError(
        () => ap.attention({ query: X, key: X, value: X, mask: { window: 2, sinks: 5 } }),
        'mask.sinks: the kept first keys must be from 0 to the 4 keys, got 5',
      )
      expectError(
        () => mhaCall(4, 2, { sinks: 1 }),
        'sinks: needs a window (the first keys kept besides a sliding window)',
      )
    },
  ],
  W3: [
    'a sink logit not finite, or missing for a head',
    () => {
      const X = T(4, 3)
      expectError(
        () => ap.attention({ query: X, key: X, value: X, sinkLogit: NaN }),
        'sinkLogit: must be finite, got nan',
      )
      expectError(() => mhaCall(8, 4, { sinkLogits: [0, 1] }), 'sinkLogits: expected 4 values (one per head), got 2')
    },
  ],
  T1: [
    'flashTrace block sizes out of range',
    () => {
      const X = T(4, 3)
      expectError(
        () => ap.flashTrace({ query: X, key: X, value: X, blockRows: 0, blockCols: 2 }),
        "blockRows: must be an integer from 1 to 36 (the kernel's own), got 0",
      )
      expectError(
        () => ap.flashTrace({ query: X, key: X, value: X, blockRows: 2, blockCols: 200 }),
        "blockCols: must be an integer from 1 to 128 (the kernel's own), got 200",
      )
    },
  ],
  K3: [
    'unknown mask',
    () => {
      expectError(
        () => ap.run({ mask: 'upper' as never }),
        "mask: unknown mask 'upper'; expected 'none', 'causal', { keyPadding } or { matrix }",
      )
      expectError(() => ap.run({ mask: 5 as never }), "mask: expected 'none', 'causal', { keyPadding } or { matrix }")
    },
  ],
  K4: [
    'unknown option names',
    () => {
      expectError(
        () => ap.run({ dmodel: 8 } as never),
        /^run: unknown option 'dmodel' \(did you mean 'dModel'\?\); known options: text, /,
      )
      expectError(
        () => ap.attention({ query: q, key: k, value: v, score: 'general', params: { w: T(6, 6) } as never }),
        /^attention: params: unknown option 'w' \(did you mean 'W'\?\)/,
      )
      expectError(
        () => ap.run({ temprature: 2 } as never),
        /^run: unknown option 'temprature' \(did you mean 'temperature'\?\); known options: text, source, target, /,
      )
      expectError(
        () => ap.attention({ qeury: q, key: k, value: v } as never),
        "attention: unknown option 'qeury' (did you mean 'query'?)",
      )
      expectError(
        () => ap.attention({ query: q, key: k, value: v, score: 'general', params: { W: T(6, 6), b: T(6) } }),
        "attention: params: unknown option 'b'; known options: W",
      )
      expectError(
        () => mhaCall(4, 2, { rope: { base: 100, queryPositions: [0, 1] } as never }),
        "multiHeadAttention: rope: unknown option 'queryPositions'; known options: base",
      )
    },
  ],
  K8: [
    'projections: attention options refused, run options checked as run checks them',
    () => {
      expectError(
        () => ap.projections({ mask: 'causal' } as never),
        /^projections: unknown option 'mask'; known options: text, /,
      )
      expectError(() => ap.projections({ temperature: 2 } as never), /^projections: unknown option 'temperature'/)
      expectError(() => ap.projections({ dk: 16 }), "dq/dk: score 'scaled-dot' needs dq = dk, got dq = 24, dk = 16")
      expectError(() => ap.projections({ scale: Number.NaN }), /^scale: must be finite/)
    },
  ],
  K5: [
    'values of the wrong type',
    () => {
      expectError(() => ap.run({ dModel: '16' as never }), 'dModel: expected a number, got a string')
      expectError(() => ap.run({ text: 5 as never }), 'text: expected a string, got a number')
      expectError(() => ap.run(null as never), 'run: options must be an object, got null')
      expectError(
        () => ap.attention({ query: null as never, key: k, value: v }),
        /^query: missing|^query: expected a Tensor/,
      )
    },
  ],
  K6: [
    'trainer: unknown task, bad options, use after dispose',
    () => {
      expectError(
        () => createTrainer({ task: 'fly' }),
        "task: expected 'coreference', 'reverse', 'next-char' or 'induction', got 'fly'",
      )
      expectError(
        () => createTrainer({ task: 'next-char', heads: 3, dModel: 8 }),
        'heads: must divide dq = 8, got heads = 3',
      )
      const tr = createTrainer({ task: 'next-char', dModel: 8 })
      tr.dispose()
      expectError(() => tr.step(1), 'trainer: already disposed')
    },
  ],
  K7: [
    'trainer: head scores of a task without them, a bad limit',
    () => {
      const tr = createTrainer({ task: 'reverse', dModel: 8 })
      expectError(
        () => tr.headScores(),
        "headScores: only task 'induction' has previous-token and induction scores, this trainer's task is 'reverse'",
      )
      tr.dispose()
      const ind = createTrainer({ task: 'induction', dModel: 8 })
      expectError(() => ind.headScores({ limit: -1 }), 'limit: expected an integer >= 0 (0 = all), got -1')
      expect(ind.headScores({ limit: 2 }).induction.length).toBe(2)
      ind.dispose()
    },
  ],
  M1: [
    'fully masked rows give zero weights and output, never NaN',
    () => {
      // Row 1 of the course program fully masked.
      const matrix = new Uint8Array(16)
      matrix.fill(1, 4, 8)
      const t = ap.run({ mask: { matrix } })
      expect(Array.from(t.maskedRows)).toEqual([1])
      expect(Array.from(t.weights.data.slice(4, 8))).toEqual([0, 0, 0, 0])
      expect(Array.from(t.maskedScores.data.slice(4, 8))).toEqual([-Infinity, -Infinity, -Infinity, -Infinity])
      expect(Array.from(t.output.data.slice(28, 56)).every((x) => x === 0)).toBe(true)
      for (const r of [0, 2, 3]) {
        const sum = t.weights.data.slice(4 * r, 4 * r + 4).reduce((a: number, b: number) => a + b, 0)
        expect(sum).toBeCloseTo(1, 6)
      }
      // Multi-head with every key padded: PyTorch gives NaN here, we give zeros and say which rows.
      const E = 4
      const m = ap.multiHeadAttention({
        query: T(2, E),
        key: T(3, E),
        value: T(3, E),
        numHeads: 2,
        inProjWeight: T(3 * E, E),
        outProjWeight: T(E, E),
        outProjBias: filled([E], 0),
        keyPaddingMask: [true, true, true],
      })
      expect(Array.from(m.maskedRows as number[])).toEqual([0, 1])
      expect(Array.from(m.weights.data).every((x) => x === 0)).toBe(true)
      expect(Array.from(m.output.data).every((x) => x === 0)).toBe(true)
    },
  ],
  G1: [
    'huge but finite logits: exact softmax, no NaN',
    () => {
      const r = ap.attention({
        query: [[1e18], [-1e18]],
        key: [[1e18], [-1e18]],
        value: [[1], [2]],
        scale: false,
        needScores: true,
      })
      expect(Array.from(r.scores!.data)).toEqual([1e36, -1e36, -1e36, 1e36].map(Math.fround))
      expect(Array.from(r.weights!.data)).toEqual([1, 0, 0, 1])
      expect(Array.from(r.output.data)).toEqual([1, 2])
    },
  ],
  G2: [
    'logits that overflow float32',
    () => {
      const msg =
        /^query\/key: the scores overflows? float32 \(a value beyond ±3\.4e38\)( for these inputs)?; scale the inputs down$/
      expectError(() => ap.attention({ query: [[1e30]], key: [[1e30]], value: [[1]] }), msg)
      expectError(() => ap.attention({ query: [[1e30]], key: [[1e30]], value: [[1]], needWeights: false }), msg)
    },
  ],
  G3: [
    'a tiny temperature: one-hot weights, no NaN',
    () => {
      const r = ap.attention({ query: [[1], [2]], key: [[1], [1.001]], value: [[1], [2]], temperature: 1e-6 })
      expect(Array.from(r.weights!.data)).toEqual([0, 1, 0, 1])
      expect(Array.from(r.output.data)).toEqual([2, 2])
    },
  ],
  G4: [
    'finite values whose later products overflow float32',
    () => {
      // Found by tests/fuzz/fuzz_multihead.cpp and fuzz_attention.cpp (tests/fuzz/regressions/).
      const minusFour = { query: [[-4]], key: [[-4]], value: [[-4]] }
      expectError(
        () =>
          ap.multiHeadAttention({
            ...minusFour,
            numHeads: 1,
            inProjWeight: [[-2.53125], [-1.6875], [-3e38]],
            outProjWeight: [[-4]],
          }),
        /^(query\/key\/value|inProjWeight): the projections overflows? float32/,
      )
      expectError(
        () =>
          ap.attention({
            ...minusFour,
            score: 'concat',
            params: { W: [[0.78125, 2.125]], b: [1.59375], combineW: [[3.4e38, -4]], combineB: [-4] },
          }),
        /^(query\/key\/value|params\.combineW): the output overflows? float32/,
      )
    },
  ],
  F1: [
    'a truncated model file',
    () => {
      const good = goodModel()
      expectFileError(
        good.subarray(0, good.length - 4),
        `attention.0.weights: data_offsets [0, 72] run past the end of the data (68 bytes); the file is truncated or its header is wrong`,
      )
      expectFileError(
        good.subarray(0, 5),
        'file: 5 bytes, too short for a safetensors file (it starts with an 8-byte header length); the file is truncated or not safetensors',
      )
      expectFileError(
        good.subarray(0, 20),
        /^file: the header declares \d+ bytes but the file has 20 in all; the file is truncated$/,
      )
    },
  ],
  F2: [
    'model file offsets past the end or overlapping',
    () => {
      const meta = modelMeta(['a', 'b'])
      expectFileError(
        rawFile(
          { __metadata__: meta, 'attention.0.weights': { dtype: 'F32', shape: [1, 2, 2], data_offsets: [0, 1000] } },
          new Uint8Array(16),
        ),
        'attention.0.weights: data_offsets [0, 1000] run past the end of the data (16 bytes); the file is truncated or its header is wrong',
      )
      expectFileError(
        rawFile(
          {
            __metadata__: meta,
            'attention.0.weights': { dtype: 'F32', shape: [1, 2, 2], data_offsets: [0, 16] },
            'attention.0.q': { dtype: 'F32', shape: [1, 2, 2], data_offsets: [8, 24] },
          },
          new Uint8Array(24),
        ),
        'attention.0.q: data_offsets [8, 24] overlap those of attention.0.weights [0, 16]',
      )
    },
  ],
  F3: [
    'a model file dtype other than F32, F16, BF16',
    () => {
      expectFileError(
        rawFile(
          {
            __metadata__: modelMeta(['a', 'b']),
            'attention.0.weights': { dtype: 'I64', shape: [1, 2, 2], data_offsets: [0, 32] },
          },
          new Uint8Array(32),
        ),
        'attention.0.weights: dtype "I64" is not supported; expected F32, F16 or BF16',
      )
    },
  ],
  B1: [
    'gradOutput of another shape than the output',
    () => {
      const x = T(3, 4)
      expectError(
        () => ap.attentionBackward({ query: x, key: x, value: T(3, 2), gradOutput: T(3, 3) }),
        "gradOutput: expected the output's shape [nq, dv] = [3, 2], got [3, 3]",
      )
    },
  ],
  B2: [
    'a scoring rule without a backward pass',
    () => {
      const x = T(3, 4)
      expectError(
        () => ap.attentionBackward({ query: x, key: x, value: x, gradOutput: x, score: 'general' as never }),
        "score: attentionBackward has the backward pass of 'dot' and 'scaled-dot', got 'general' (the trainer has the other rules')",
      )
      expectError(
        () => ap.runBackward({ score: 'additive', loss: { kind: 'attend', query: 0, key: 1 } }),
        "score: runBackward has the backward pass of 'dot' and 'scaled-dot', got 'additive' (the trainer has the other rules')",
      )
    },
  ],
  B3: [
    'a loss on a masked cell, or out of range',
    () => {
      expectError(
        () => ap.runBackward({ mask: 'causal', loss: { kind: 'attend', query: 0, key: 2 } }),
        'loss.key: weights[0, 2] is 0 (masked, or too small for float32), so −log of it is infinite',
      )
      expectError(
        () => ap.runBackward({ loss: { kind: 'attend', query: 9, key: 0 } }),
        'loss.query: expected a query row from 0 to 3, got 9',
      )
    },
  ],
  F4: [
    'a model file shape that does not match the tokens',
    () => {
      expectFileError(
        writeSafetensors({ 'attention.0.weights': uniform(2, 3) }, modelMeta(['a', 'b', 'c', 'd'])),
        'attention.0.weights: shape [2, 3, 3] does not match the tokens: expected [heads, 4, 4] (4 tokens × 4 tokens)',
      )
    },
  ],
  F5: [
    'a model file header of 100 MB',
    () => {
      // refused from the length field alone: the message says so ("not read"); speed lives in the benchmarks
      expectFileError(
        rawFile({}, new Uint8Array(0), 100_000_000),
        'file: the header declares 100,000,000 bytes, over the limit of 16,777,216 (16 MiB); not read',
      )
    },
  ],
  F6: [
    'NaN in a model file',
    () => {
      const w = uniform(2, 3)
      w.data[9 + 5] = NaN
      expectFileError(
        writeSafetensors({ 'attention.0.weights': w }, modelMeta(['a', 'b', 'c'])),
        "attention.0.weights: NaN at [1, 1, 2]; the file's values must be finite",
      )
    },
  ],
  F7: [
    'a model file whose names or values cannot be quoted whole',
    () => {
      const long = 'x'.repeat(5000)
      expectFileError(
        rawFile({ [long]: { dtype: 'I64', shape: [1], data_offsets: [0, 8] } }, new Uint8Array(8)),
        `${'x'.repeat(57)}...: dtype "I64" is not supported; expected F32, F16 or BF16`,
      )
      const deep = '['.repeat(100_000) + ']'.repeat(100_000)
      const text = `{"attention.0.weights":{"dtype":"F32","shape":${deep},"data_offsets":[0,4]}}`
      expectFileError(
        rawText(text, new Uint8Array(4)),
        'attention.0.weights: shape sizes must be integers ≥ 0, got (a value nested too deep to quote)',
      )
    },
  ],
  F8: [
    'a model file layer index or token count over the limits',
    () => {
      expectFileError(
        rawFile(
          { 'attention.99999999999.weights': { dtype: 'F32', shape: [1, 1, 1], data_offsets: [0, 4] } },
          new Uint8Array(4),
        ),
        'attention.99999999999.weights: layer 99999999999 is over the limit of 1024 layers (0 to 1023)',
      )
      expectFileError(
        rawFile(
          { 'attention.0.weights': { dtype: 'F32', shape: [1, 1e9, 0], data_offsets: [0, 0] } },
          new Uint8Array(0),
        ),
        'attention.0.weights: 1000000000 queries in shape [1, 1000000000, 0]; expected 1 to 16384 tokens a side',
      )
    },
  ],
  F9: [
    'a download over 64 MiB',
    async () => {
      const limit =
        'over the download limit of 67,108,864 bytes (64 MiB); download stopped. Save the file and open it from disk (up to 512 MiB)'
      // Refused from its Content-Length, before the body is read.
      const declared = mibBody()
      await expect(
        readModelResponse(new Response(declared.stream, { headers: { 'content-length': '70000000' } })),
      ).rejects.toThrow(`src: the server declares 70,000,000 bytes (Content-Length), ${limit}`)
      expect(declared.pulled(), 'chunks pulled').toBeLessThanOrEqual(1)
      // No length: stopped at the first chunk past the limit (65 of its 100 MiB).
      const none = mibBody()
      await expect(readModelResponse(new Response(none.stream))).rejects.toThrow(
        `src: 68,157,440 bytes received, ${limit}`,
      )
      expect(none.pulled()).toBe(65)
      // A length that is not the body's (compressed bytes): the same stop, naming what was declared.
      const gz = mibBody()
      const headers = { 'content-length': '70000', 'content-encoding': 'gzip' }
      await expect(readModelResponse(new Response(gz.stream, { headers }))).rejects.toThrow(
        `src: 68,157,440 bytes received where the server declared 70,000 (Content-Length, of compressed bytes), ${limit}`,
      )
      expect(gz.pulled()).toBe(65)
    },
  ],
  F10: [
    'a download cancelled',
    async () => {
      // 10 MB sent 64 KiB at a time; the download is cancelled after its third progress report.
      let ended!: (allSent: boolean) => void
      const serverSaw = new Promise<boolean>((r) => (ended = r))
      await withServer(
        (res) => {
          res.writeHead(200, { 'content-length': '10000000' })
          let sent = 0
          const timer = setInterval(() => {
            res.write(sent ? new Uint8Array(65536) : SAFETENSORS_START)
            sent += 65536
          }, 20)
          res.on('close', () => {
            clearInterval(timer)
            ended(res.writableFinished)
          })
        },
        async () => {
          const abort = new AbortController()
          const seen: DownloadProgress[] = []
          const read = readModelUrl('/slow.safetensors', abort.signal, (p) => {
            seen.push(p)
            if (seen.length === 3) abort.abort()
          })
          const e = await read.then(
            () => null,
            (err: unknown) => err,
          )
          expect(isAbort(e), String(e)).toBe(true)
          expect(seen.length).toBe(3)
          expect(seen.every((p) => p.total === 10_000_000 && p.got > 0 && p.got < 10_000_000)).toBe(true)
          // The server's connection was closed before it had sent the file.
          expect(await serverSaw).toBe(false)
        },
      )
    },
  ],
  F11: [
    'a download that breaks off (fewer bytes than its Content-Length)',
    async () => {
      await withServer(
        (res) => {
          res.writeHead(200, { 'content-length': '1000000' })
          res.write(SAFETENSORS_START, () => setTimeout(() => res.destroy(), 20))
        },
        async (base) => {
          await expect(readModelUrl('/short.safetensors', new AbortController().signal)).rejects.toThrow(
            new RegExp(`^src: the download of ${base.replace(/\./g, '\\.')}short\\.safetensors broke off \\(\\S`),
          )
        },
      )
    },
  ],
  A1: [
    'a language-model file missing a tensor, or with a tensor of the wrong shape',
    () => {
      expectError(
        () => ap.loadLanguageModel(lmFile({}, { drop: ['transformer.h.1.attn.c_proj.weight'] })),
        'transformer.h.1.attn.c_proj.weight: missing (expected [16, 16])',
      )
      expectError(
        () => ap.loadLanguageModel(lmFile({}, { reshape: { 'transformer.h.0.mlp.c_fc.weight': [16, 64] } })),
        'transformer.h.0.mlp.c_fc.weight: expected [64, 16], got [16, 64]',
      )
      expectError(
        () => ap.loadLanguageModel(lmFile({}, { drop: ['transformer.wpe.weight'] })),
        'transformer.wpe.weight: missing (expected [context, 16]); a model without it says __metadata__.positions = "rope"',
      )
    },
  ],
  A2: [
    "a language-model file's metadata: n_head or vocab missing, malformed or not matching the tensors",
    () => {
      expectError(() => ap.loadLanguageModel(lmFile({ n_head: undefined })), /^__metadata__\.n_head: missing/)
      expectError(
        () => ap.loadLanguageModel(lmFile({ n_head: '3' })),
        '__metadata__.n_head: 3 heads do not divide dModel 16 (transformer.wte.weight [13, 16])',
      )
      expectError(() => ap.loadLanguageModel(lmFile({ vocab: undefined })), /^__metadata__\.vocab: missing/)
      expectError(
        () => ap.loadLanguageModel(lmFile({ vocab: '["a","b"]' })),
        '__metadata__.vocab: expected 13 strings (one per row of transformer.wte.weight [13, 16]), got 2',
      )
      expectError(
        () => ap.loadLanguageModel(lmFile({ vocab: '[]' })),
        '__metadata__.vocab: expected 13 strings (one per row of transformer.wte.weight [13, 16]), got 0',
      )
      // The vocabulary reaches the engine as one joined string: a lone surrogate would join the next entry in UTF-8.
      const words = ['😀', 'é', '中', '\n', 'ab', '𝑥', 'z', '', 'q', 'r', 's', 't', 'u']
      expectError(
        () => ap.loadLanguageModel(lmFile({ vocab: JSON.stringify(['x\ud800', ...words.slice(1)]) })),
        '__metadata__.vocab[0]: not well-formed text (a UTF-16 surrogate without its pair)',
      )
      // 1-, 2-, 3- and 4-byte characters and an empty entry split back where they were joined
      using m = ap.loadLanguageModel(lmFile({ vocab: JSON.stringify(words) }))
      expect(m.vocab).toEqual(words)
      expect(m.decode(words.map((_, i) => i))).toBe(words.join(''))
      const text = ['中', '😀', '𝑥', 'é']
      expect(m.encode(text.join(''))).toEqual(text.map((c) => words.indexOf(c)))
      expectError(
        () => ap.loadLanguageModel(lmFile({ positions: 'alibi' })),
        /^__metadata__\.positions: "learned" or "rope"/,
      )
    },
  ],
  A3: [
    'a language-model file with a mask buffer that is not a causal mask, or a tensor nanoGPT does not have',
    () => {
      const T = 12
      const mask = new Float32Array(T * T).map((_, i) => (i % T <= Math.floor(i / T) ? 1 : 0))
      mask[1] = 1
      expectError(
        () =>
          ap.loadLanguageModel(
            lmFile({}, { add: { 'transformer.h.0.attn.bias': { data: mask, shape: [1, 1, T, T] } } }),
          ),
        'transformer.h.0.attn.bias: not a causal mask (expected 1 on and below the diagonal and 0 above), found 1 at [0, 0, 0, 1]',
      )
      expectError(
        () =>
          ap.loadLanguageModel(
            lmFile(
              {},
              { add: { 'transformer.h.0.attn.c_attn.weight_extra': { data: new Float32Array(2), shape: [2] } } },
            ),
          ),
        /^transformer\.h\.0\.attn\.c_attn\.weight_extra: not a tensor of nanoGPT's layout/,
      )
    },
  ],
  A4: [
    'a prompt character outside the vocabulary',
    () => {
      using m = ap.loadLanguageModel(lmFile())
      expectError(
        () => m.generate({ prompt: '床前望月' }),
        'prompt: the character "望" (U+671B) at index 2 is not in the model\'s vocabulary (13 entries)',
      )
      expectError(() => m.generate({ prompt: '床\u0001' }), /^prompt: the character U\+0001 at index 1 is not in/)
      expectError(() => m.generate({ prompt: '' }), 'prompt: give at least one character (or id) to start from')
    },
  ],
  A5: [
    'token ids out of range, not integers, or more than the context',
    () => {
      using m = ap.loadLanguageModel(lmFile())
      expectError(() => m.forward([1, 13]), 'ids[1]: must be an id from 0 to 12, got 13')
      expectError(() => m.forward([1, 0.5]), 'ids[1]: expected an integer, got 0.5')
      expectError(() => m.forward(new Array(13).fill(1)), 'ids: 13 ids is more than the limit of 12')
      expectError(() => m.generate({ prompt: [-1] }), 'prompt[0]: must be an id from 0 to 12, got -1')
    },
  ],
  A6: [
    'generate options out of range or misspelled',
    () => {
      using m = ap.loadLanguageModel(lmFile())
      expectError(
        () => m.generate({ prompt: '床', temperature: -1 }),
        'temperature: must be a number from 0 (greedy) to 100, got -1',
      )
      expectError(
        () => m.generate({ prompt: '床', topK: 14 }),
        'topK: must be an integer from 0 (all) to the vocabulary size 13, got 14',
      )
      expectError(() => m.generate({ prompt: '床', topP: 1.5 }), 'topP: must be a number in (0, 1], got 1.5')
      expectError(
        () => m.generate({ prompt: '床', seed: 2 ** 32 }),
        'seed: must be an integer from 0 to 4294967295, got 4294967296',
      )
      expectError(
        () => m.generate({ prompt: '床', maxTokens: 13 }),
        'maxTokens: must be an integer from 0 to the context 12, got 13',
      )
      expectError(() => m.generate({ prompt: '床', stop: '望' }), "stop: the token 望 is not in the model's vocabulary")
      expectError(
        () => m.generate({ prompt: '床', topk: 2 } as never),
        /^generate: unknown option 'topk' \(did you mean 'topK'\?\)/,
      )
    },
  ],
  A7: [
    'a language model over the size limits',
    () => {
      const big = writeSafetensors(
        { 'transformer.wte.weight': { data: new Float32Array(70000), shape: [70000, 1] } },
        { n_head: '1', vocab: '[]' },
      )
      expectError(
        () => ap.loadLanguageModel(big),
        'transformer.wte.weight: a vocabulary of 70000 is more than the limit of 65536',
      )
      const wide = writeSafetensors(
        { 'transformer.wte.weight': { data: new Float32Array(4100), shape: [2, 2050] } },
        { n_head: '1', vocab: '["a","b"]' },
      )
      expectError(
        () => ap.loadLanguageModel(wide),
        'transformer.wte.weight: dModel 2050 is more than the limit of 2048',
      )
      expectError(
        () =>
          ap.loadLanguageModel(
            lmFile({}, { rename: { 'transformer.h.1.ln_1.weight': 'transformer.h.30.ln_1.weight' } }),
          ),
        'transformer.h.30: blocks must be numbered 0 to 2 without gaps, but 3 blocks go up to 30',
      )
    },
  ],
  A8: [
    'a language model used after dispose()',
    () => {
      const m = ap.loadLanguageModel(lmFile())
      m.dispose()
      expectError(() => m.forward([1]), 'model: already disposed')
      expectError(() => m.generate({ prompt: '床' }), 'model: already disposed')
    },
  ],
}

// Rows not about the package: the page itself (a Web Worker killed), tested in Chromium, and the notebook helper
// (python/attention_playground), tested through Python; each by the file named here.
const BROWSER_ROWS: Record<string, string> = {
  R1: 'tests/e2e/train-crash.test.ts',
  J1: 'tests/integration/notebook-py.test.ts',
}

describe('docs/bad-input.md, one test per row', () => {
  for (const [id, [title, body]] of Object.entries(rows)) it(`${id} ${title}`, body)
})

describe('the table and the tests agree', () => {
  it('every row of docs/bad-input.md has a test here, and every test a row', () => {
    const doc = readFileSync(new URL('../../docs/bad-input.md', import.meta.url), 'utf8')
    const ids = [...doc.matchAll(/^\| ([A-Z]\d+) \|/gm)].map((m) => m[1])
    expect(ids.length).toBeGreaterThan(20)
    expect(ids.sort()).toEqual([...Object.keys(rows), ...Object.keys(BROWSER_ROWS)].sort())
  })

  it('the rows tested elsewhere (a browser, Python) have their tests, named by the id, in the e2e file the row names', () => {
    for (const [id, file] of Object.entries(BROWSER_ROWS)) {
      const text = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8')
      // it('R1 …'), it(`R1 …`)
      expect(text, `${file} names no test after ${id}`).toMatch(new RegExp(`\\bit\\(\\s*['"\`]${id} `))
    }
  })
})
