#!/usr/bin/env node
// Where the page's load + init() (issue 38 item 4: ≤ 100 ms from navigation start) goes, in Debian's Chromium, fresh
// contexts (cold cache), the pages taking turns in every round; milestones in ms from navigation start, medians:
//   blank    an empty page's first (inline) script: what Chromium takes before any script of ours can run;
//   compile  the same, then WebAssembly.compileStreaming of the relaxed-SIMD engine's .wasm (preloaded): the
//            earliest an engine could be compiled;
//   engine   the same, and the relaxed engine's glue (modulepreload) imported by that script, which instantiates the
//            compiled module through it: the earliest an engine can be ready, with none of the package around it;
//   package  the package from dist/ (its ES modules as published, modulepreload for the facade and the glue, the
//            wasm preloaded) imported by a module script, then init();
//   page     the built site (site/, `?lang=en`): ap-init-start, ap-init-end (load + init()), ap-mounted;
//   against  with --against DIR, another build of the site (e.g. a copy of site/ from before a change), the same marks.
// The goal is measured by bench/page_bench.mjs; this says where its floor is. `npm run bench` runs it with --json
// (bench/results/load-floor.json), and docs/benchmarks.md states the floor beside the goal; docs/perf-notes.md has runs.
//
//   node scripts/build.mjs --site && node bench/load_floor.mjs [--rounds 15] [--against DIR] [--json FILE]
import { writeFileSync } from 'node:fs'
import os from 'node:os'
import { CHROMIUM, ROOT, SITE, launchChromium } from '../tests/e2e/harness.mjs'
import { serve } from '../scripts/serve.mjs'
import { cli, median, machine } from './inputs.mjs'

const args = cli(
  { rounds: { type: 'string', default: '15' }, against: { type: 'string' }, json: { type: 'string' } },
  'node bench/load_floor.mjs [--rounds 15] [--against DIR] [--json FILE]',
)
const rounds = Number(args.rounds)

const WASM = '/dist/attention-relaxed.wasm'
const html = (head, body) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>load floor</title>${head}</head><body>${body}</body></html>`
const preload = `<link rel="preload" href="${WASM}" as="fetch" type="application/wasm" crossorigin>`
/** The floor's pages (answered at /NAME.html beside the repository's files) and the marks each ends with. */
const FLOOR = {
  blank: { marks: ['first-script'], html: html('', "<script>performance.mark('first-script')</script>") },
  compile: {
    marks: ['first-script', 'compiled'],
    html: html(
      preload,
      `<script>performance.mark('first-script')
WebAssembly.compileStreaming(fetch('${WASM}', { credentials: 'same-origin' })).then(() => performance.mark('compiled'))
</script>`,
    ),
  },
  engine: {
    marks: ['first-script', 'instantiated'],
    html: html(
      `<link rel="modulepreload" href="/dist/attention-relaxed.js">${preload}`,
      `<script>performance.mark('first-script')
const compiled = WebAssembly.compileStreaming(fetch('${WASM}', { credentials: 'same-origin' }))
import('/dist/attention-relaxed.js')
  .then((glue) => glue.default({
    instantiateWasm(imports, receive) {
      compiled.then((m) => WebAssembly.instantiate(m, imports).then((i) => receive(i, m)))
      return {}
    },
  }))
  .then(() => performance.mark('instantiated'))
</script>`,
    ),
  },
  package: {
    marks: ['first-script', 'ready'],
    html: html(
      `<link rel="modulepreload" href="/dist/index.js"><link rel="modulepreload" href="/dist/attention-relaxed.js">${preload}`,
      `<script type="module">performance.mark('first-script')
import { init } from '/dist/index.js'
init().then(() => performance.mark('ready'))
</script>`,
    ),
  },
}
/** Every page and its marks (the last one is waited for). */
const PAGES = {
  ...Object.fromEntries(Object.entries(FLOOR).map(([name, p]) => [name, p.marks])),
  page: ['ap-init-start', 'ap-init-end', 'ap-mounted'],
  ...(args.against ? { against: ['ap-init-start', 'ap-init-end', 'ap-mounted'] } : {}),
}
// A plain static host (no headers), as bench/page_bench.mjs: with the site's COOP/COEP every navigation moves to a
// cross-origin-isolated renderer of its own, and a blank page's first script ran at 123–140 ms instead of 50–56.
const floor = await serve({
  root: ROOT,
  headers: {},
  cacheControl: 'no-store',
  handle(_, res, path) {
    const page = FLOOR[/** @type {keyof typeof FLOOR} */ (path.slice(1, -'.html'.length))]
    if (!page || !path.endsWith('.html')) return false
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(page.html)
    return true
  },
})
const site = await serve({ root: SITE, headers: {}, cacheControl: 'no-store', requireIndex: true })
const against = args.against
  ? await serve({ root: args.against, headers: {}, cacheControl: 'no-store', requireIndex: true })
  : null
/** The pages that are a build of the site, by name; the others are the floor's. */
const sites = { page: site, against }
const { browser, close } = await launchChromium(CHROMIUM)
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
      const server = sites[/** @type {keyof typeof sites} */ (name)]
      await page.goto(server ? `${server.url}?lang=en` : `${floor.url}${name}.html`)
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
  await against?.close()
}
/** @type {Record<string, Record<string, number>>} */
const medians = Object.fromEntries(
  Object.entries(at).map(([name, marks]) => [
    name,
    Object.fromEntries(Object.entries(marks).map(([m, xs]) => [m, median(xs)])),
  ]),
)
if (args.json) {
  const result = {
    date: new Date().toISOString(),
    machine: machine(`Chromium ${browser.version()}`),
    loadavg: os.loadavg(),
    rounds,
    pages: medians,
  }
  writeFileSync(args.json, JSON.stringify(result, null, 1) + '\n')
}
console.log(
  `Chromium ${browser.version()}, ${rounds} rounds of fresh contexts, ms from navigation start (medians); load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(', ')}`,
)
for (const [name, marks] of Object.entries(medians))
  console.log(
    `  ${name.padEnd(8)} ${Object.entries(marks)
      .map(([m, x]) => `${m} ${x.toFixed(1)}`)
      .join(', ')}`,
  )
