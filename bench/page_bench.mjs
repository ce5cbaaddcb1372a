#!/usr/bin/env node
// Page benchmark, in Debian's Chromium over the built site/:
//   load: navigation start → engine ready (wasm fetched, compiled, init());
//   first render: mounting the playground with all panels for n tokens (n = 2000: pasting the text
//                 into the page, since a link holds at most 4,000 characters);
//   update: an input change (one word of the sentence replaced) → engine run + every panel redrawn
//           (the playground's own measure), and → the next painted frame (what a learner waits);
//   longest task: the longest main-thread task (PerformanceObserver 'longtask', ≥ 50 ms) during
//           an update, 0 when none reached 50 ms;
//   n = 2000 goes through the long view (web/compute/long-rows.ts): typing is debounced by 120 ms, which is part
//           of input→painted; "zoom→painted" is one click on the long view's zoom button.
// n = 8, 32, 128, 2000 tokens (word tokenizer: n words = n tokens); medians over several runs.
// Usage: node scripts/build.mjs --site && node bench/page_bench.mjs [--runs 15] [--sizes 8,32,128,2000]
// SITE_DIR=<dir> measures another build of the site (e.g. a copy of site/ from before a change, side by side).
// As a module: `const table = await runPageBench({ runs })` returns the printed table.
import { fileURLToPath } from 'node:url'
import { launchChromium, serveStatic, settled } from '../tests/e2e/harness.mjs'
import { cli } from './inputs.mjs'

/** @typedef {Window & { __apPlayground?: import('../web/playground').PlaygroundHandle }} PageWindow */

const WORDS = (
  'the animal did not cross street because it was too tired a cat sat on mat dog ran fast over lazy fox ' +
  'bird sang song tree river flowed under bridge light morning came early'
).split(' ')

const sentence = (n, salt = 0) =>
  Array.from({ length: n }, (_, i) => WORDS[(i * 7 + salt * 3 + (i >> 3)) % WORDS.length]).join(' ')
const median = (xs) => {
  if (!xs.length) return NaN
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

/** Types `text` into the sentence box; resolves with the playground's own time, input→painted and the longest task. */
function typeText(page, text) {
  return page.evaluate(
    (text) =>
      new Promise((resolve) => {
        const area = /** @type {HTMLTextAreaElement} */ (document.querySelector('textarea[name="text"]'))
        const tasks = []
        const obs = new PerformanceObserver((l) => {
          for (const e of l.getEntries()) tasks.push(e.duration)
        })
        obs.observe({ type: 'longtask' })
        const t0 = performance.now()
        document.addEventListener(
          'ap-render',
          (/** @type {CustomEvent<{ ms: number, long: boolean }>} */ e) => {
            const ms = e.detail.ms
            // The frame after the render is the first one that shows it (the long view draws in it too).
            requestAnimationFrame(() =>
              requestAnimationFrame(() => {
                const painted = performance.now() - t0
                // Long tasks are reported after they end: give the observer a moment.
                setTimeout(() => {
                  obs.disconnect()
                  resolve({ ms, painted, longest: Math.max(0, ...tasks), long: !!e.detail.long })
                }, 30)
              }),
            )
          },
          { once: true },
        )
        area.value = text
        area.dispatchEvent(new Event('input', { bubbles: true }))
      }),
    text,
  )
}

/** @param {{ runs?: number, sizes?: number[], log?: (s: string) => void }} [opts] */
export async function runPageBench(opts = {}) {
  const RUNS = opts.runs ?? 15
  const SIZES = opts.sizes ?? [8, 32, 128, 2000]
  const server = await serveStatic(process.env.SITE_DIR || undefined)
  const session = await launchChromium()
  const rows = []
  try {
    for (const n of SIZES) {
      const pasted = n > 320
      const load = [],
        first = [],
        update = [],
        painted = [],
        longest = [],
        zoom = []
      for (let r = 0; r < Math.max(3, Math.round(RUNS / 3)); r++) {
        const page = await session.browser.newPage({ viewport: { width: 1400, height: 1000 } })
        await page.goto(
          pasted
            ? `${server.url}?tokenizer=word`
            : `${server.url}?tokenizer=word&text=${encodeURIComponent(sentence(n))}`,
        )
        await page.waitForFunction(() => performance.getEntriesByName('ap-mounted').length > 0, null, {
          timeout: 60000,
        })
        const m = await page.evaluate(() => {
          const at = (name) => performance.getEntriesByName(name)[0].startTime
          return { load: at('ap-init-end'), first: at('ap-mounted') - at('ap-init-end') }
        })
        load.push(m.load)
        if (pasted) {
          await settled(page)
          first.push((await typeText(page, sentence(n))).painted)
        } else {
          first.push(m.first)
        }
        if (r === 0) {
          await settled(page)
          for (let k = 0; k < RUNS; k++) {
            const res = await typeText(page, sentence(n, k + 1))
            update.push(res.ms)
            painted.push(res.painted)
            longest.push(res.longest)
            if (pasted !== res.long) throw new Error(`n = ${n}: expected the ${pasted ? 'long' : 'normal'} view`)
          }
          const tokens = await page.evaluate(
            () => /** @type {PageWindow} */ (window).__apPlayground?.getTrace()?.tokens.length,
          )
          if (tokens !== n) throw new Error(`expected ${n} tokens on the page, found ${tokens}`)
          if (pasted) {
            for (let k = 0; k < Math.min(RUNS, 8); k++) {
              const ms = await page.evaluate(
                (inward) =>
                  new Promise((resolve) => {
                    const b = /** @type {HTMLButtonElement} */ (
                      document.querySelector(`[data-panel="long"] button[name="${inward ? 'zoomIn' : 'zoomOut'}"]`)
                    )
                    const t0 = performance.now()
                    b.click()
                    // The view redraws in the next frame; the one after shows it.
                    requestAnimationFrame(() => requestAnimationFrame(() => resolve(performance.now() - t0)))
                  }),
                k % 2 === 0,
              )
              zoom.push(ms)
            }
          }
        }
        await page.close()
      }
      rows.push({
        n,
        load: median(load),
        first: median(first),
        update: median(update),
        painted: median(painted),
        longest: median(longest),
        maxLongest: Math.max(...longest),
        zoom: median(zoom),
        runs: update.length,
      })
    }
  } finally {
    await session.close()
    await server.close()
  }

  const f = (x) => (Number.isFinite(x) ? x.toFixed(1) : '—').padStart(8)
  const lines = [
    `page benchmark — Chromium (Debian), medians; update aim: < 16 ms for n ≤ 128; no task ≥ 50 ms on input`,
    '     n   load+init ms   first render ms   update ms (run+draw)   input→painted ms   longest task ms (median / max)   zoom→painted ms   runs',
    ...rows.map(
      (r) =>
        `${String(r.n).padStart(6)}   ${f(r.load)}       ${f(r.first)}          ${f(r.update)}               ${f(r.painted)}             ${f(r.longest)} / ${f(r.maxLongest)}          ${f(r.zoom)}      ${r.runs}`,
    ),
  ]
  if (rows.some((r) => r.n > 320)) {
    lines.push(
      'n > 320: the long view (no n×n matrix); its input→painted includes the 120 ms typing debounce; first render = paste→painted.',
    )
  }
  const table = lines.join('\n')
  opts.log?.(table)
  return table
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = cli(
    { runs: { type: 'string' }, sizes: { type: 'string' } },
    'node bench/page_bench.mjs [--runs N] [--sizes 4,64,…]',
  )
  const runs = args.runs ? Number(args.runs) : undefined
  const sizes = args.sizes?.split(',').map(Number)
  await runPageBench({ runs, sizes, log: (s) => console.log(s) })
}
