#!/usr/bin/env node
// npm run bench: attention on one thread, side by side in one run — this package (fused kernel with
// needWeights: false, and the path that also returns the weights), a plain-JS Float32Array
// implementation, the native build of the same kernels, tfjs-backend-wasm 4.22 (K transposed first,
// and matMul(q, k, false, true) as users call it) and onnxruntime-web 1.30 (wasm, one thread).
// GFLOP/s count 4·n²·d for every case; causal rows call that "effective" and also print the flops
// each implementation actually did (the fused kernel skips the masked half; the others compute it all).
// The relaxed-SIMD engine is timed too when Node runs with --experimental-wasm-relaxed-simd (npm run
// bench passes it). A row more than 1e-4 off the reference is marked failed and gets no speed.
// Each case times every implementation in turn, round after round, so that load from other
// processes on this shared machine falls on all of them alike; the medians are reported.
//
// It also times each engine's register tile alone on cache-resident data (the ceiling; before and after the table,
// the better of the two) and prints each kernel's GFLOP/s as a fraction of it, and ends with a per-phase profile of
// one fused call at n = 512, d = 64 (bench/kernel_limits.mjs). --only ceiling,phases runs just those sections and
// merges them into the existing JSON.
//
//   node bench/run.mjs [--quick] [--long-only] [--only ceiling,phases] [--json out.json]
//   AP_BENCH_NATIVE=/path/to/ap_bench_native   (default build/native/ap_bench_native)
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { gzipSync } from 'node:zlib'
import { attentionModel } from './onnx_model.mjs'
import { cli, rand, machine } from './inputs.mjs'
import { ceilingFractions, phaseProfile, tileCeilings } from './kernel_limits.mjs'
import { WASM_GZIP_BUDGET } from '../scripts/bench-doc.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
// AP_BENCH_DIST: another build of the package (e.g. a kernel experiment) instead of dist/.
const distDir = process.env.AP_BENCH_DIST ? resolve(process.env.AP_BENCH_DIST) : join(root, 'dist')
const require = createRequire(import.meta.url)
const args = cli(
  {
    quick: { type: 'boolean', default: false },
    'long-only': { type: 'boolean', default: false }, // just the n = 16384 run, size and start-up
    only: { type: 'string' },
    json: { type: 'string', default: join(root, 'bench', 'results', 'node.json') },
    n: { type: 'string', default: '512' }, // --only phases
    d: { type: 'string', default: '64' },
  },
  'node bench/run.mjs [--quick] [--long-only] [--only ceiling,phases [--n 512] [--d 64]] [--json out.json]',
)
const quick = args.quick
const longOnly = args['long-only']
const only = args.only?.split(',') ?? null
const jsonOut = args.json
const t0All = performance.now()

const NS = quick ? [128, 512, 2048] : [128, 512, 2048, 8192]
const DS = quick ? [64] : [64, 128]
const CAUSALS = [false, true]
const log = (...a) => console.log(...a)
const fmt = (x, w = 9, p = 2) => (x === undefined || x === null || Number.isNaN(x) ? '—' : x.toFixed(p)).padStart(w)

// ---------- plain JS ----------
// One row at a time (O(n) extra memory), max-subtracted softmax, masked keys not visited.
function plainAttention(Q, K, V, n, d, scale, causal) {
  const O = new Float32Array(n * d)
  const s = new Float32Array(n)
  for (let i = 0; i < n; i++) {
    const qi = i * d
    const end = causal ? i + 1 : n
    let m = -Infinity
    for (let j = 0; j < end; j++) {
      const kj = j * d
      let acc = 0
      for (let t = 0; t < d; t++) acc += Q[qi + t] * K[kj + t]
      acc *= scale
      s[j] = acc
      if (acc > m) m = acc
    }
    let sum = 0
    for (let j = 0; j < end; j++) {
      const e = Math.exp(s[j] - m)
      s[j] = e
      sum += e
    }
    const inv = 1 / sum
    for (let j = 0; j < end; j++) {
      const w = s[j] * inv
      const vj = j * d
      for (let t = 0; t < d; t++) O[qi + t] += w * V[vj + t]
    }
  }
  return O
}

// ---------- peers ----------
async function loadTf() {
  // Both through require: the backend's Node build registers itself on the CommonJS tfjs-core,
  // and an ESM import of tfjs-core would be a second, backend-less copy.
  const tf = require('@tensorflow/tfjs-core')
  const wasm = require('@tensorflow/tfjs-backend-wasm')
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false)
  wasm.setThreadsCount?.(1)
  await tf.setBackend('wasm')
  await tf.ready()
  return { tf, version: wasm.version_wasm ?? '4.22', simd: tf.env().getBool('WASM_HAS_SIMD_SUPPORT') }
}

function tfAttention(tf, q, k, v, mask, scale, transposeFirst) {
  const out = tf.tidy(() => {
    const s = transposeFirst ? tf.matMul(q, tf.transpose(k)) : tf.matMul(q, k, false, true)
    let x = tf.mul(s, tf.scalar(scale))
    if (mask) x = tf.add(x, mask)
    return tf.matMul(tf.softmax(x), v)
  })
  const data = out.dataSync()
  out.dispose()
  return data
}

async function loadOrt() {
  const ort = await import('onnxruntime-web')
  ort.env.wasm.numThreads = 1
  ort.env.wasm.proxy = false
  ort.env.logLevel = 'error'
  return ort
}

// ---------- this package ----------
async function loadPackage() {
  const entry = join(distDir, 'index.js')
  if (!existsSync(entry)) return { error: 'dist/index.js missing (run node scripts/build.mjs)' }
  try {
    const { init, supportsRelaxedSimd } = await import(pathToFileURL(entry).href)
    const ap = await init({ backend: 'simd128' })
    const relaxed = supportsRelaxedSimd?.() ? await init({ backend: 'relaxed-simd' }) : null
    return { ap, relaxed }
  } catch (e) {
    return { error: `init failed: ${e.message}` }
  }
}

// ---------- native ----------
function runNative() {
  const exe = process.env.AP_BENCH_NATIVE ?? join(root, 'build', 'native', 'ap_bench_native')
  if (!existsSync(exe)) return { error: `${exe} missing (node scripts/build.mjs --native, or set AP_BENCH_NATIVE)` }
  const r = spawnSync(exe, quick ? ['--quick'] : [], { encoding: 'utf8', maxBuffer: 1 << 24 })
  if (r.status !== 0) return { error: `${exe} exited ${r.status}: ${r.stderr}` }
  const rows = r.stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l))
  return { rows, exe }
}

// ---------- timing ----------
const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1]

// Above this, an implementation computes something else: the run fails (non-zero exit) after its report.
const MAX_DIFF = 1e-4
const wrong = []

function maxRelDiff(a, b) {
  // Against the largest |value|: outputs are weighted means of V, so near-zero entries are cancellations.
  let scale = 0,
    worst = 0
  for (let i = 0; i < b.length; i++) scale = Math.max(scale, Math.abs(b[i]))
  for (let i = 0; i < b.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]))
  return worst / (scale || 1)
}

// The page a user's browser would load: dist/ over HTTP from 127.0.0.1, a fresh context (empty
// cache) each time, timed from navigation start to init() resolved.
async function chromiumLoadInit() {
  if (!existsSync(join(distDir, 'index.js'))) return null
  try {
    require.resolve('playwright-core')
  } catch {
    return { error: 'playwright-core not installed' }
  }
  const { CHROMIUM: exe, launchChromium } = await import('../tests/e2e/harness.mjs')
  if (!existsSync(exe)) return { error: `${exe} missing` }
  const page = `<!doctype html><meta charset="utf-8"><script type="module">
const t0 = performance.now();
const { init } = await import('/dist/index.js');
await init();
window.__apTimes = { sinceNavigationMs: performance.now(), importInitMs: performance.now() - t0 };
</script>`
  // dist/ (or $AP_BENCH_DIST) under /dist/, the page at /, with no headers (a plain host)
  const { serve } = await import('../scripts/serve.mjs')
  const server = await serve({
    root: distDir,
    base: '/dist/',
    headers: {},
    handle: (_, res, path) => path === '/' && !!res.writeHead(200, { 'content-type': 'text/html' }).end(page),
  })
  const base = server.url
  let browser
  try {
    ;({ browser } = await launchChromium(exe))
    const nav = [],
      imp = []
    for (let i = 0; i < 6; i++) {
      const ctx = await browser.newContext()
      const pg = await ctx.newPage()
      await pg.goto(base)
      const t = await pg
        .waitForFunction(
          () =>
            /** @type {Window & { __apTimes?: { sinceNavigationMs: number, importInitMs: number } }} */ (window)
              .__apTimes,
          null,
          {
            timeout: 30000,
          },
        )
        .then((h) => h.jsonValue())
      await ctx.close()
      if (i === 0) continue // the first launch also warms the browser process itself
      nav.push(t.sinceNavigationMs)
      imp.push(t.importInitMs)
    }
    return { sinceNavigationMs: median(nav), importInitMs: median(imp), reps: nav.length }
  } catch (e) {
    return { error: e.message.split('\n')[0] }
  } finally {
    await browser?.close()
    await server.close()
  }
}

async function main() {
  log(
    `attention benchmark — one thread, Node ${process.version}, ${os.cpus()[0]?.model ?? 'cpu'}, ` +
      `load average ${os
        .loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}${quick ? ', --quick' : ''}`,
  )
  log(
    'flops = 4·n²·d for every case (causal included); ratio = GFLOP/s ÷ the best peer (tfjs, onnxruntime) of that case\n',
  )

  const pkg = await loadPackage()
  if (pkg.error) log(`package: skipped — ${pkg.error}`)
  let tfl = null,
    ort = null
  try {
    tfl = await loadTf()
  } catch (e) {
    log(`tfjs-backend-wasm: skipped — ${e.message}`)
  }
  try {
    ort = await loadOrt()
  } catch (e) {
    log(`onnxruntime-web: skipped — ${e.message}`)
  }
  if (only) return sectionsOnly(pkg)
  const engineNames = pkg.ap ? ['simd128', ...(pkg.relaxed ? ['relaxed-simd'] : [])] : []
  let ceilings = longOnly ? {} : tileCeilings(engineNames, DS)
  if (tfl) log(`tfjs-backend-wasm: backend ${tfl.tf.getBackend()}, SIMD ${tfl.simd}, multithread off`)
  const native = runNative()
  if (native.error) log(`native: skipped — ${native.error}`)
  const nativeRow = (path, n, d, causal) =>
    native.rows?.find((r) => r.path === path && r.n === n && r.d === d && r.causal === causal)

  const results = []
  const summary = []
  for (const d of longOnly ? [] : DS) {
    for (const n of NS) {
      const Q = rand(n * d, 1 + n + d),
        K = rand(n * d, 2 + n + d),
        V = rand(n * d, 3 + n + d)
      const scale = 1 / Math.sqrt(d)
      const flops = 4 * n * n * d
      const rounds = quick ? 3 : n >= 8192 ? 3 : n >= 2048 ? 5 : 9
      const tfT = tfl && {
        q: tfl.tf.tensor2d(Q, [n, d]),
        k: tfl.tf.tensor2d(K, [n, d]),
        v: tfl.tf.tensor2d(V, [n, d]),
      }
      const sessions = {}
      if (ort)
        for (const c of CAUSALS)
          sessions[c] = await ort.InferenceSession.create(attentionModel(d, scale, c), {
            executionProviders: ['wasm'],
            graphOptimizationLevel: 'all',
          })
      for (const causal of CAUSALS) {
        const tensor = (data) => ({ data, shape: [n, d] })
        let maskF32 = null
        if (causal && (tfl || ort)) {
          maskF32 = new Float32Array(n * n)
          for (let i = 0; i < n; i++) maskF32.fill(-Infinity, i * n + i + 1, (i + 1) * n)
        }
        const tfMask = tfl && maskF32 ? tfl.tf.tensor2d(maskF32, [n, n]) : null
        /** @type {Array<{ name: string, fn: () => unknown, ours?: boolean, peer?: boolean, async?: boolean, error?: string, weights?: boolean }>} */
        const impls = []
        if (pkg.ap) {
          const opts = (needWeights) => ({
            query: tensor(Q),
            key: tensor(K),
            value: tensor(V),
            score: 'scaled-dot',
            needWeights,
            ...(causal ? { mask: 'causal' } : {}),
          })
          // One engine, fused, then returning all n² weights to JS (256 MiB at n = 8192, skipped there).
          const addOurs = (engine, fusedName, weightsName) => {
            impls.push({ name: fusedName, ours: true, fn: () => engine.attention(opts(false)).output.data })
            if (n <= 2048)
              impls.push({
                name: weightsName,
                ours: true,
                weights: true,
                fn: () => engine.attention(opts(true)).output.data,
              })
          }
          addOurs(pkg.ap, 'ours (fused, needWeights false)', 'ours (needWeights true)')
          if (pkg.relaxed) addOurs(pkg.relaxed, 'ours relaxed-simd (fused)', 'ours relaxed-simd (needWeights)')
        }
        if (tfl) {
          impls.push({
            name: 'tfjs-wasm (Kᵀ first)',
            peer: true,
            fn: () => tfAttention(tfl.tf, tfT.q, tfT.k, tfT.v, tfMask, scale, true),
          })
          impls.push({
            name: 'tfjs-wasm matMul(q,k,f,t)',
            peer: true,
            fn: () => tfAttention(tfl.tf, tfT.q, tfT.k, tfT.v, tfMask, scale, false),
          })
        }
        if (ort) {
          const feeds = {
            Q: new ort.Tensor('float32', Q, [n, d]),
            K: new ort.Tensor('float32', K, [n, d]),
            V: new ort.Tensor('float32', V, [n, d]),
          }
          if (causal) feeds.mask = new ort.Tensor('float32', maskF32, [n, n])
          impls.push({
            name: 'onnxruntime-web (wasm)',
            peer: true,
            async: true,
            fn: async () => (await sessions[causal].run(feeds)).O.data,
          })
        }
        // ~1 GFLOP/s: n = 8192 would take ~20 s a run.
        if (n <= 2048)
          impls.push({ name: 'plain JS Float32Array', fn: () => plainAttention(Q, K, V, n, d, scale, causal) })

        // Warm-up: V8 first runs wasm in its baseline compiler and swaps in optimized code after
        // enough work, so each implementation runs until 3 calls and 150 ms (at most 40 calls).
        // The first call's output is kept for the cross-check.
        const outputs = {}
        for (const im of impls) {
          try {
            outputs[im.name] = im.async ? await im.fn() : im.fn()
            const w0 = performance.now()
            for (let c = 1; c < 40 && (c < 3 || performance.now() - w0 < 150) && !im.name.startsWith('plain'); c++) {
              if (im.async) await im.fn()
              else im.fn()
            }
          } catch (e) {
            im.error = e.message
          }
        }
        const times = Object.fromEntries(impls.map((im) => [im.name, []]))
        for (let r = 0; r < rounds; r++) {
          for (const im of impls) {
            if (im.error) continue
            if (im.name.startsWith('plain') && r >= Math.min(rounds, n >= 2048 ? 3 : rounds)) continue
            const t = performance.now()
            if (im.async) await im.fn()
            else im.fn()
            times[im.name].push(performance.now() - t)
          }
        }
        const refName =
          impls.find((im) => im.name.startsWith('plain') && !im.error)?.name ??
          impls.find((im) => im.name.startsWith('onnx'))?.name
        /** @type {Array<{ impl: string, ms: number, gflops: number, bestGflops?: number, runs: number, peer?: boolean, ours?: boolean, error?: string, maxDiffVsRef?: number, gflopDone?: number, failed?: boolean }>} */
        const rows = impls.map((im) => {
          const ms = im.error ? NaN : median(times[im.name])
          const minMs = im.error ? NaN : Math.min(...times[im.name])
          const diff =
            refName && outputs[im.name] && im.name !== refName
              ? maxRelDiff(outputs[im.name], outputs[refName])
              : undefined
          const failed = !!im.error || diff > MAX_DIFF
          const done = causal && im.ours && !im.weights ? 2 * n * (n + 1) * d : flops
          return {
            impl: im.name,
            ms: failed ? NaN : ms,
            gflopDone: done / 1e9,
            failed,
            gflops: failed ? NaN : flops / ms / 1e6,
            bestGflops: flops / minMs / 1e6,
            runs: times[im.name].length,
            peer: !!im.peer,
            ours: !!im.ours,
            error: im.error,
            maxDiffVsRef: diff,
          }
        })
        for (const path of ['flash', 'unfused']) {
          const nr = nativeRow(path, n, d, causal)
          if (nr)
            rows.push({
              impl: `native ${nr.backend} (${path === 'flash' ? 'fused' : 'qkt+softmax+wv'})`,
              ms: nr.ms,
              gflops: nr.gflops,
              bestGflops: nr.min_ms ? flops / nr.min_ms / 1e6 : undefined,
              runs: nr.runs,
            })
        }
        const peers = rows.filter((r) => r.peer && !r.failed)
        const best = peers.reduce((a, b) => (b.gflops > (a?.gflops ?? 0) ? b : a), null)
        log(
          `n = ${n}, d = ${d}, causal ${causal ? 'on' : 'off'}   (${rounds} rounds, reference for diffs: ${refName ?? '—'}, load ${os.loadavg()[0].toFixed(1)})`,
        )
        log(
          `  ${'implementation'.padEnd(34)}${'ms'.padStart(10)}${'GFLOP done'.padStart(11)}${(causal ? 'eff. GF/s' : 'GFLOP/s').padStart(10)}${'× best peer'.padStart(13)}${'best run'.padStart(10)}${'max diff'.padStart(11)}`,
        )
        for (const r of rows) {
          const ratio = best ? r.gflops / best.gflops : NaN
          const diff = r.maxDiffVsRef === undefined ? '' : r.maxDiffVsRef.toExponential(1)
          const why = r.error
            ? `  FAILED: ${r.error}`
            : r.failed
              ? `  FAILED: differs from ${refName} by ${r.maxDiffVsRef.toExponential(2)} (relative to max |output|)`
              : ''
          log(
            `  ${r.impl.padEnd(34)}${fmt(r.ms, 10, n >= 2048 ? 1 : 3)}${fmt(r.gflopDone, 11, 3)}${fmt(r.gflops, 10, 1)}${fmt(ratio, 13, 2)}${fmt(r.failed ? NaN : r.bestGflops, 10, 1)}${diff.padStart(11)}${why}`,
          )
          if (r.maxDiffVsRef > MAX_DIFF) {
            wrong.push(
              `${r.impl} at n = ${n}, d = ${d}, causal ${causal ? 'on' : 'off'}: ${r.maxDiffVsRef.toExponential(2)}`,
            )
          }
        }
        if (causal) log('  (causal: GFLOP/s counts the full 4·n²·d, "effective"; GFLOP done is what each one computed)')
        log('')
        const ours = rows.find((r) => r.ours && !r.failed && r.impl.includes('fused'))
        const bestByRun = Math.max(...peers.map((r) => r.bestGflops ?? 0))
        summary.push({
          n,
          d,
          causal,
          ours: ours?.gflops,
          best: best?.gflops,
          bestName: best?.impl,
          ratio: ours && best ? ours.gflops / best.gflops : undefined,
          ratioBestRuns: ours && bestByRun ? ours.bestGflops / bestByRun : undefined,
        })
        results.push({ n, d, causal, rows })
        tfMask?.dispose()
      }
      if (tfT) for (const t of Object.values(tfT)) t.dispose()
      for (const s of Object.values(sessions)) await s.release?.()
    }
  }

  log('summary: ours (fused) vs the best peer')
  log(
    `  ${'n'.padStart(6)}${'d'.padStart(5)}${'causal'.padStart(8)}${'ours GF/s'.padStart(11)}${'best peer GF/s'.padStart(16)}  ${'ratio'.padStart(6)}  ${'(best runs)'.padStart(11)}  best peer`,
  )
  for (const s of summary)
    log(
      `  ${String(s.n).padStart(6)}${String(s.d).padStart(5)}${(s.causal ? 'on' : 'off').padStart(8)}${fmt(s.ours, 11, 1)}${fmt(s.best, 16, 1)}  ${fmt(s.ratio, 6, 2)}  ${fmt(s.ratioBestRuns, 11, 2)}  ${s.bestName ?? '—'}`,
    )
  log('  (ratio: of medians; best runs: fastest run against fastest run, less sensitive to load from other processes)')

  const extra = {}
  if (!longOnly && engineNames.length) {
    ceilings = tileCeilings(engineNames, DS, 1, ceilings)
    extra.ceiling = { ceilings, fractions: ceilingFractions(results, ceilings, log) }
    extra.phases = { n: 512, d: 64, engines: phaseProfile(enginesOf(pkg), 512, 64, log) }
  }

  // ---------- long input: n = 16384 without weights, in a fresh module ----------
  if (pkg.ap) {
    const n = 16384
    const r = spawnSync(
      process.execPath,
      [join(root, 'bench', 'long_run.mjs'), distDir, String(n), String(quick ? 1 : 3)],
      { encoding: 'utf8' },
    )
    const line = r.stdout.split('\n').find((l) => l.startsWith('{'))
    if (r.status === 0 && line) {
      const L = JSON.parse(line)
      const mem = L.memoryBytes
      extra.long = { ...L, gflops: (4 * n * n * L.d) / L.ms / 1e6 }
      log(
        `\nn = ${n}, d = ${L.d}, needWeights false (fresh module): ${L.ms.toFixed(0)} ms, ${extra.long.gflops.toFixed(1)} GFLOP/s, wasm memory ` +
          (mem === undefined
            ? 'n/a'
            : `${(mem / 2 ** 20).toFixed(1)} MiB after the call, ${(L.memoryBytesBefore / 2 ** 20).toFixed(1)} MiB before (${L.source}; goal ≤ 64 MiB: ${mem <= 64 * 2 ** 20 ? 'met' : 'NOT met'})`),
      )
    } else {
      log(`\nn = ${n}: failed — ${(r.stderr || r.stdout).trim().split('\n').slice(-3).join(' ')}`)
      extra.long = { error: r.stderr }
    }
  }

  // ---------- size and start-up ----------
  const wasmPath = join(distDir, 'attention.wasm')
  if (existsSync(wasmPath)) {
    const raw = readFileSync(wasmPath)
    const gz = gzipSync(raw, { level: 9 }).length
    extra.wasm = { bytes: raw.length, gzipBytes: gz }
    log(
      `\n${relative(root, wasmPath)}: ${(raw.length / 1024).toFixed(1)} KiB, gzip -9 ${(gz / 1024).toFixed(1)} KiB (budget ≤ ${WASM_GZIP_BUDGET} bytes: ${gz <= WASM_GZIP_BUDGET ? 'met' : 'NOT met'})`,
    )
  }
  if (existsSync(join(distDir, 'index.js'))) {
    // A fresh Node process each time: import + init() with nothing cached in the process.
    const script = `const t=performance.now();const {init}=await import(${JSON.stringify(pathToFileURL(join(distDir, 'index.js')).href)});await init();console.log(performance.now()-t)`
    const loads = []
    for (let i = 0; i < 5; i++) {
      const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })
      const v = parseFloat(r.stdout)
      if (r.status === 0 && Number.isFinite(v)) loads.push(v)
    }
    if (loads.length) {
      extra.nodeLoadInitMs = median(loads)
      log(`Node import + init(): median ${extra.nodeLoadInitMs.toFixed(1)} ms over ${loads.length} fresh processes`)
    }
  }

  const chromium = await chromiumLoadInit()
  if (chromium) {
    extra.chromium = chromium
    if (chromium.error) log(`Chromium load + init(): skipped — ${chromium.error}`)
    else
      log(
        `Chromium load + init() from localhost, cold cache: median ${chromium.sinceNavigationMs.toFixed(1)} ms from navigation start ` +
          `(import + init ${chromium.importInitMs.toFixed(1)} ms) over ${chromium.reps} fresh contexts (goal ≤ 100 ms: ${chromium.sinceNavigationMs <= 100 ? 'met' : 'NOT met'})`,
      )
  }

  const total = (performance.now() - t0All) / 1000
  log(
    `\nbench took ${total.toFixed(0)} s; load average now ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  )
  mkdirSync(dirname(jsonOut), { recursive: true })
  writeFileSync(
    jsonOut,
    JSON.stringify(
      {
        date: new Date().toISOString(),
        // what docs/benchmarks.md (scripts/bench-doc.mjs) says the numbers were measured on
        machine: machine(`Node ${process.version}`),
        quick,
        loadavg: os.loadavg(),
        results,
        summary,
        extra,
        native: native.rows ?? native.error,
      },
      null,
      1,
    ),
  )
  log(`results written to ${jsonOut}`)
  if (wrong.length) {
    log(
      `\nFAILED: ${wrong.length} result(s) differ from the reference by more than ${MAX_DIFF}:\n  ${wrong.join('\n  ')}`,
    )
    process.exitCode = 1
  }
}

// Our engines by backend name.
const enginesOf = (pkg) => ({ simd128: pkg.ap, ...(pkg.relaxed ? { 'relaxed-simd': pkg.relaxed } : {}) })

// Our fused kernels alone at n = 512 and 2048, non-causal, the engines taking turns in 9 rounds: rows shaped as
// the main table's, for the ceiling fractions of a --only run.
function fusedOnly(engines) {
  const names = { simd128: 'ours (fused, needWeights false)', 'relaxed-simd': 'ours relaxed-simd (fused)' }
  const out = []
  for (const d of DS)
    for (const n of [512, 2048]) {
      const t = (seed) => ({ data: rand(n * d, seed), shape: [n, d] })
      const opts = { query: t(1 + n + d), key: t(2 + n + d), value: t(3 + n + d), needWeights: false }
      const times = Object.fromEntries(Object.keys(engines).map((e) => [e, []]))
      for (const e of Object.values(engines)) for (let w = 0; w < 5; w++) e.attention(opts)
      for (let r = 0; r < 9; r++)
        for (const [name, e] of Object.entries(engines)) {
          const t0 = performance.now()
          e.attention(opts)
          times[name].push(performance.now() - t0)
        }
      const rows = Object.keys(engines).map((e) => ({
        impl: names[e],
        ms: median(times[e]),
        gflopDone: (4 * n * n * d) / 1e9,
      }))
      out.push({ n, d, causal: false, rows })
    }
  return out
}

// --only ceiling,phases: those sections alone (the fractions from our fused kernels timed here), merged into the
// JSON of the last full run.
async function sectionsOnly(pkg) {
  const prev = existsSync(jsonOut) ? JSON.parse(readFileSync(jsonOut, 'utf8')) : { results: [], extra: {} }
  const engines = enginesOf(pkg)
  log(
    `sections ${only.join(', ')}; load average ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  )
  if (only.includes('ceiling')) {
    // The ceiling before and after our fused kernels are timed here, the better of the two.
    let ceilings = tileCeilings(Object.keys(engines), DS)
    const fused = fusedOnly(engines)
    ceilings = tileCeilings(Object.keys(engines), DS, 1, ceilings)
    prev.extra.ceiling = { ceilings, fractions: ceilingFractions(fused, ceilings, log), date: new Date().toISOString() }
  }
  if (only.includes('phases')) {
    const n = Number(args.n)
    const d = Number(args.d)
    prev.extra.phases = { n, d, engines: phaseProfile(engines, n, d, log), date: new Date().toISOString() }
  }
  writeFileSync(jsonOut, JSON.stringify(prev, null, 1))
  log(`merged into ${jsonOut}`)
}

await main()
