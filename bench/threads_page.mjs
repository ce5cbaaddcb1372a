#!/usr/bin/env node
// 2 threads ÷ 1 in headless Chromium on a cross-origin isolated page that runs only our threaded engine (no peers'
// scripts, no other workers): the issue's measure of whether threads pay in the browser. The two thread counts take
// turns round by round in the same module (load from other processes then falls on both alike); medians, the ratio
// of the medians, and the load average before and after are printed. Short on purpose (seconds).
//
// --record appends the run to bench/results/threads.json (the runs docs/benchmarks.md's issue-28 goals read).
//
// --cpu prints instead how the CPU time of ~3 s of 2-thread calls splits between the page's thread and the worker.
//
// --trace runs the same rounds on an engine built with the kernels' bench-only trace (-DAP_THREAD_TRACE, built into
// build/wasm-threads-trace when stale, a copy of dist/ with it in build/bench/dist-trace) and prints, over the
// 2-thread calls, distributions of when the worker started, how many blocks each thread took and its time per block.
//
//   node bench/threads_page.mjs [--n 2048] [--d 64] [--rounds 15] [--causal] [--record] [--cpu] [--trace]
import { execFileSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { CHROMIUM, launchChromium } from '../tests/e2e/harness.mjs'
import { serve } from '../scripts/serve.mjs'
import { cli, median, rand } from './inputs.mjs'
import { EMCMAKE_FLAGS, plainPath, relaxedEnv, threadGlue } from '../scripts/toolchain.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const args = cli(
  {
    n: { type: 'string', default: '2048' },
    d: { type: 'string', default: '64' },
    rounds: { type: 'string', default: '15' },
    causal: { type: 'boolean', default: false },
    record: { type: 'boolean', default: false },
    trace: { type: 'boolean', default: false },
    cpu: { type: 'boolean', default: false },
  },
  'node bench/threads_page.mjs [--n 2048] [--d 64] [--rounds 15] [--causal] [--record | --cpu | --trace]',
)
const n = Number(args.n)
const d = Number(args.d)
const rounds = Number(args.rounds)
const { causal, record, trace } = args
const runsFile = join(root, 'bench/results/threads.json')

const PAGE = `<!doctype html><meta charset="utf-8"><title>threads bench</title>
<script type="module">
import { init } from '/__DIST__/index.js'
${median.toString()}
${rand.toString()}
window.run = async ({ n, d, rounds, causal }) => {
  const e = await init({ threads: 2 })
  const t0 = performance.now()
  e.warmUp()
  const warmMs = performance.now() - t0
  const t = (seed) => ({ data: rand(n * d, seed), shape: [n, d] })
  const opts = { query: t(1), key: t(2), value: t(3), mask: causal ? 'causal' : 'none', needWeights: false }
  const first = {}
  const times = { 1: [], 2: [] }
  for (const k of [2, 1]) { e.setThreads(k); const s = performance.now(); e.attention(opts); first[k] = performance.now() - s }
  for (let r = 0; r < rounds; r++)
    for (const k of r % 2 ? [1, 2] : [2, 1]) {
      e.setThreads(k)
      const s = performance.now()
      e.attention(opts)
      times[k].push(performance.now() - s)
    }
  const out = { backend: e.backend, threads: e.threads, warmMs, first, ms1: median(times[1]), ms2: median(times[2]), min1: Math.min(...times[1]), min2: Math.min(...times[2]) }
  e.dispose?.()
  return out
}
// Only 2-thread calls for about \`ms\` milliseconds (the per-thread CPU times are read from /proc around it).
window.busy = async ({ n, d, ms }) => {
  const e = await init({ threads: 2 })
  e.warmUp()
  const t = (seed) => ({ data: rand(n * d, seed), shape: [n, d] })
  const opts = { query: t(1), key: t(2), value: t(3), needWeights: false }
  e.setThreads(2)
  e.attention(opts)
  await new Promise((r) => setTimeout(r, 100))
  const s = performance.now()
  let calls = 0
  while (performance.now() - s < ms) { e.attention(opts); calls++ }
  return { calls, wallMs: performance.now() - s }
}
window.__ready = true
</script>`

// --cpu: where the CPU time of 2-thread calls goes, per thread of the page's renderer process (Linux /proc): the
// page's main thread against the pool's worker, their nice values, and the CPU time each got during ~3 s of calls.
// Equal CPU times with unequal work would mean slower code in the worker; unequal CPU times, the scheduler.
function rendererThreads() {
  const out = []
  for (const pid of readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    let cmd
    try {
      cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
    } catch {
      continue
    }
    if (!cmd.includes('--type=renderer')) continue
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const st = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')
        const name = st.slice(st.indexOf('(') + 1, st.lastIndexOf(')'))
        const f = st.slice(st.lastIndexOf(')') + 2).split(' ')
        // fields after the name: state(0) … utime(11) stime(12) … priority(15) nice(16)
        out.push({ pid, tid, name, cpuTicks: Number(f[11]) + Number(f[12]), nice: Number(f[16]) })
      } catch {
        // the thread ended
      }
    }
  }
  return out
}

async function cpuShares(page) {
  const before = rendererThreads()
  const r = await page.evaluate((c) => /** @type {any} */ (window).busy(c), { n, d, ms: 3000 })
  const after = rendererThreads()
  const tick = 100 // USER_HZ
  console.log(
    `${r.calls} two-thread calls, n = ${n}, d = ${d}, in ${r.wallMs.toFixed(0)} ms; load ${os.loadavg()[0].toFixed(2)}`,
  )
  // The scheduler's group (Linux autogroup: one per session; the browser's processes share one, so a second
  // thread adds no CPU share when other groups keep the cores busy).
  const ours = after.find((a) => a.name.startsWith('DedicatedWorker'))?.pid
  if (ours)
    console.log(
      `  renderer ${ours}: ${readFileSync(`/proc/${ours}/autogroup`, 'utf8').trim()}; this script: ${readFileSync('/proc/self/autogroup', 'utf8').trim()}`,
    )
  for (const a of after) {
    if (ours && a.pid !== ours) continue
    const b = before.find((x) => x.tid === a.tid)
    const ms = ((a.cpuTicks - (b?.cpuTicks ?? 0)) * 1000) / tick
    if (ms >= 50)
      console.log(`  ${a.name.padEnd(20)} pid ${a.pid} tid ${a.tid}: ${ms.toFixed(0)} ms of CPU (nice ${a.nice})`)
  }
}

// --trace: the threaded engine with the trace compiled in (rebuilt when its sources are newer), beside dist/'s package.
function traceDist() {
  const dir = 'build/wasm-threads-trace'
  const wasm = join(root, dir, 'attention.wasm')
  const newest = (p) =>
    statSync(p).isDirectory() ? Math.max(...readdirSync(p).map((e) => newest(join(p, e)))) : statSync(p).mtimeMs
  if (
    !existsSync(wasm) ||
    statSync(wasm).mtimeMs < Math.max(...['src/core', 'src/kernels', 'src/bindings'].map((p) => newest(join(root, p))))
  ) {
    const env = { ...process.env, PATH: plainPath(), ...relaxedEnv() }
    const sh = (cmd, a) => execFileSync(cmd, a, { cwd: root, stdio: 'inherit', env })
    sh('emcmake', [
      'cmake',
      '-S',
      '.',
      '-B',
      dir,
      '-DCMAKE_BUILD_TYPE=Release',
      ...EMCMAKE_FLAGS,
      '-DAP_RELAXED_SIMD=ON',
      '-DAP_THREADS=ON',
      '-DCMAKE_CXX_FLAGS=-DAP_THREAD_TRACE',
    ])
    sh('cmake', ['--build', dir, '--target', 'attention', '-j', '2'])
  }
  const out = join(root, 'build/bench/dist-trace')
  rmSync(out, { recursive: true, force: true })
  cpSync(join(root, 'dist'), out, { recursive: true })
  cpSync(wasm, join(out, 'attention-threads.wasm'))
  cpSync(join(root, dir, 'attention.worker.js'), join(out, 'attention-threads.worker.js'))
  writeFileSync(
    join(out, 'attention-threads.js'),
    threadGlue(readFileSync(join(root, dir, 'attention.js'), 'utf8'), 'attention-threads'),
  )
  return 'build/bench/dist-trace'
}

// The TRACE lines of the 2-thread calls (kernels.cpp, AP_THREAD_TRACE) as distributions: min, quartiles, max.
/** @param {string[]} lines @param {number} ms2 the 2-thread calls' median */
function printTraces(lines, ms2) {
  const calls = lines
    .map((l) => {
      const parts = l
        .split(' | ')
        .slice(1)
        .map((p) => Object.fromEntries([...p.matchAll(/([a-zA-Z]+) (-?[\d.]+)/g)].map((m) => [m[1], Number(m[2])])))
      return { ms: Number(/ ms (-?[\d.]+)/.exec(l)[1]), prepare: Number(/ prepare (-?[\d.]+)/.exec(l)[1]), parts }
    })
    .filter((c) => c.parts.length === 2)
  const dist = (f) => {
    const a = calls.map(f).sort((x, y) => x - y)
    const at = (q) => a[Math.min(a.length - 1, Math.floor(q * a.length))].toFixed(2)
    return `${at(0)} / ${at(0.25)} / ${at(0.5)} / ${at(0.75)} / ${at(1)}`
  }
  const [p, w] = [0, 1]
  console.log(
    `  trace of ${calls.length} two-thread calls (min / p25 / median / p75 / max; ms from the split's start):`,
  )
  /** @type {[string, (c: { ms: number, prepare: number, parts: Record<string, number>[] }) => number][]} */
  const rows = [
    ['before the split (scratch, packing K)', (c) => c.prepare],
    ['the split (all blocks)', (c) => c.ms],
    ["worker's first block starts", (c) => c.parts[w].first],
    ['blocks taken before it (by the page)', (c) => c.parts[w].firstIndex],
    ["page's thread: blocks", (c) => c.parts[p].blocks],
    ['worker: blocks', (c) => c.parts[w].blocks],
    ["page's thread: ms a block", (c) => c.parts[p].busy / Math.max(1, c.parts[p].blocks)],
    ['worker: ms a block', (c) => c.parts[w].busy / Math.max(1, c.parts[w].blocks)],
    ['wait after the last block', (c) => c.ms - Math.max(c.parts[p].last, c.parts[w].last)],
  ]
  for (const [name, f] of rows) console.log(`    ${name.padEnd(38)} ${dist(f)}`)
  const split = calls.map((c) => c.ms).sort((x, y) => x - y)[calls.length >> 1]
  console.log(
    `    outside the split (medians: call − split) ${(ms2 - split).toFixed(2)} ms, on the page's thread alone`,
  )
}

mkdirSync(join(root, 'build/bench'), { recursive: true })
writeFileSync(join(root, 'build/bench/threads.html'), PAGE.replace('__DIST__', trace ? traceDist() : 'dist'))
const server = await serve({ root })
const { browser } = await launchChromium(CHROMIUM)
try {
  const load0 = os.loadavg()
  const page = await browser.newPage()
  const traces = []
  page.on('console', (m) => m.text().startsWith('TRACE') && traces.push(m.text()))
  await page.goto(`http://127.0.0.1:${server.port}/build/bench/threads.html`)
  await page.waitForFunction(() => /** @type {any} */ (window).__ready === true)
  if (args.cpu) {
    await cpuShares(page)
    process.exit(0)
  }
  const r = await page.evaluate((c) => /** @type {any} */ (window).run(c), { n, d, rounds, causal })
  const load1 = os.loadavg()
  const res = {
    n,
    d,
    causal,
    rounds,
    browser: browser.version(),
    loadBefore: load0,
    loadAfter: load1,
    ...r,
    ratio: r.ms1 / r.ms2,
  }
  console.log(
    `Chromium ${browser.version()}, our threaded engine alone (${r.backend}), n = ${n}, d = ${d}, causal ${causal ? 'on' : 'off'}, ${rounds} interleaved rounds`,
  )
  console.log(
    `  warmUp ${r.warmMs.toFixed(1)} ms; first call 2T ${r.first[2].toFixed(1)} ms, 1T ${r.first[1].toFixed(1)} ms`,
  )
  console.log(
    `  1 thread: median ${r.ms1.toFixed(2)} ms (min ${r.min1.toFixed(2)}); 2 threads: median ${r.ms2.toFixed(2)} ms (min ${r.min2.toFixed(2)})`,
  )
  console.log(`  2 threads ÷ 1 = ${res.ratio.toFixed(2)}×   load ${load0[0].toFixed(2)} → ${load1[0].toFixed(2)}`)
  if (trace) printTraces(traces, r.ms2)
  if (record && !trace) {
    const runs = existsSync(runsFile) ? JSON.parse(readFileSync(runsFile, 'utf8')) : []
    runs.push({ date: new Date().toISOString(), ...res })
    writeFileSync(runsFile, JSON.stringify(runs, null, 1) + '\n')
  }
} finally {
  await browser.close()
  await server.close()
}
