// The page fixture (tests/e2e/page-fixture.ts) keeps a released page for the file's next test with the same options:
// that test must find the tab as a first visit finds it. These tests run in order: the first leaves state behind
// (storage of every kind, a cookie, a permission, a listener), the second gets the same tab and finds none of it; a
// test that adds a route, or an init script, leaves its page to be closed, and the next one gets a fresh tab.
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { env, useEnv } from './env'
import { usePages } from './page-fixture'

useEnv()
const pages = usePages()

const OPTIONS = { viewport: { width: 800, height: 600 } }
let last: Page | undefined
/** What a listener of an earlier test heard after its test ended (it must hear nothing). */
const heard: string[] = []

/** Everything a page can leave in the browser for its origin, as the page sees it. */
const leftBehind = (page: Page) =>
  page.evaluate(async () => ({
    local: localStorage.length,
    session: sessionStorage.length,
    cookie: document.cookie,
    databases: (await indexedDB.databases()).map((d) => d.name),
    caches: await caches.keys(),
    workers: (await navigator.serviceWorker.getRegistrations()).length,
    clipboard: (await navigator.permissions.query({ name: 'clipboard-read' as PermissionName })).state,
  }))

const NOTHING = { local: 0, session: 0, cookie: '', databases: [], caches: [], workers: 0, clipboard: 'prompt' }

describe('a page kept between tests', () => {
  it('a test leaves storage, a cookie, a permission, a service worker and a listener behind', async () => {
    const { page, context } = await pages.open(env.site.url, OPTIONS)
    last = page
    expect(await leftBehind(page)).toEqual(NOTHING)
    await context.grantPermissions(['clipboard-read'], { origin: env.site.url.replace(/\/$/, '') })
    await page.evaluate(async () => {
      localStorage.setItem('k', '1')
      sessionStorage.setItem('k', '1')
      document.cookie = 'k=1'
      await new Promise((ok, fail) => {
        const r = indexedDB.open('left-behind')
        r.onupgradeneeded = () => r.result.createObjectStore('s')
        r.onsuccess = () => (r.result.close(), ok(undefined))
        r.onerror = () => fail(r.error)
      })
      await (await caches.open('left-behind')).put('/x', new Response('x'))
      await navigator.serviceWorker.register('./isolate-sw.js')
    })
    page.on('console', (m) => heard.push(m.text()))
    const left = await leftBehind(page)
    expect(left).toEqual({
      local: 1,
      session: 1,
      cookie: 'k=1',
      databases: ['left-behind'],
      caches: ['left-behind'],
      workers: 1,
      clipboard: 'granted',
    })
  })

  it('the next test with the same options gets the same tab, with none of it', async () => {
    const { page } = await pages.open(env.site.url, OPTIONS)
    expect(page, 'the same tab').toBe(last)
    expect(await leftBehind(page)).toEqual(NOTHING)
    await page.evaluate(() => console.log('a listener of the last test must not hear this'))
    expect(heard).toEqual([])
  })

  it('a test that adds a route leaves its page to be closed', async () => {
    const { page } = await pages.open(env.site.url, OPTIONS)
    last = page
    await page.route('**/nowhere', (r) => r.abort())
  })

  it('so the next test gets a fresh tab', async () => {
    const { page } = await pages.open(env.site.url, OPTIONS)
    expect(page).not.toBe(last)
    expect(last!.isClosed()).toBe(true)
  })

  it('a test that adds an init script to the context leaves its page to be closed', async () => {
    const { page, context } = await pages.open(env.site.url, OPTIONS)
    last = page
    await context.addInitScript(() => undefined)
  })

  it('so the next test gets a fresh tab too', async () => {
    const { page } = await pages.open(env.site.url, OPTIONS)
    expect(page).not.toBe(last)
    expect(last!.isClosed()).toBe(true)
  })
})
