// Shared by the real-browser tests: a static server over site/ on 127.0.0.1 (a free port), and
// Debian's Chromium driven by playwright-core with a fresh profile.
import { createServer } from 'node:http'
import { readFileSync, statSync, mkdirSync, existsSync } from 'node:fs'
import { extname, join, normalize, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium } from 'playwright-core'

export const ROOT = fileURLToPath(new URL('../..', import.meta.url))
export const SITE = join(ROOT, 'site')
export const ARTIFACTS = join(ROOT, 'tests/e2e/artifacts')
const CHROMIUM = '/usr/bin/chromium'

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
}

/**
 * @param {string} [dir] the folder served
 * @param {Record<string, string>} [headers] sent with every file (e.g. a host's COOP/COEP)
 * @returns {Promise<{ url: string, close(): Promise<void> }>}
 */
export async function serveStatic(dir = SITE, headers = {}) {
  if (!existsSync(join(dir, 'index.html')))
    throw new Error(`${dir}/index.html is missing: build the site first (npx vite build)`)
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)
    let file = normalize(join(dir, path))
    if (!file.startsWith(dir + sep) && file !== dir) {
      res.writeHead(403).end()
      return
    }
    try {
      if (statSync(file).isDirectory()) file = join(file, 'index.html')
      const body = readFileSync(file)
      res.writeHead(200, {
        'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
        'cache-control': 'no-store',
        ...headers,
      })
      res.end(body)
    } catch {
      res.writeHead(404).end('not found')
    }
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)))
  const addr = server.address()
  if (!addr || typeof addr === 'string') throw new Error('server did not bind')
  return {
    url: `http://127.0.0.1:${addr.port}/`,
    // closeAllConnections: a page the fixture closes only after the test keeps its keep-alive sockets open,
    // and server.close() alone waits for them.
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve(undefined))
        server.closeAllConnections()
      }),
  }
}

/**
 * Headless Chromium with the flags the tests and the benchmarks share (no background traffic).
 * @param {string} [executablePath] the browser binary (the benchmarks honour $CHROMIUM)
 * @returns {Promise<{ browser: import('playwright-core').Browser, close(): Promise<void> }>}
 */
// playwright-core gives every launch a fresh temporary profile (it refuses --user-data-dir here).
export async function launchChromium(executablePath = CHROMIUM) {
  // A missing browser fails the real-browser tests by name; they are never skipped.
  if (!existsSync(executablePath))
    throw new Error(
      `Chromium is required by the real-browser tests and ${executablePath} is missing; install it: apt-get install -y chromium`,
    )
  const browser = await chromium.launch({
    executablePath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-quic',
      '--disable-sync',
    ],
  })
  return {
    browser,
    async close() {
      await browser.close()
    },
  }
}

/** Waits until the playground has rendered after the last change (it renders on the next frame). */
/** @param {import('playwright-core').Page} page */
export async function settled(page) {
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(undefined)))))
}

/** Reads a panel's numbers from its text alternative (the table), as displayed. */
/**
 * @param {import('playwright-core').Page} page
 * @param {string} step
 * @returns {Promise<{ rows: string[], cols: string[], values: number[][] }>}
 */
export async function readPanel(page, step) {
  const panel = page.locator(`[data-step="${step}"]`)
  const details = panel.locator('details.hm-alt')
  if (!(await details.evaluate((d) => /** @type {HTMLDetailsElement} */ (d).open)))
    await details.locator('summary').click()
  return panel.locator('table').evaluate((table) => {
    const parse = (/** @type {string} */ s) => {
      const t = s.trim().replace(/^−/, '-')
      return t === '-∞' ? -Infinity : Number(t)
    }
    const cols = Array.from(table.querySelectorAll('thead th'))
      .slice(1)
      .map((th) => th.textContent ?? '')
    const body = Array.from(table.querySelectorAll('tbody tr'))
    return {
      cols,
      rows: body.map((tr) => tr.querySelector('th')?.textContent ?? ''),
      values: body.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => parse(td.textContent ?? ''))),
    }
  })
}

/** @param {string} name */
export function artifact(name) {
  mkdirSync(ARTIFACTS, { recursive: true })
  return join(ARTIFACTS, name)
}

/**
 * The views the playground offers, read from its tab bar at run time (so a view added later is covered
 * by the tests that iterate over them). `root` is a page or a locator inside which the playground lives.
 * @param {import('playwright-core').Page | import('playwright-core').Locator} root
 * @returns {Promise<string[]>}
 */
export async function viewsOf(root) {
  const views = await root
    .locator('[role="tab"][data-view]')
    .evaluateAll((tabs) =>
      tabs
        .filter((t) => !(/** @type {HTMLElement} */ (t).hidden))
        .map((t) => /** @type {HTMLElement} */ (t).dataset.view ?? ''),
    )
  if (views.length === 0) throw new Error('viewsOf: no tabs ([role="tab"][data-view]) found')
  return views
}

const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice']

/**
 * axe-core (node_modules/axe-core, injected into the page) over the whole document, shadow roots included,
 * with the WCAG 2.0/2.1 A and AA rules, WCAG 2.2 AA (target-size) and the best practices. Returns the violations, one line per node.
 * @param {import('playwright-core').Page} page
 * @returns {Promise<string[]>}
 */
export async function axeViolations(page) {
  const src = join(ROOT, 'node_modules/axe-core/axe.min.js')
  if (!existsSync(src)) throw new Error(`${src} is missing: run npm ci (axe-core is a devDependency)`)
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: readFileSync(src, 'utf8') })
  return page.evaluate(async (tags) => {
    // axe was injected above: the page's own types do not know it.
    const r = await /** @type {any} */ (window).axe.run(document, {
      runOnly: { type: 'tag', values: tags },
      resultTypes: ['violations'],
    })
    return r.violations.flatMap((/** @type {any} */ v) =>
      v.nodes.map(
        (/** @type {any} */ n) =>
          `${v.id} (${v.impact}): ${JSON.stringify(n.target)} ${String(n.failureSummary).replace(/\s+/g, ' ').slice(0, 300)}`,
      ),
    )
  }, AXE_TAGS)
}

/**
 * The repository root over HTTP (scripts/serve.mjs), for the widget's test pages (tests/e2e/pages/), which
 * load /dist/widget/widget.js. `url` has no trailing slash.
 * @returns {Promise<{ url: string, close(): Promise<void> }>}
 */
export async function serveRoot() {
  const { serve } = await import('../../scripts/serve.mjs')
  const server = /** @type {import('node:http').Server} */ (await serve(ROOT.replace(/\/+$/, ''), 0, '127.0.0.1'))
  const addr = server.address()
  if (!addr || typeof addr === 'string') throw new Error('server did not bind')
  return {
    url: `http://127.0.0.1:${addr.port}`,
    // closeAllConnections: a page the fixture closes only after the test keeps its keep-alive sockets open,
    // and server.close() alone waits for them.
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve(undefined))
        server.closeAllConnections()
      }),
  }
}

/**
 * What a test file of the page and the widget needs: the site, the repository root (the widget's pages) and
 * Chromium; close() ends all three.
 */
export async function startAll() {
  const site = await serveStatic()
  const widgets = await serveRoot()
  const session = await launchChromium()
  return {
    site,
    widgets,
    session,
    async close() {
      await session.close()
      await site.close()
      await widgets.close()
    },
  }
}

/**
 * A text of `length` words cycled from a short list (every `step`-th word), for the long view: it stays
 * short enough for a URL.
 * @param {number} length
 * @param {number} step
 */
export function longText(length, step) {
  const words = ['the', 'cat', 'sat', 'on', 'a', 'mat', 'and', 'it', 'was', 'tired']
  return Array.from({ length }, (_, i) => words[(i * step) % 10]).join(' ')
}

/**
 * Opens the lesson page with several widgets (tests/e2e/pages/a11y.html) and waits until every widget is ready.
 * @param {import('playwright-core').Page} page
 * @param {string} widgetsUrl the server of the repository root (startAll().widgets.url)
 */
export async function openLessonWidgets(page, widgetsUrl) {
  await page.goto(`${widgetsUrl}/tests/e2e/pages/a11y.html`)
  await page
    .locator('attention-playground')
    .evaluateAll((els) => Promise.all(els.map((el) => /** @type {any} */ (el).ready)))
  await settled(page)
}

/**
 * Opens the controls' "More options" fold (closed on a first visit unless the state uses one of them): the other
 * scoring rules and tokenizers, heads, temperature and cell editing. Resolves once the controls offer them.
 * @param {import('playwright-core').Page | import('playwright-core').Locator} scope the page, or a widget element
 */
export async function openMoreOptions(scope) {
  const fold = scope.locator('details.more-options')
  if (!(await fold.evaluate((d) => /** @type {HTMLDetailsElement} */ (d).open))) await fold.locator('summary').click()
  await scope.locator('.controls select[name="score"] option[value="concat"]').waitFor({ state: 'attached' })
}
