// Shared by the engine-*.test.ts suites: loading the built package, decoding the PyTorch fixtures
// (tests/fixtures/gen_fixtures.py) and comparing tensors with a message that shows the worst cell.
import { readFileSync } from 'node:fs'
import { expect } from 'vitest'
import { init, type Engine, type Tensor } from '../../dist/index.js'

// The package is loaded as built (dist/), with the types tsc emitted there.
export type { Engine, Tensor }

const distWasm = new URL('../../dist/attention.wasm', import.meta.url)

let enginePromise: Promise<Engine> | undefined
// Why a plain init() failed, if it did: engine-package.test.ts reports it as its own failure, while
// the numeric suites still run on an explicitly passed wasm binary and say what they can.
export let plainInitError: unknown

// AP_TEST_BACKEND (set by the 'relaxed-simd' project in vitest.config.ts) forces an engine: when the runtime
// cannot run it, init() throws and every suite fails rather than quietly testing the other engine.
export const forcedBackend = process.env.AP_TEST_BACKEND || undefined

export function getAp(): Promise<Engine> {
  enginePromise ??= (async () => {
    if (forcedBackend) {
      const ap = await init({ backend: forcedBackend as never })
      if (ap.backend !== forcedBackend) throw new Error(`AP_TEST_BACKEND=${forcedBackend} but the engine runs ${ap.backend}`)
      return ap
    }
    try {
      return await init()
    } catch (e) {
      plainInitError = e
      return await init({ wasmBinary: readFileSync(distWasm) })
    }
  })()
  return enginePromise
}

/**
 * Fixture JSON (tests/fixtures, written by the PyTorch generators). Its layout is the generators', and
 * the assertions that read it check it; it is the one loosely typed thing here (the engine's calls and
 * results use the package's own types).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
export type FixtureJson = any

export function loadFixture(name: string): FixtureJson {
  return JSON.parse(readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8'))
}

// Non-finite float32 values are strings in the JSON (JSON has no Infinity).
function num(v: number | string): number {
  if (typeof v === 'number') return v
  if (v === '-Infinity') return -Infinity
  if (v === 'Infinity') return Infinity
  if (v === 'NaN') return NaN
  throw new Error(`fixture: not a number: ${v}`)
}

/** A tensor as the fixture generators write it (non-finite values as strings). */
export type TensorJson = { shape: number[]; data: (number | string)[] }

export function isTensorJson(o: unknown): o is TensorJson {
  return !!o && typeof o === 'object' && Array.isArray((o as TensorJson).shape) && Array.isArray((o as TensorJson).data)
}

export function toTensor(o: TensorJson): Tensor {
  return { shape: [...o.shape], data: Float32Array.from(o.data, num) }
}

// Turns a fixture input into API options: {shape,data} -> Tensor, "$name" -> the shared tensor,
// mask.matrix -> Uint8Array (1 = masked), everything else as written.
export function decodeInput(input: FixtureJson, tensors: Record<string, TensorJson> = {}): FixtureJson {
  const dec = (v: unknown): unknown => {
    if (typeof v === 'string' && v.startsWith('$')) {
      const t = tensors[v.slice(1)]
      if (!t) throw new Error(`fixture: no tensor ${v}`)
      return toTensor(t)
    }
    if (isTensorJson(v)) return toTensor(v)
    if (Array.isArray(v)) return v.map(dec)
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {}
      for (const [k, x] of Object.entries(v)) out[k] = dec(x)
      return out
    }
    return v
  }
  const out: FixtureJson = dec(input)
  if (out.mask && typeof out.mask === 'object' && Array.isArray(out.mask.matrix)) {
    out.mask = { matrix: Uint8Array.from(out.mask.matrix) }
  }
  return out
}

export function shapeOf(t: { shape?: readonly number[] } | undefined): number[] {
  return Array.from(t?.shape ?? [])
}

export interface Worst { index: number; actual: number; expected: number; err: number }

// Elementwise |a - e| / max(1, |e|): an absolute error for values up to 1, a relative one above,
// because float32 carries ~7 significant digits whatever the magnitude (scores reach ~100).
// Infinities must match exactly (masked scores are -Infinity).
export function worstError(actual: ArrayLike<number>, expected: ArrayLike<number>): Worst {
  let w: Worst = { index: -1, actual: 0, expected: 0, err: 0 }
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i]
    const e = expected[i]
    let err: number
    if (!Number.isFinite(e) || !Number.isFinite(a)) err = Object.is(a, e) || a === e ? 0 : Infinity
    else err = Math.abs(a - e) / Math.max(1, Math.abs(e))
    if (!(err <= w.err)) w = { index: i, actual: a, expected: e, err }
  }
  return w
}

function where(shape: number[], index: number): string {
  const idx: number[] = []
  for (let d = shape.length - 1; d >= 0; d--) {
    idx.unshift(index % shape[d])
    index = Math.floor(index / shape[d])
  }
  return `[${idx.join(', ')}]`
}

export function expectTensorClose(actual: Tensor | undefined, expected: Tensor | TensorJson | undefined, label: string, tol = 1e-5) {
  expect(actual, `${label}: missing`).toBeTruthy()
  expect(expected, `${label}: expected value missing`).toBeTruthy()
  if (!actual || !expected) return
  const exp: Tensor = isTensorJson(expected) ? toTensor(expected) : expected
  expect(shapeOf(actual), `${label}: shape`).toEqual(exp.shape)
  expect(actual.data.length, `${label}: data length`).toBe(exp.data.length)
  const w = worstError(actual.data, exp.data)
  expect(
    w.err,
    `${label}: worst cell ${where(exp.shape, w.index)} got ${w.actual}, PyTorch ${w.expected} ` +
      `(error ${w.err.toExponential(2)} > ${tol})`,
  ).toBeLessThanOrEqual(tol)
}

// maskedRows may come back as indices (number[] / Int32Array) or as one flag per row; the contract
// says "rows whose keys were all masked", so compare as a sorted list of row indices.
export function maskedRowList(m: unknown): number[] {
  if (m == null) return []
  const arr = Array.from(m as ArrayLike<number | boolean>)
  if (arr.length > 0 && typeof arr[0] === 'boolean') {
    return arr.flatMap((b, i) => (b ? [i] : []))
  }
  return (arr as number[]).map(Number).sort((a, b) => a - b)
}

// A small deterministic generator for the property tests (mulberry32): the properties hold for any
// input, the seed only makes a failure reproducible.
export function rng(seed: number) {
  let s = seed >>> 0
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0
    let t = s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const normal = () => {
    const u = Math.max(next(), 1e-12)
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next())
  }
  const tensor = (shape: number[], scale = 1): Tensor => {
    const n = shape.reduce((a, b) => a * b, 1)
    const data = new Float32Array(n)
    for (let i = 0; i < n; i++) data[i] = normal() * scale
    return { data, shape }
  }
  return { next, normal, tensor }
}

// The engine's answer for the course program, checked after each error to show the module still works.
export function expectCourseProgram(ap: Engine) {
  const fx = loadFixture('engine-run.json')
  const c = fx.cases[0]
  const t = ap.run({})
  for (const key of ['Q', 'K', 'V', 'weights', 'output'] as const) expectTensorClose(t[key], c.expected[key], key)
}
