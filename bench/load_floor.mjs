#!/usr/bin/env node
// Where the page's load + init() (issue 38 item 4: ≤ 100 ms from navigation start) goes, in Debian's Chromium, fresh
// contexts (cold cache), the pages taking turns in every round; milestones in ms from navigation start, medians:
//   blank    an empty page's first (inline) script: what Chromium takes before any script of ours can run;
//   compile  the same, then WebAssembly.compileStreaming of the relaxed-SIMD engine's .wasm (preloaded): the
//            earliest an engine could be compiled;
//   package  the package from dist/ (its ES modules as published, modulepreload for the facade and the glue, the
//            wasm preloaded) imported by a module script, then init();
//   page     the built site (site/, `?lang=en`): ap-init-start, ap-init-end (load + init()), ap-mounted.
// A diagnostic, not part of `npm run bench` (bench/page_bench.mjs measures the goal); docs/perf-notes.md has a run.
//
//   node scripts/build.mjs --site && node bench/load_floor.mjs [--rounds 15]
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { CHROMIUM, ROOT, SITE, launchChromium } from '../tests/e2e/harness.mjs'
import { serve } from '../scripts/serve.mjs'
import { cli, median } from './inputs.mjs'

const args = cli({ rounds: { type: 'string', default: '15' } }, 'node bench/load_floor.mjs [--rounds 15]')
const rounds = Number(args.rounds)

const dir = join(ROOT, 'build/bench/load-floor')
rmSync(dir, { recursive: true, force: true })
mkdirSync(dir, { recursive: true })
cpSync(join(ROOT, 'dist'), join(dir, 'pkg'), { recursive: true, filter: (f) => !f.includes('/widget') })
const WASM = '/pkg/attention-relaxed.wasm'
const head = (extra = '') =>
  `<!doctype html><html><head><meta charset="utf-8"><title>load floor</title>${extra}</head><body>`
const preload = `<link rel="preload" href="${WASM}" as="fetch" type="application/wasm" crossorigin>`
writeFileSync(join(dir, 'blank.html'), `${head()}<script>performance.mark('first-script')</script></body></html>`)
writeFileSync(
  join(dir, 'compile.html'),
  `${head(preload)}<script>performance.mark('first-script')
WebAssembly.compileStreaming(fetch('${WASM}', { credentials: 'same-origin' })).then(() => performance.mark('compiled'))
</script></body></html>`,
)
writeFileSync(
  join(dir, 'package.html'),
  `${head(`<link rel="modulepreload" href="/pkg/index.js"><link rel="modulepreload" href="/pkg/attention-relaxed.js">${preload}`)}
<script type="module">performance.mark('first-script')
import { init } from '/pkg/index.js'
init().then(() => performance.mark('ready'))
</script></body></html>`,
)

/** Each page and the marks it ends with (the last one is waited for). */
const PAGES = {
  blank: ['first-script'],
  compile: ['first-script', 'compiled'],
  package: ['first-script', 'ready'],
  page: ['ap-init-start', 'ap-init-end', 'ap-mounted'],
}
// A plain static host (no headers), as bench/page_bench.mjs: with the site's COOP/COEP every navigation moves to a
// cross-origin-isolated renderer of its own, and a blank page's first script ran at 123–140 ms instead of 50–56.
const floor = await serve({ root: dir, headers: {}, cacheControl: 'no-store' })
const site = await serve({ root: SITE, headers: {}, cacheControl: 'no-store', requireIndex: true })
const { browser, close } = await launchChromium(process.env.CHROMIUM ?? CHROMIUM)
/** @type {Record<string, Record<string, number[]>>} */
const at = {}
try {
  for (let r = 0; r < rounds; r++) {
    const order = Object.keys(PAGES)
    if (r % 2) order.reverse()
    for (const name of order) {
      const marks = PAGES[/** @type {keyof typeof PAGES} */ (name)]
      const context = await browser.newContext()
      const page = await context.newPage()
      await page.goto(name === 'page' ? `${site.url}?lang=en` : `${floor.url}${name}.html`)
      await page.waitForFunction((m) => performance.getEntriesByName(m).length > 0, marks[marks.length - 1], {
        timeout: 30_000,
      })
      const got = await page.evaluate(
        (ms) => ms.map((m) => performance.getEntriesByName(m)[0].startTime),
        /** @type {string[]} */ (marks),
      )
      marks.forEach((m, i) => ((at[name] ??= {})[m] ??= []).push(got[i]))
      await context.close()
    }
  }
} finally {
  await close()
  await floor.close()
  await site.close()
}
console.log(
  `Chromium ${browser.version()}, ${rounds} rounds of fresh contexts, ms from navigation start (medians); load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(', ')}`,
)
for (const [name, marks] of Object.entries(at))
  console.log(
    `  ${name.padEnd(8)} ${Object.entries(marks)
      .map(([m, xs]) => `${m} ${median(xs).toFixed(1)}`)
      .join(', ')}`,
  )
