// Fuzzing the JS → embind → C++ decoding, which the native
// libFuzzer targets cannot reach (src/bindings is compiled only for wasm). Option objects built from a
// pool of hostile values — wrong types, Symbols, BigInts, functions, getters that throw, huge or
// negative shapes, strings where Tensors go, arrays where numbers go — are passed to run / attention /
// multiHeadAttention / tokenize. Every call must either answer or throw an AttentionError (a message
// naming an argument): never a TypeError or embind BindingError from inside the module, a wasm trap
// ("RuntimeError: unreachable", "memory access out of bounds"), or a hang; the module must keep giving
// the course program's numbers; and the malloc'd bytes must come back to where they were.
//
// Deterministic (a seeded generator): a failure names its iteration and the options, so it replays.
import { readFileSync } from 'node:fs'
import { beforeAll, describe, expect, it } from 'vitest'
import { init } from '../../dist/index.js'
import { expectCourseProgram, rng, type Engine } from '../support/helpers'

const wasmBinary = readFileSync(new URL('../../dist/attention.wasm', import.meta.url))

let ap: Engine
beforeAll(async () => {
  ap = await init({ wasmBinary })
})

const g = rng(20261130)
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(g.next() * xs.length)]
const int = (lo: number, hi: number) => lo + Math.floor(g.next() * (hi - lo + 1))

const SCALARS: (() => unknown)[] = [
  () => undefined,
  () => null,
  () => true,
  () => false,
  () => 0,
  () => -0,
  () => -1,
  () => 1.5,
  () => NaN,
  () => Infinity,
  () => -Infinity,
  () => 1e10,
  () => 2 ** 31,
  () => 2 ** 53,
  () => '',
  () => 'abc',
  () => '16',
  () => 'causal',
  () => 'scaled-dot',
  () => [],
  () => [1, 2],
  () => ({}),
  () => Symbol('s'),
  () => 10n,
  () => () => 1,
  () => new Date(0),
  () => int(1, 8),
  () => int(1, 8),
  () => int(1, 8),
]

function tensorish(): unknown {
  switch (int(0, 9)) {
    case 0:
      return pick(SCALARS)()
    case 1:
      return { data: 'abcdef', shape: [2, 3] }
    case 2:
      return { data: new Float32Array(6), shape: [2, pick([3, -3, 3.5, NaN, 1e9, '3'] as unknown[])] }
    case 3:
      return { data: new Float32Array(4), shape: Array.from({ length: int(0, 6) }, () => int(0, 3)) }
    case 4:
      return { data: new Float64Array(6).fill(pick([1, NaN, 1e39, -1e39])), shape: [3, 2] }
    case 5:
      return { shape: [2, 2] }
    case 6:
      return [
        [1, 2],
        [3, 'x'],
      ]
    case 7:
      return { data: new Int8Array(4), shape: [2, 2] }
    case 8:
      return {
        get data() {
          throw new Error('data getter')
        },
        shape: [1, 1],
      }
    default: {
      const r = int(1, 5),
        c = int(1, 5)
      return g.tensor([r, c], pick([1, 1, 1, 1e20]))
    }
  }
}

function value(key: string): unknown {
  if (
    [
      'query',
      'key',
      'value',
      'embeddings',
      'Wq',
      'Wk',
      'Wv',
      'inProjWeight',
      'outProjWeight',
      'inProjBias',
      'qProjWeight',
      'kProjWeight',
      'vProjWeight',
      'outProjBias',
    ].includes(key)
  )
    return tensorish()
  if (key === 'mask') {
    return pick([
      () => pick(SCALARS)(),
      () => ({ keyPadding: pick(SCALARS)() }),
      () => ({ matrix: new Uint8Array(int(0, 30)) }),
      // (a mask whose getters throw is the separate, focused test below)
      () => ({ keyPadding: [true, 'x', 3] }),
      () => ({ matrix: 'abc' }),
    ])()
  }
  if (key === 'params') return { W: tensorish(), b: tensorish(), Wq: tensorish(), Wk: tensorish(), v: tensorish() }
  return pick(SCALARS)()
}

// The options each call is fuzzed with, in the order the generator draws them.
const FNS: Record<'run' | 'attention' | 'multiHeadAttention', readonly string[]> = {
  run: 'text source target tokenizer bpeMerges dModel dq dk dv seed score scale mask temperature heads embeddings Wq Wk Wv'.split(
    ' ',
  ),
  attention: 'query key value score scale mask temperature params needWeights'.split(' '),
  multiHeadAttention:
    'query key value numHeads inProjWeight inProjBias outProjWeight outProjBias causal keyPaddingMask'.split(' '),
}

function describeOpts(o: unknown): string {
  try {
    return JSON.stringify(o, (_k, v) =>
      typeof v === 'bigint' || typeof v === 'symbol' || typeof v === 'function'
        ? String(v)
        : v instanceof Float32Array || v instanceof Float64Array
          ? `F${v.length}[${Array.from(v.slice(0, 4))}]`
          : v,
    ).slice(0, 400)
  } catch {
    return '(unprintable)'
  }
}

describe('fuzzing the package boundary (JS values → embind → C++)', () => {
  it('3,000 calls with hostile option values: an answer or an AttentionError, never a trap; memory returns', () => {
    const course = () => expectCourseProgram(ap)
    course()
    // One-time allocations before the baseline: the built-in BPE corpus, and the tokenizer's memo of
    // merges learned from it, one entry per merge count (bounded: counts are 0..1024) — for each count
    // this mix can ask for.
    for (const kind of ['bpe', 'char', 'word', 'word-sorted'] as const) ap.tokenize('this is my cat', kind)
    for (let m = 0; m <= 8; m++) ap.tokenize('this is my cat', 'bpe', { bpeMerges: m })
    ap.run({ tokenizer: 'bpe' })
    const start = ap.memoryStats().allocatedBytes
    const counts = { answered: 0, refused: 0, callerThrew: 0 }
    for (let i = 0; i < 3000; i++) {
      const fn = pick(['run', 'attention', 'multiHeadAttention', 'tokenize'] as const)
      let opts: Record<string, unknown> = {}
      let callIt: () => unknown
      if (fn === 'tokenize') {
        const text = pick([
          () => 'this is my cat',
          () => pick(SCALARS)(),
          () => '我爱中国 \uD800',
          () => 'a'.repeat(int(0, 50)),
        ])()
        const kind = pick([() => 'bpe', () => 'char', () => pick(SCALARS)()])()
        const o = pick([
          () => undefined,
          () => ({ bpeMerges: pick(SCALARS)() }),
          () => ({ bpeCorpus: pick(SCALARS)() }),
          () => pick(SCALARS)(),
        ])()
        opts = { text, kind, o }
        callIt = () => ap.tokenize(text as never, kind as never, o as never)
      } else {
        const keys = FNS[fn]
        // Mostly a few keys at once, so calls get past the first check often enough.
        for (const k of keys) if (g.next() < 0.3) opts[k] = value(k)
        callIt = () => (ap[fn] as (o: unknown) => unknown)(opts)
      }
      try {
        const r = callIt()
        expect(r !== null && typeof r === 'object', `#${i} ${fn}: answered with a non-object`).toBe(true)
        counts.answered++
      } catch (e) {
        const err = e as Error
        // The caller's own getter threw: passing that error on is right, as long as nothing leaks
        // (checked at the end: a JS throw inside embind would skip the C++ destructors).
        if (err?.message === 'data getter') {
          counts.callerThrew++
          continue
        }
        if (err?.name !== 'AttentionError') {
          throw new Error(`#${i} ${fn}(${describeOpts(opts)}) threw ${err?.name}: ${err?.message}`, { cause: e })
        }
        expect(err.message, `#${i} ${fn}: message names an argument`).toMatch(/^[\w./[\]]+: |^[\w]+: [\w]+: /)
        counts.refused++
      }
      if (i % 250 === 249) course()
    }
    // The mix reached both outcomes in quantity, or it tested little.
    expect(counts.refused).toBeGreaterThan(500)
    expect(counts.answered).toBeGreaterThan(50)
    course()
    console.info(`hardening-fuzz: ${JSON.stringify(counts)}`)
    expect(ap.memoryStats().allocatedBytes, `malloc'd bytes after ${JSON.stringify(counts)}`).toBe(start)
  }, 600_000)
})

describe('a caller whose objects throw while the engine reads them', () => {
  // The wrapper reads top-level options in JS (Object.entries runs their getters there), but hands the
  // mask object to embind as it is, so keyPadding / matrix are read from inside C++; a JS exception
  // thrown there unwinds through the wasm frames without running any C++ destructor, and whatever the
  // call had allocated (the decoded Q, K, V) is never freed. The wrapper should copy keyPadding /
  // matrix into a Uint8Array in JS first, so a throwing getter throws before the module is entered.
  it('a throwing getter in mask.keyPadding: the caller gets its own error and nothing leaks', () => {
    const T = (r: number, c: number) => ({ data: new Float32Array(r * c).fill(0.5), shape: [r, c] })
    const call = () =>
      ap.attention({
        query: T(2, 2),
        key: T(2, 2),
        value: T(2, 2),
        mask: {
          get keyPadding(): boolean[] {
            throw new Error('caller getter')
          },
        },
      })
    expect(call).toThrow('caller getter')
    const before = ap.memoryStats().allocatedBytes
    for (let i = 0; i < 20; i++) expect(call).toThrow('caller getter')
    expect(ap.memoryStats().allocatedBytes, 'bytes left allocated by 20 calls').toBe(before)
    expectCourseProgram(ap)
  })

  it('a mask matrix whose element getter throws: the caller gets its own error and nothing leaks', () => {
    const T = (r: number, c: number) => ({ data: new Float32Array(r * c).fill(0.5), shape: [r, c] })
    const matrix = new Proxy(new Uint8Array(4), {
      get(t, k) {
        if (k === '1') throw new Error('caller getter')
        return Reflect.get(t, k)
      },
    })
    const call = () => ap.attention({ query: T(2, 2), key: T(2, 2), value: T(2, 2), mask: { matrix } })
    expect(call).toThrow('caller getter')
    const before = ap.memoryStats().allocatedBytes
    for (let i = 0; i < 20; i++) expect(call).toThrow('caller getter')
    expect(ap.memoryStats().allocatedBytes, 'bytes left allocated by 20 calls').toBe(before)
    expectCourseProgram(ap)
  })
})
