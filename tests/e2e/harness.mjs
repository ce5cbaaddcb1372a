// Shared by the real-browser tests: the site and the repository root over scripts/serve.mjs on 127.0.0.1 (free
// ports), and Debian's Chromium driven by playwright-core with a fresh profile.
import { readFileSync, mkdirSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium } from 'playwright-core'
import { serve } from '../../scripts/serve.mjs'

export const ROOT = fileURLToPath(new URL('../..', import.meta.url))
export const SITE = join(ROOT, 'site')
export const ARTIFACTS = join(ROOT, 'tests/e2e/artifacts')
/**
 * The browser a learner runs: Debian's Chromium, or the one $CHROMIUM names. The benchmarks and the screenshot scripts
 * measure and draw in it (`launchChromium(CHROMIUM)`).
 */
export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium'

/**
 * The tests' browser: Chromium's headless shell, the same Debian source and version without the full browser's
 * window and UI layers (what Playwright launches for headless Chromium by default; why and what it saves:
 * docs/design.md, "Which Chromium"). `AP_TEST_CHROMIUM=/usr/bin/chromium npm run test:e2e` runs the tests in the full
 * browser.
 */
export const TEST_CHROMIUM = process.env.AP_TEST_CHROMIUM || '/usr/bin/chromium-headless-shell'

/**
 * How long the test servers let a browser keep a file: ten minutes, as GitHub Pages sends (`max-age=600`). A tab
 * that navigates again within a test file (tests/e2e/page-fixture.ts keeps tabs) then reuses the files it has and
 * Chromium the code it compiled from them, as a learner's browser does: page + lessons took 202–218 CPU-s against
 * 220–235 with `no-store`, interleaved. Every context starts with an empty cache.
 */
export const TEST_CACHE_CONTROL = 'max-age=600'

/**
 * The site (or `dir`) over HTTP on a free port of 127.0.0.1, through scripts/serve.mjs, sending `headers` only (by
 * default none: a plain static host, as GitHub Pages; SITE_HEADERS from there for an isolated page).
 * @param {string} [dir] the folder served
 * @param {Record<string, string>} [headers] sent with every file (e.g. a host's COOP/COEP)
 * @returns {Promise<{ url: string, close(): Promise<void> }>}
 */
export function serveStatic(dir = SITE, headers = {}) {
  return serve({ root: dir, headers, cacheControl: TEST_CACHE_CONTROL, requireIndex: true })
}

/**
 * The Chromium features playwright-core 1.65 turns off (its `chromiumSwitches`), which must be repeated here: Chromium
 * reads only the last `--disable-features`, so ours would otherwise drop them. tests/e2e/chromium.setup.ts checks at
 * every e2e run that playwright-core's own list is still inside ours, and names what is missing.
 */
export const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
]

/**
 * The browser window's own address-bar popup, a WebUI page that Chromium 156 loads in a renderer of its own for every
 * new window, headless or not, although no test or benchmark ever shows it: ~1.2 CPU-s per new page on this machine
 * (2.1–2.3 against 0.85–0.93 for `?view=pipeline`, all processes, measured per thread), which ran beside the page's own
 * load on two cores. The page under test is not touched by it.
 */
export const WINDOW_UI_FEATURES = ['WebUIOmniboxPopup', 'WebUIOmniboxFullPopup', 'WebUIOmniboxAimPopup']

/**
 * The flags the tests and the benchmarks share: headless, no sandbox (containers), no GPU, no background traffic, no
 * window UI.
 */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-quic',
  '--disable-sync',
  `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...WINDOW_UI_FEATURES].join(',')}`,
]

/**
 * What a launched Chromium's command line lacks of playwright-core's own `--disable-features` (the first one; the
 * last, ours, is the one Chromium reads). Empty when ours still holds all of it.
 * @param {readonly string[]} argv
 * @returns {string[]}
 */
export function droppedFeatures(argv) {
  const lists = argv.filter((a) => a.startsWith('--disable-features=')).map((a) => a.slice(19).split(','))
  if (lists.length < 2) return []
  const ours = new Set(lists[lists.length - 1])
  return lists[0].filter((f) => f && !ours.has(f))
}

/** A missing browser fails the real-browser tests by name, with its Debian package; they are never skipped. */
export function requireChromium(executablePath = TEST_CHROMIUM) {
  if (!existsSync(executablePath)) {
    // Debian's packages install their browser as /usr/bin/<package>
    const install = executablePath.startsWith('/usr/bin/')
      ? `install it: apt-get install -y ${executablePath.slice('/usr/bin/'.length)}`
      : 'give the path of an installed Chromium'
    throw new Error(`Chromium is required by the real-browser tests and ${executablePath} is missing; ${install}`)
  }
}

/**
 * Headless Chromium with CHROMIUM_ARGS: by default the tests' (TEST_CHROMIUM); the benchmarks and scripts name
 * CHROMIUM. In the e2e tier one Chromium serves every test file: tests/e2e/chromium.setup.ts launches TEST_CHROMIUM
 * before the files and names it in AP_CHROMIUM_WS, and a file connects to it (~1.4 s against ~6.5 s for a launch of
 * its own, docs/design.md "Tests"); every test still opens its own context. Elsewhere (a benchmark, a script, another
 * tier) this launches a browser with a fresh temporary profile (playwright-core refuses --user-data-dir here).
 * close() disconnects, or ends the browser this call launched.
 * @param {string} [executablePath] the browser binary (the benchmarks give CHROMIUM)
 * @returns {Promise<{ browser: import('playwright-core').Browser, close(): Promise<void> }>}
 */
export async function launchChromium(executablePath = TEST_CHROMIUM) {
  const shared = process.env.AP_CHROMIUM_WS
  const browser =
    shared && executablePath === TEST_CHROMIUM
      ? await chromium.connect(shared)
      : (requireChromium(executablePath), await chromium.launch({ executablePath, args: CHROMIUM_ARGS }))
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
 * axe-core (node_modules/axe-core, injected into the page) over the whole document, shadow roots included, or over
 * the elements `include` selects, with the WCAG 2.0/2.1 A and AA rules, WCAG 2.2 AA (target-size) and the best
 * practices. Returns the violations, one line per node.
 * @param {import('playwright-core').Page} page
 * @param {string[]} [include] CSS selectors: only these elements and what they hold are checked
 * @returns {Promise<string[]>}
 */
export async function axeViolations(page, include) {
  const src = join(ROOT, 'node_modules/axe-core/axe.min.js')
  if (!existsSync(src)) throw new Error(`${src} is missing: run npm ci (axe-core is a devDependency)`)
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: readFileSync(src, 'utf8') })
  return page.evaluate(
    async ({ tags, include }) => {
      // axe was injected above: the page's own types do not know it.
      const r = await /** @type {any} */ (window).axe.run(include ? { include: include.map((s) => [s]) } : document, {
        runOnly: { type: 'tag', values: tags },
        resultTypes: ['violations'],
      })
      return r.violations.flatMap((/** @type {any} */ v) =>
        v.nodes.map(
          (/** @type {any} */ n) =>
            `${v.id} (${v.impact}): ${JSON.stringify(n.target)} ${String(n.failureSummary).replace(/\s+/g, ' ').slice(0, 300)}`,
        ),
      )
    },
    { tags: AXE_TAGS, include },
  )
}

/**
 * The repository root over HTTP with the site's headers (scripts/serve.mjs, as `npm start` sends them), for the
 * widget's test pages (tests/e2e/pages/), which load /dist/widget/widget.js. `url` has no trailing slash.
 * @returns {Promise<{ url: string, close(): Promise<void> }>}
 */
export async function serveRoot() {
  const root = await serve({ root: ROOT, cacheControl: TEST_CACHE_CONTROL })
  return { url: root.url.replace(/\/$/, ''), close: root.close }
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
