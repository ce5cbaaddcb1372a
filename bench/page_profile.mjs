#!/usr/bin/env node
// Where the page's update time goes at n tokens: Chromium's sampling profiler (CDP) over repeated input
// changes, self time summed per function and per source file. Usage: node bench/page_profile.mjs [--n 128] [--runs 30]
// For function names, profile an unminified build of the site (an absolute outDir: Vite's root is web/):
//   node node_modules/vite/bin/vite.js build --minify false --outDir $PWD/build/site-profile && SITE_DIR=$PWD/build/site-profile node bench/page_profile.mjs
import { fileURLToPath } from 'node:url'
import { CHROMIUM, launchChromium, serveStatic, settled } from '../tests/e2e/harness.mjs'
import { cli } from './inputs.mjs'

const args = cli(
  { n: { type: 'string', default: '128' }, runs: { type: 'string', default: '30' } },
  'node bench/page_profile.mjs [--n 128] [--runs 30]',
)
const N = Number(args.n),
  RUNS = Number(args.runs)
const WORDS = 'the animal did not cross street because it was too tired a cat sat on mat dog ran fast'.split(' ')
const sentence = (n, salt) =>
  Array.from({ length: n }, (_, i) => WORDS[(i * 7 + salt * 3 + (i >> 3)) % WORDS.length]).join(' ')

export async function profileUpdates(n = N, runs = RUNS) {
  const server = await serveStatic(process.env.SITE_DIR || undefined)
  const session = await launchChromium(CHROMIUM)
  try {
    const page = await session.browser.newPage({ viewport: { width: 1400, height: 1000 } })
    await page.goto(`${server.url}?tokenizer=word&text=${encodeURIComponent(sentence(n, 0))}`)
    await page.waitForFunction(() => performance.getEntriesByName('ap-mounted').length > 0, null, { timeout: 60000 })
    await settled(page)
    const cdp = await page.context().newCDPSession(page)
    await cdp.send('Profiler.enable')
    await cdp.send('Profiler.setSamplingInterval', { interval: 100 })
    await cdp.send('Profiler.start')
    const ms = []
    for (let k = 0; k < runs; k++) {
      ms.push(
        await page.evaluate(
          (text) =>
            new Promise((resolve) => {
              document.addEventListener(
                'ap-render',
                (/** @type {CustomEvent<{ ms: number, computeMs: number }>} */ e) =>
                  resolve({ ms: e.detail.ms, computeMs: e.detail.computeMs }),
                { once: true },
              )
              const area = /** @type {HTMLTextAreaElement} */ (document.querySelector('textarea[name="text"]'))
              area.value = text
              area.dispatchEvent(new Event('input', { bubbles: true }))
            }),
          sentence(n, k + 1),
        ),
      )
    }
    const { profile } = await cdp.send('Profiler.stop')
    const byFn = new Map(),
      byFile = new Map()
    const dt = new Map()
    for (let i = 0; i < profile.samples.length; i++)
      dt.set(profile.samples[i], (dt.get(profile.samples[i]) ?? 0) + profile.timeDeltas[i] / 1000)
    for (const node of profile.nodes) {
      const t = dt.get(node.id) ?? 0
      if (!t) continue
      const f = node.callFrame
      const file = f.url.split('/').pop() || '(native)'
      const name = `${f.functionName || '(anonymous)'} ${file}:${f.lineNumber + 1}`
      byFn.set(name, (byFn.get(name) ?? 0) + t / runs)
      byFile.set(file, (byFile.get(file) ?? 0) + t / runs)
    }
    const med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1]
    console.log(
      `n = ${n}: update (compute + draw) median ${med(ms.map((m) => m.ms)).toFixed(1)} ms, of which the engine run ${med(ms.map((m) => m.computeMs)).toFixed(1)} ms (${runs} updates)`,
    )
    console.log('self time per update, by file:')
    for (const [k, v] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, 10))
      console.log(`  ${v.toFixed(2).padStart(7)} ms  ${k}`)
    console.log('by function:')
    for (const [k, v] of [...byFn].sort((a, b) => b[1] - a[1]).slice(0, 25))
      console.log(`  ${v.toFixed(2).padStart(7)} ms  ${k}`)
  } finally {
    await session.close()
    await server.close()
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await profileUpdates()
