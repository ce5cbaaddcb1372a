// How every real-browser test opens a page: `usePages()` gives `open(url, options)`, which gives the test a page in
// a browser context of its own (Playwright's context options: viewport, isMobile, hasTouch, locale — en-US unless
// given —, permissions), collects what goes wrong on every page of that context, and releases it after each test —
// also when the test failed — or, for a page shared by a suite's tests, after the suite. No test closes a page
// itself; a test that wants no errors asserts on the collected lists.
//
// A released page is kept for the file's next test that asks for the same options, cleared: its context's other
// pages closed, its listeners off, cookies and permissions (but its options') gone, and everything stored for the
// origins it asked for (local and session storage, IndexedDB, service workers, Cache Storage); left on about:blank.
// The next test navigates the same tab, which keeps Chromium's renderer process: about a third less CPU for a file
// of short tests here (docs/design.md, "Tests"). A page is closed instead, with its context, when its test failed or
// did something a release cannot undo (LASTING: a route, an init script, the clock, a viewport change …).
// tests/e2e/page-fixture.test.ts checks both.
import { afterAll, afterEach } from 'vitest'
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core'
import { settled } from './harness.mjs'
import { env } from './env'

/** A selector that exists once the page (not the widget) has rendered its pipeline. */
export const RENDERED = '[data-step="weights"] canvas'

/** Waits until the page's playground has its first trace (window.__apPlayground), then two frames. */
export async function traced(page: Page): Promise<void> {
  await page.waitForSelector('.ap-root', { state: 'attached' })
  await page.waitForFunction(
    () => !!(window as unknown as { __apPlayground?: { getTrace(): unknown } }).__apPlayground?.getTrace(),
  )
  await settled(page)
}

export interface OpenOptions extends BrowserContextOptions {
  /** After loading: a selector to wait for (attached), then two frames; or a function that waits. */
  ready?: string | ((page: Page) => Promise<unknown>)
}

/** What went wrong on the pages of one context, filled as they run. */
export interface Problems {
  /** uncaught script errors and console errors, as text */
  errors: string[]
  /** the uncaught script errors alone (for pages whose policy blocks a script on purpose, which the console logs) */
  scriptErrors: string[]
  /** requests that failed or were answered with a status of 400 or more */
  failed: string[]
  /** the path of every request, in order */
  requests: string[]
}

export interface Opened extends Problems {
  page: Page
  /** the page's own context: `context.newPage()` opens another page watched and closed alike */
  context: BrowserContext
}

/** The browser asks for /favicon.ico by itself; the test pages have none, and that is not the page's error. */
const FAVICON = /\/favicon\.ico(\?|$)/

function watch(page: Page, p: Problems, origins: Set<string>): void {
  page.on('pageerror', (e) => {
    p.errors.push(e.message)
    p.scriptErrors.push(e.message)
  })
  page.on('console', (m) => {
    if (m.type() === 'error' && !FAVICON.test(m.location().url)) p.errors.push(`${m.text()} (${m.location().url})`)
  })
  page.on('request', (r) => {
    const u = new URL(r.url())
    p.requests.push(u.pathname)
    if (u.protocol === 'http:' || u.protocol === 'https:') origins.add(u.origin)
  })
  page.on('requestfailed', (r) => {
    if (!FAVICON.test(r.url())) p.failed.push(`${r.failure()?.errorText ?? 'failed'} ${r.url()}`)
  })
  page.on('response', (r) => {
    if (r.status() >= 400 && !FAVICON.test(r.url())) p.failed.push(`${r.status()} ${r.url()}`)
  })
}

/**
 * What a test may do to a page or its context that its end cannot undo: a page on which a test called one of these
 * (or anything of the clock) is closed with its context after the test, never given to another.
 */
const LASTING = {
  context: [
    'addInitScript',
    'addCookies',
    'exposeBinding',
    'exposeFunction',
    'newCDPSession',
    'route',
    'routeFromHAR',
    'routeWebSocket',
    'setExtraHTTPHeaders',
    'setGeolocation',
    'setHTTPCredentials',
    'setOffline',
    'on',
    'once',
    'addListener',
    'prependListener',
  ],
  page: [
    'addInitScript',
    'exposeBinding',
    'exposeFunction',
    'route',
    'routeFromHAR',
    'routeWebSocket',
    'setExtraHTTPHeaders',
    'setViewportSize',
    'emulateMedia',
    'addLocatorHandler',
  ],
} as const

/** A page opened by `open` with its own context, kept for the file's next test that asks for the same options. */
interface Kept {
  page: Page
  context: BrowserContext
  key: string
  /** the permissions its context was opened with (given again after a test's are cleared) */
  permissions: string[]
  lasting: boolean
  /** the origins its pages asked for (their storage is cleared before the page serves again) */
  origins: Set<string>
  /** the fixture's own listeners, taken off after each test */
  listen: (fn: (page: Page) => void) => () => void
  /** a CDP session on the context's own method, which leaves the page reusable (the release clears storage with it) */
  cdp: () => ReturnType<BrowserContext['newCDPSession']>
}

/** Idle pages of the file running, by browser and by context options (closed after its tests). */
const idle = new Map<Browser, Map<string, Kept[]>>()

function markLasting(k: Kept, target: object, names: readonly string[]): void {
  const o = target as Record<string, unknown>
  for (const name of names) {
    const real = o[name] as ((...a: unknown[]) => unknown) | undefined
    if (typeof real !== 'function') continue
    o[name] = (...a: unknown[]) => {
      k.lasting = true
      return real.apply(target, a)
    }
  }
}

async function keep(browser: Browser, key: string, options: BrowserContextOptions): Promise<Kept> {
  const context = await browser.newContext(options)
  const page = await context.newPage()
  const on = context.on.bind(context) as (event: 'page', fn: (page: Page) => void) => void
  const off = context.off.bind(context) as (event: 'page', fn: (page: Page) => void) => void
  const cdp = context.newCDPSession.bind(context, page)
  const k: Kept = {
    page,
    context,
    key,
    permissions: options.permissions ?? [],
    lasting: false,
    origins: new Set(),
    listen: (fn) => (on('page', fn), () => off('page', fn)),
    cdp,
  }
  markLasting(k, context, LASTING.context)
  markLasting(k, page, LASTING.page)
  const clock = context.clock
  markLasting(
    k,
    clock,
    Object.getOwnPropertyNames(Object.getPrototypeOf(clock)).filter((n) => n !== 'constructor'),
  )
  return k
}

/**
 * After a test: a page that served it is cleared (every other page of its context closed, its listeners off, its
 * storage for every origin it asked for, cookies and permissions cleared, left on about:blank) and kept for the next
 * test with the same options; one that the test changed lastingly (LASTING), or whose test failed, is closed.
 */
async function release(browser: Browser, k: Kept, reuse: boolean): Promise<void> {
  if (!reuse || k.lasting || k.page.isClosed()) return k.context.close().catch(() => undefined)
  try {
    k.page.removeAllListeners()
    await Promise.all(
      k.context
        .pages()
        .filter((p) => p !== k.page)
        .map((p) => p.close()),
    )
    await k.page.goto('about:blank')
    // every kind of storage of each origin the test's pages asked for, sessionStorage of this tab included
    const cdp = await k.cdp()
    for (const origin of k.origins) {
      await cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' })
    }
    await cdp.detach()
    await k.context.clearCookies()
    await k.context.clearPermissions()
    if (k.permissions.length) await k.context.grantPermissions(k.permissions)
  } catch {
    return k.context.close().catch(() => undefined)
  }
  k.origins.clear()
  const byKey = idle.get(browser) ?? new Map<string, Kept[]>()
  idle.set(browser, byKey)
  byKey.set(k.key, byKey.get(k.key) ?? [])
  byKey.get(k.key)!.push(k)
}

/** Closes every idle page (after a file's tests: registered by each usePages(), as files share this module). */
async function closeIdle(): Promise<void> {
  const all = [...idle.values()].flatMap((m) => [...m.values()].flat())
  idle.clear()
  await Promise.all(all.map((k) => k.context.close().catch(() => undefined)))
}

/** What usePages() gives: `open`. */
export type Pages = ReturnType<typeof usePages>

/**
 * @param browser the browser to open pages in (default: useEnv's Chromium)
 * @param scope 'test': every page is released after its test; 'suite': after the enclosing describe (or file), for
 *   a page opened in beforeAll and shared by the suite's tests
 */
export function usePages(browser: () => Browser = () => env.session.browser, scope: 'test' | 'suite' = 'test') {
  const opened: { browser: Browser; kept: Kept; unlisten: () => void }[] = []
  const releaseAll = (keep: boolean) =>
    Promise.all(opened.splice(0).map(({ browser, kept, unlisten }) => (unlisten(), release(browser, kept, keep))))
  // A test's page is kept when the test passed; a suite's is not (its tests may have failed in between). Vitest reads
  // a hook's first parameter as its fixtures: destructured, or none.
  if (scope === 'test') afterEach(({ task }) => releaseAll(task.result?.state !== 'fail').then(() => undefined))
  else afterAll(() => releaseAll(false).then(() => undefined))
  afterAll(() => closeIdle())
  return {
    /** Opens `url` (or nothing: then the test sets the page up and navigates itself). */
    async open(url?: string, options: OpenOptions = {}): Promise<Opened> {
      const { ready, ...contextOptions } = options
      const b = browser()
      const full = { locale: 'en-US', ...contextOptions }
      const key = JSON.stringify(full)
      const kept = idle.get(b)?.get(key)?.pop() ?? (await keep(b, key, full))
      const { page, context } = kept
      const problems: Problems = { errors: [], scriptErrors: [], failed: [], requests: [] }
      const watched = new WeakSet<Page>()
      const watchOnce = (p: Page) => {
        if (watched.has(p)) return
        watched.add(p)
        watch(p, problems, kept.origins)
      }
      opened.push({ browser: b, kept, unlisten: kept.listen(watchOnce) })
      watchOnce(page)
      if (url !== undefined) {
        await page.goto(url)
        if (typeof ready === 'string') {
          await page.waitForSelector(ready, { state: 'attached' })
          await settled(page)
        } else if (ready) await ready(page)
      }
      return { page, context, ...problems }
    },
  }
}
