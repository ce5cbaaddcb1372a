// Two sections of `npm run bench` (bench/run.mjs) that look under the package at its kernels, through the kernel
// harness (bench/wasm_harness, built per engine with the package's flags):
// - the ceiling: each engine's register tiles alone on cache-resident data (what the machine gives that tile right
//   now), and each kernel's GFLOP/s in the main table as a fraction of it;
// - the per-phase profile of one fused call (default n = 512, d = 64): packing K and V, the tail block, the softmax, the
//   register tiles, and what the package adds around the kernel (the JS/wasm copies, checks, set-up).
import os from 'node:os'
import { harnessBuild, harnessCall } from './kernel_harness.mjs'
import { median, rand } from './inputs.mjs'

const pct = (x) => `${(100 * x).toFixed(1)} %`.padStart(8)
const load = () => os.loadavg()[0].toFixed(2)
export const harnessOf = (engine) => harnessBuild({ relaxed: engine === 'relaxed-simd', name: engine })

/**
 * Each engine's ceiling per d: the better of `times` measurements (the tile's best under this machine's load).
 * @param {string[]} engines  'simd128', 'relaxed-simd'
 * @param {number[]} ds
 */
export function tileCeilings(engines, ds, times = 1, previous = {}) {
  const out = structuredClone(previous)
  for (const e of engines) {
    const h = harnessOf(e)
    out[e] ??= {}
    for (const d of ds)
      for (let k = 0; k < times; k++) {
        const c = { ...harnessCall(h, `ceiling(${d})`), load: os.loadavg()[0] }
        if (!(out[e][d]?.gflops >= c.gflops)) out[e][d] = c
      }
  }
  return out
}

/** The engine of a row of the main table ('ours (fused…' is SIMD128), or null for a peer. */
const engineOf = (impl) =>
  impl.startsWith('ours relaxed') ? 'relaxed-simd' : impl.startsWith('ours') ? 'simd128' : null

/**
 * Each of our rows' GFLOP/s (the flops it did: causal fused rows skip the masked half) ÷ its engine's ceiling at
 * that d; printed as a table and returned as rows for the JSON.
 */
export function ceilingFractions(results, ceilings, log) {
  const rows = []
  for (const c of results)
    for (const r of c.rows) {
      const e = engineOf(r.impl)
      const cl = e && ceilings[e]?.[c.d]
      if (!cl || r.failed || !Number.isFinite(r.ms)) continue
      const done = (r.gflopDone * 1e9) / (r.ms * 1e6)
      rows.push({
        n: c.n,
        d: c.d,
        causal: c.causal,
        impl: r.impl,
        engine: e,
        gflops: done,
        ceiling: cl.gflops,
        fraction: done / cl.gflops,
      })
    }
  log("\nthe register tile alone on cache-resident data (each engine's ceiling), and each kernel as a fraction of it")
  for (const [e, byD] of Object.entries(ceilings))
    for (const [d, cl] of Object.entries(byD))
      log(
        `  ${e} ${cl.tile_rows}×8 tile, d = ${d}: ${cl.gflops.toFixed(1)} GFLOP/s (QKᵀ tile ${cl.qk_gflops.toFixed(1)}, ` +
          `P·V tile ${cl.pv_gflops.toFixed(1)}; load ${cl.load.toFixed(2)})`,
      )
  log(
    `  ${'n'.padStart(6)}${'d'.padStart(5)}${'causal'.padStart(8)}  ${'implementation'.padEnd(36)}${'GFLOP/s done'.padStart(13)}${'÷ ceiling'.padStart(11)}`,
  )
  for (const r of rows)
    log(
      `  ${String(r.n).padStart(6)}${String(r.d).padStart(5)}${(r.causal ? 'on' : 'off').padStart(8)}  ${r.impl.padEnd(36)}` +
        `${r.gflops.toFixed(1).padStart(13)}${pct(r.fraction).padStart(11)}`,
    )
  log('  (goal for SIMD128: ≥ 85 % of its ceiling)')
  return rows
}

/**
 * The per-phase profile of one fused, non-causal call at n × d on each engine: `rounds` rounds, each timing the
 * package's attention() (`calls` calls, the fastest) and then the harness's phases in a fresh process; medians over
 * rounds.
 * @param {Record<string, { attention: (o: object) => { output: { data: Float32Array } } }>} engines  by backend name
 */
export function phaseProfile(engines, n, d, log, rounds = 5, calls = 15) {
  const t = (data) => ({ data, shape: [n, d] })
  const opts = {
    query: t(rand(n * d, 11)),
    key: t(rand(n * d, 12)),
    value: t(rand(n * d, 13)),
    score: 'scaled-dot',
    needWeights: false,
  }
  // The bytes the package copies across the boundary (Q, K, V in; the output out), copied in JS alone.
  const heap = new Float32Array(4 * n * d)
  const copy = () => {
    heap.set(opts.query.data, 0)
    heap.set(opts.key.data, n * d)
    heap.set(opts.value.data, 2 * n * d)
    return heap.slice(3 * n * d)
  }
  const out = {}
  for (const [name, engine] of Object.entries(engines)) {
    const h = harnessOf(name)
    const s = { pkg: [], copy: [], phases: [] }
    for (let c = 0; c < 40; c++) engine.attention(opts)
    for (let r = 0; r < rounds; r++) {
      // The fastest of `calls`: a call of a few ms is preempted by the machine's other load often enough that its
      // median swings by 2-3× between minutes; the harness's kernel (a fresh process, median) swings much less.
      const time = (f) =>
        Math.min(
          ...Array.from({ length: calls }, () => {
            const t0 = performance.now()
            f()
            return performance.now() - t0
          }),
        )
      s.pkg.push(time(() => engine.attention(opts)))
      s.copy.push(time(copy))
      s.phases.push(harnessCall(h, `phases(${n}, ${d}, ${calls})`))
    }
    const ph = (k) => median(s.phases.map((p) => p[k]))
    const total = median(s.pkg)
    const kernel = ph('flash_ms')
    const p = {
      total,
      kernel,
      pack: ph('pack_ms'),
      tail: ph('tail_ms'),
      tailRows: s.phases[0].tail_rows,
      softmax: ph('softmax_ms'),
      copy: median(s.copy),
      load: os.loadavg()[0],
    }
    p.tiles = kernel - p.pack - p.tail - p.softmax
    p.outside = total - kernel
    out[name] = p
    log(
      `\nwhere one fused call goes, ${name}, n = ${n}, d = ${d}, non-causal, one thread (medians of ${rounds} rounds of: the package's fastest of ${calls} calls, the harness's median; load ${load()})`,
    )
    log(`  attention() in the package   ${p.total.toFixed(3).padStart(8)} ms  100.0 %`)
    const line = (label, ms) => log(`  ${label.padEnd(29)}${ms.toFixed(3).padStart(8)} ms${pct(ms / total)}`)
    line('  the kernel (harness)', kernel)
    line('    packing K (and V: SIMD128)', p.pack)
    line(`    tail block (${p.tailRows} rows)`, p.tail)
    line('    softmax (exp of each score)', p.softmax)
    line('    register tiles (the rest)', p.tiles)
    if (p.outside < 0)
      // the harness's median call slower than the package's fastest: the machine's load, not a negative cost
      log(
        `  outside the kernel: not measurable at load ${load()} (the harness's median exceeds the package's fastest call)`,
      )
    else line('  outside the kernel', p.outside)
    line('    of which the copies (in JS)', p.copy)
  }
  return out
}
