// The threaded engine in real Chromium, on a cross-origin isolated page (COOP/COEP from scripts/serve.mjs, as
// `npm start` serves): init() picks it, its rows of Q are split over two threads, and every result has the
// same bits as one thread and as the single-threaded relaxed-SIMD engine (the split never changes the order
// of a sum), and agrees with a plain double-precision reference computed in the page.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { ROOT } from './harness.mjs'
import { env, useEnv } from './env'
import { usePages } from './page-fixture'

interface CaseResult {
  sameAsOneThread: boolean
  sameAsUnthreadedEngine: boolean
  maxDiff: number
  weightsRowSumMaxError: number
  hasWeights: boolean
}

/** The test page's globals (set by PAGE's module script; the code runs in the page, outside Vite's transform). */
type ThreadsWindow = Window & {
  ready?: boolean
  info?: () => Promise<{ isolated: boolean; threaded: boolean; backend: string; backendInfo: string; threads: number }>
  runCase?: (c: { causal: boolean; needWeights: boolean }) => Promise<CaseResult>
  givenModule?: () => Promise<{ backendInfo: string; two: string }>
}

const PAGE = `<!doctype html><meta charset="utf-8"><title>threads</title><script type="module">
import { init } from '/dist/index.js'
window.info = async () => {
  const ap = await init()
  return { isolated: crossOriginIsolated, threaded: ap.threads >= 2, backend: ap.backend, backendInfo: ap.backendInfo, threads: ap.threads }
}
const n = 300, d = 64
function rand(seed) {
  let s = seed
  const a = new Float32Array(n * d)
  for (let i = 0; i < a.length; i++) { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; a[i] = (s / 4294967296) * 2 - 1 }
  return a
}
// A plain double-precision reference: max |ours - reference| over the output, max |row sum - 1| of the weights.
function check(Q, K, V, causal, r) {
  let maxDiff = 0, rowSum = 0
  const scores = new Float64Array(n)
  for (let i = 0; i < n; i++) {
    const end = causal ? i + 1 : n
    let m = -Infinity
    for (let j = 0; j < end; j++) {
      let a = 0
      for (let c = 0; c < d; c++) a += Q[i * d + c] * K[j * d + c]
      scores[j] = a / Math.sqrt(d)
      m = Math.max(m, scores[j])
    }
    let sum = 0
    for (let j = 0; j < end; j++) sum += (scores[j] = Math.exp(scores[j] - m))
    for (let c = 0; c < d; c++) {
      let o = 0
      for (let j = 0; j < end; j++) o += (scores[j] / sum) * V[j * d + c]
      maxDiff = Math.max(maxDiff, Math.abs(o - r.output.data[i * d + c]))
    }
    if (r.weights) {
      let w = 0
      for (let j = 0; j < n; j++) w += r.weights.data[i * n + j]
      rowSum = Math.max(rowSum, Math.abs(w - 1))
    }
  }
  return { maxDiff, weightsRowSumMaxError: rowSum, hasWeights: r.weights !== undefined }
}
// init({ backend, wasmModule }) on an isolated page: one thread, and why; more threads asked for is named.
window.givenModule = async () => {
  const compiled = WebAssembly.compileStreaming(fetch('/dist/attention-relaxed.wasm'))
  const ap = await init({ backend: 'relaxed-simd', wasmModule: compiled })
  const two = await init({ backend: 'relaxed-simd', wasmModule: compiled, threads: 2 }).then(
    () => 'loaded',
    (e) => e.name + ': ' + e.message,
  )
  return { backendInfo: ap.backendInfo, two }
}
window.runCase = async ({ causal, needWeights }) => {
  const threaded = await init({ threads: 2 })
  const single = await init({ backend: 'relaxed-simd', threads: 1 })
  const Q = rand(7), K = rand(11), V = rand(13)
  const t = (data) => ({ data, shape: [n, d] })
  const opts = { query: t(Q), key: t(K), value: t(V), mask: causal ? 'causal' : 'none', needWeights }
  threaded.setThreads(2)
  const two = threaded.attention(opts)
  threaded.setThreads(1)
  const one = threaded.attention(opts)
  const other = single.attention(opts)
  const bits = (a, b) => a.length === b.length && a.every((x, i) => Object.is(x, b[i]))
  const same = (a, b) => bits(a.output.data, b.output.data) && (!needWeights || bits(a.weights.data, b.weights.data))
  return { sameAsOneThread: same(two, one), sameAsUnthreadedEngine: same(two, other), ...check(Q, K, V, causal, two) }
}
window.ready = true
</script>`

let page: Page

// The repository root is served by scripts/serve.mjs (env.widgets), with COOP/COEP as `npm start` sends them.
useEnv()
const pages = usePages(undefined, 'suite')

beforeAll(async () => {
  mkdirSync(join(ROOT, 'build/e2e'), { recursive: true })
  writeFileSync(join(ROOT, 'build/e2e/threads.html'), PAGE)
  let errors: string[]
  ;({ page, errors } = await pages.open(`${env.widgets.url}/build/e2e/threads.html`, {
    ready: (p) => p.waitForFunction(() => (window as ThreadsWindow).ready, null, { timeout: 30_000 }),
  }))
  expect(errors).toEqual([])
}, 60_000)

describe('threads on a cross-origin isolated page', () => {
  it('init() picks the threaded relaxed-SIMD engine, with more than one thread', async () => {
    const info = await page.evaluate(() => (window as ThreadsWindow).info?.())
    const { backendInfo, threads, ...rest } = info!
    expect(rest).toEqual({ isolated: true, threaded: true, backend: 'relaxed-simd' })
    // said in words too (ap.backendInfo), with why
    expect(backendInfo).toBe(`relaxed-simd, ${threads} threads: cross-origin isolated`)
  })

  it('init({ backend, wasmModule }) runs that module on one thread, and says why; threads: 2 with it is named', async () => {
    expect(await page.evaluate(() => (window as ThreadsWindow).givenModule?.())).toEqual({
      backendInfo: 'relaxed-simd, 1 thread: init({ wasmModule })',
      two: 'AttentionError: init: threads: 2 cannot run a wasmModule (the threaded engine is a file of its own); pass threads: 1',
    })
  })

  for (const needWeights of [false, true])
    for (const causal of [false, true])
      it(`n = 300, d = 64, ${causal ? 'causal' : 'no mask'}, needWeights ${needWeights}: the same bits as one thread`, async () => {
        const r = await page.evaluate((c) => (window as ThreadsWindow).runCase?.(c), { causal, needWeights })
        expect(r).toBeTruthy()
        expect(r!.sameAsOneThread).toBe(true)
        expect(r!.sameAsUnthreadedEngine).toBe(true)
        expect(r!.maxDiff).toBeLessThan(1e-5)
        // Weights come back exactly when asked for, and then every row sums to 1.
        expect(r!.hasWeights).toBe(needWeights)
        expect(r!.weightsRowSumMaxError).toBeLessThan(1e-5)
      })
})
