// How every real-browser test opens a page: `usePages()` gives `open(url, options)`, which opens the page in a
// fresh browser context (Playwright's context options: viewport, isMobile, hasTouch, locale — en-US unless
// given —, permissions), collects what goes wrong on every page of that context, and closes every context it
// opened after each test — also when the test failed — or, for a page shared by a suite's tests, after the
// suite. No test closes a page itself; a test that wants no errors asserts on the collected lists.
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

function watch(page: Page, p: Problems): void {
  page.on('pageerror', (e) => {
    p.errors.push(e.message)
    p.scriptErrors.push(e.message)
  })
  page.on('console', (m) => {
    if (m.type() === 'error' && !FAVICON.test(m.location().url)) p.errors.push(`${m.text()} (${m.location().url})`)
  })
  page.on('request', (r) => p.requests.push(new URL(r.url()).pathname))
  page.on('requestfailed', (r) => {
    if (!FAVICON.test(r.url())) p.failed.push(`${r.failure()?.errorText ?? 'failed'} ${r.url()}`)
  })
  page.on('response', (r) => {
    if (r.status() >= 400 && !FAVICON.test(r.url())) p.failed.push(`${r.status()} ${r.url()}`)
  })
}

/** What usePages() gives: `open`. */
export type Pages = ReturnType<typeof usePages>

/**
 * @param browser the browser to open pages in (default: useEnv's Chromium)
 * @param scope 'test': every page closes after its test; 'suite': after the enclosing describe (or file), for
 *   a page opened in beforeAll and shared by the suite's tests
 */
export function usePages(browser: () => Browser = () => env.session.browser, scope: 'test' | 'suite' = 'test') {
  const contexts: BrowserContext[] = []
  ;(scope === 'test' ? afterEach : afterAll)(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()))
  })
  return {
    /** Opens `url` (or nothing: then the test sets the page up and navigates itself). */
    async open(url?: string, options: OpenOptions = {}): Promise<Opened> {
      const { ready, ...contextOptions } = options
      const context = await browser().newContext({ locale: 'en-US', ...contextOptions })
      contexts.push(context)
      const problems: Problems = { errors: [], scriptErrors: [], failed: [], requests: [] }
      const watched = new WeakSet<Page>()
      const watchOnce = (p: Page) => {
        if (watched.has(p)) return
        watched.add(p)
        watch(p, problems)
      }
      context.on('page', watchOnce)
      const page = await context.newPage()
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
