// Shared by the engine-*.test.ts suites: loading the built package, decoding the PyTorch fixtures
// (tests/fixtures/gen_fixtures.py) and comparing tensors with a message that shows the worst cell.
import { readFileSync } from 'node:fs'
import { beforeAll, expect, it } from 'vitest'
import { init, type Engine, type Tensor, type Trainer } from '../../dist/index.js'
import { mulberry32 } from '../../web/compute/random'

// The package is loaded as built (dist/), with the types tsc emitted there.
export type { Engine, Tensor }

const distWasm = new URL('../../dist/attention.wasm', import.meta.url)

let enginePromise: Promise<Engine> | undefined
// Why a plain init() failed, if it did: engine-package.test.ts reports it as its own failure, while
// the numeric suites still run on an explicitly passed wasm binary and say what they can.
export let plainInitError: unknown

// AP_TEST_BACKEND (set by the 'engine-relaxed' project in vitest.config.ts) forces an engine: when the runtime
// cannot run it, init() throws and every suite fails rather than quietly testing the other engine.
export const forcedBackend = process.env.AP_TEST_BACKEND || undefined

export function getAp(): Promise<Engine> {
  enginePromise ??= (async () => {
    if (forcedBackend) {
      const ap = await init({ backend: forcedBackend as never })
      if (ap.backend !== forcedBackend)
        throw new Error(`AP_TEST_BACKEND=${forcedBackend} but the engine runs ${ap.backend}`)
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

// The engine of a test file's suites: useEngine() registers the beforeAll that loads it once; `ap` is a
// live binding, so the tests read the loaded engine.
export let ap: Engine
export function useEngine(): void {
  beforeAll(async () => {
    ap = await getAp()
  })
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

/** One test per case of a fixture file, named as its generator named it. */
export function itEachCase(fx: FixtureJson, check: (c: FixtureJson) => void): void {
  for (const c of fx.cases) it(c.name, () => check(c))
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

export interface Worst {
  index: number
  actual: number
  expected: number
  err: number
}

/** |actual − expected| ≤ atol + rtol·|expected|, elementwise. */
export interface Tol {
  atol: number
  rtol: number
  /** When set, atol is at least this times the tensor's largest finite |expected| (see SUMS). */
  atolOfMax?: number
}
// float32 carries ~7 significant digits at any magnitude, so the bound is relative (rtol 1e-5 leaves
// room for a few roundings in a different summation order); atol only covers values near zero, and is
// small enough that the fixtures' smallest weights (~1e-6) are still checked relative to their size.
export const F32: Tol = { atol: 1e-7, rtol: 1e-5 }
// A sum of products (Q = E·Wq, scores = Q·Kᵀ, output = weights·V) carries a rounding error relative to
// its terms, not to its result: where terms cancel, a cell of 1e-3 among cells of ~1 is off by ~1e-7
// (measured: up to 3.4e-6 on 0.079 in a 2-head output, 9.5e-7 on 0.046 in scores). So these tensors
// get atol = 1e-5 · max|tensor| (the same relative 1e-5, against the tensor's scale); weights keep F32.
export const SUMS: Tol = { atol: 1e-7, rtol: 1e-5, atolOfMax: 1e-5 }
/** Two engine paths that should agree bit for bit. */
export const EXACT: Tol = { atol: 0, rtol: 0 }
/** Two engine paths that differ only in the order of a few float32 roundings. */
export const TIGHT: Tol = { atol: 1e-7, rtol: 1e-6 }

/**
 * The worst cell by err = |a − e| / (atol + rtol·|e|): it passes when err ≤ 1. Infinities and NaN must
 * match exactly (masked scores are -Infinity).
 */
export function worstError(actual: ArrayLike<number>, expected: ArrayLike<number>, tol: Tol = F32): Worst {
  let w: Worst = { index: -1, actual: 0, expected: 0, err: 0 }
  let atol = tol.atol
  if (tol.atolOfMax) {
    let m = 0
    for (let i = 0; i < expected.length; i++) if (Number.isFinite(expected[i])) m = Math.max(m, Math.abs(expected[i]))
    atol = Math.max(atol, tol.atolOfMax * m)
  }
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i]
    const e = expected[i]
    let err: number
    if (!Number.isFinite(e) || !Number.isFinite(a)) err = Object.is(a, e) || a === e ? 0 : Infinity
    else {
      const d = Math.abs(a - e)
      const bound = atol + tol.rtol * Math.abs(e)
      err = d === 0 ? 0 : bound === 0 ? Infinity : d / bound
    }
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

function expectWithin(
  actual: ArrayLike<number>,
  expected: ArrayLike<number>,
  shape: number[],
  label: string,
  tol: Tol,
) {
  expect(actual.length, `${label}: data length`).toBe(expected.length)
  const w = worstError(actual, expected, tol)
  expect(
    w.err,
    `${label}: worst cell ${where(shape, w.index)} got ${w.actual}, expected ${w.expected} ` +
      `(|diff| ${Math.abs(w.actual - w.expected).toExponential(2)} > atol + ${tol.rtol}·|expected|, ` +
      `atol ${tol.atolOfMax ? `max(${tol.atol}, ${tol.atolOfMax}·max|expected|)` : tol.atol})`,
  ).toBeLessThanOrEqual(1)
}

/** Weights are compared with F32, every other step (a sum of products) with SUMS. */
export function tolFor(step: string): Tol {
  return /weights/i.test(step) ? F32 : SUMS
}

/** Tensor vs tensor (or fixture JSON): same shape, every cell within tol (default F32). */
export function expectTensorClose(
  actual: Tensor | undefined,
  expected: Tensor | TensorJson | undefined,
  label: string,
  tol: Tol = F32,
) {
  expect(actual, `${label}: missing`).toBeTruthy()
  expect(expected, `${label}: expected value missing`).toBeTruthy()
  if (!actual || !expected) return
  const exp: Tensor = isTensorJson(expected) ? toTensor(expected) : expected
  expect(shapeOf(actual), `${label}: shape`).toEqual(exp.shape)
  expectWithin(actual.data, exp.data, exp.shape, label, tol)
}

/** Flat arrays: every element within tol (default F32). */
export function expectAllClose(actual: ArrayLike<number>, expected: ArrayLike<number>, label: string, tol: Tol = F32) {
  expectWithin(actual, expected, [expected.length], label, tol)
}

// maskedRows may come back as indices (number[] / Int32Array) or as one flag per row; the contract
// says "rows whose keys were all masked", so compare as a sorted list of row indices.
/**
 * A trainer on a fixture case of PyTorch autograd (float64): it must hold exactly the reference's parameters,
 * which it is given; then the loss, the accuracy and every parameter's gradient on the case's batch, each
 * within 1e-4 of the tensor's largest gradient (float32 engine).
 */
export function expectGradientsLike(tr: Trainer, c: FixtureJson): void {
  const params: Record<string, Tensor> = {}
  for (const [k, v] of Object.entries<TensorJson>(c.params)) params[k] = toTensor(v)
  expect(Object.keys(tr.parameters()).sort()).toEqual(Object.keys(params).sort())
  tr.setParameters(params)
  const g = tr.gradients(c.batch)
  expect(Math.abs(g.loss - c.loss)).toBeLessThan(1e-5 * Math.max(1, Math.abs(c.loss)))
  expect(g.accuracy).toBeCloseTo(c.accuracy, 10)
  for (const [k, ref] of Object.entries<Tensor>(c.grads)) {
    const got = g.grads[k]
    expect(got?.shape, k).toEqual(ref.shape)
    let maxRef = 0
    let maxErr = 0
    for (let i = 0; i < ref.data.length; i++) {
      maxRef = Math.max(maxRef, Math.abs(ref.data[i]))
      maxErr = Math.max(maxErr, Math.abs(got.data[i] - ref.data[i]))
    }
    expect(maxErr, `${k}: max error ${maxErr} (largest gradient ${maxRef})`).toBeLessThanOrEqual(
      1e-4 * Math.max(maxRef, 1e-3),
    )
  }
}

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
  const next = mulberry32(seed)
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
  for (const key of ['Q', 'K', 'V', 'weights', 'output'] as const)
    expectTensorClose(t[key], c.expected[key], key, tolFor(key))
}
