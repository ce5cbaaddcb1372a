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
//   node bench/threads_page.mjs [--n 2048] [--d 64] [--rounds 15] [--causal] [--record] [--cpu]
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { launchChromium } from '../tests/e2e/harness.mjs'
import { serve } from '../scripts/serve.mjs'
import { rand } from './inputs.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const argv = process.argv.slice(2)
const arg = (name, def) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : def)
const n = arg('--n', 2048)
const d = arg('--d', 64)
const rounds = arg('--rounds', 15)
const causal = argv.includes('--causal')
const record = argv.includes('--record')
const runsFile = join(root, 'bench/results/threads.json')

const PAGE = `<!doctype html><meta charset="utf-8"><title>threads bench</title>
<script type="module">
import { init } from '/dist/index.js'
const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1]
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

mkdirSync(join(root, 'build/bench'), { recursive: true })
writeFileSync(join(root, 'build/bench/threads.html'), PAGE)
const server = await serve(root, 0)
const { browser } = await launchChromium(process.env.CHROMIUM ?? '/usr/bin/chromium')
try {
  const load0 = os.loadavg()
  const page = await browser.newPage()
  await page.goto(`http://127.0.0.1:${server.address().port}/build/bench/threads.html`)
  await page.waitForFunction(() => /** @type {any} */ (window).__ready === true)
  if (argv.includes('--cpu')) {
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
  if (record) {
    const runs = existsSync(runsFile) ? JSON.parse(readFileSync(runsFile, 'utf8')) : []
    runs.push({ date: new Date().toISOString(), ...res })
    writeFileSync(runsFile, JSON.stringify(runs, null, 1) + '\n')
  }
} finally {
  await browser.close()
  server.close()
}
