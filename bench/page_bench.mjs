#!/usr/bin/env node
// Page benchmark (issue 3 item 9), in Debian's Chromium over the built site/:
//   load: navigation start → engine ready (wasm fetched, compiled, init());
//   first render: mounting the playground with all panels for n tokens;
//   update: an input change (one word of the sentence replaced) → engine run + every panel redrawn
//           (the playground's own measure), and → the next painted frame (what a learner waits).
// n = 8, 32, 128 tokens (word tokenizer: n words = n tokens); medians over several runs.
// Usage: npx vite build && node bench/page_bench.mjs [--runs 15]
import { launchChromium, serveStatic, settled } from '../tests/e2e/harness.mjs'

const runsArg = process.argv.indexOf('--runs')
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 15
const SIZES = [8, 32, 128]
const WORDS = ('the animal did not cross street because it was too tired a cat sat on mat dog ran fast over lazy fox ' +
  'bird sang song tree river flowed under bridge light morning came early').split(' ')

const sentence = (n, salt = 0) => Array.from({ length: n }, (_, i) => WORDS[(i * 7 + salt * 3 + (i >> 3)) % WORDS.length]).join(' ')
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2 }

const server = await serveStatic()
const session = await launchChromium()
const rows = []
try {
  for (const n of SIZES) {
    const load = [], first = [], update = [], painted = []
    for (let r = 0; r < Math.max(3, Math.round(RUNS / 3)); r++) {
      const page = await session.browser.newPage({ viewport: { width: 1400, height: 1000 } })
      await page.goto(`${server.url}?tokenizer=word&text=${encodeURIComponent(sentence(n))}`)
      await page.waitForFunction(() => performance.getEntriesByName('ap-mounted').length > 0, null, { timeout: 30000 })
      const m = await page.evaluate(() => {
        const at = (name) => performance.getEntriesByName(name)[0].startTime
        return { load: at('ap-init-end'), first: at('ap-mounted') - at('ap-init-end') }
      })
      load.push(m.load)
      first.push(m.first)
      if (r === 0) {
        await settled(page)
        for (let k = 0; k < RUNS; k++) {
          const res = await page.evaluate((text) => new Promise((resolve) => {
            const area = document.querySelector('textarea[name="text"]')
            const t0 = performance.now()
            let ms = 0
            document.addEventListener('ap-rendered', (e) => {
              ms = e.detail.ms
              // the frame after the render is the first one that shows it
              requestAnimationFrame(() => resolve({ ms, painted: performance.now() - t0 }))
            }, { once: true })
            area.value = text
            area.dispatchEvent(new Event('input', { bubbles: true }))
          }), sentence(n, k + 1))
          update.push(res.ms)
          painted.push(res.painted)
        }
        const tokens = await page.locator('[data-panel="tokens"] .tok').count()
        if (tokens !== n) throw new Error(`expected ${n} tokens on the page, found ${tokens}`)
      }
      await page.close()
    }
    rows.push({ n, load: median(load), first: median(first), update: median(update), painted: median(painted), runs: update.length })
  }
} finally {
  await session.close()
  await server.close()
}

const f = (x) => x.toFixed(1).padStart(8)
console.log(`page benchmark — Chromium ${process.env.CHROMIUM_VERSION ?? '(Debian)'}, medians; update aim: < 16 ms for n ≤ 32`)
console.log('     n   load+init ms   first render ms   update ms (run+draw)   input→painted ms   runs')
for (const r of rows) {
  console.log(`${String(r.n).padStart(6)}   ${f(r.load)}       ${f(r.first)}          ${f(r.update)}               ${f(r.painted)}        ${r.runs}`)
}
