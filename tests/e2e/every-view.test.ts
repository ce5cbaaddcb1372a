// Every view of the page, on the desktop and on a small phone (Chromium's mobile emulation, touch, device scale factor
// 2), in en and zh: one walk through the tab bar per device and language (views added later are covered), and at
// each view every check that must hold everywhere (tests/e2e/view-checks.ts):
// - axe-core finds no violation (WCAG 2.0/2.1 A and AA, WCAG 2.2 AA with target-size, best practices);
// - every control is 24 × 24 CSS px or more (WCAG 2.2 AA target size), and on a phone the primary ones 44 px tall;
// - on a phone: no text under 12 px (issue 39 item 6) and nothing scrolls the page sideways (issue 29);
// then, on the pipeline: the header's buttons are on screen, touch screens read "tap" and never "hover", and on a
// phone the tour's compact card and the Embed box open are still clean for axe.
// These walks were four files' own (a11y, touch, phone, first-look: 16 walks of every view); one walk now runs them
// all. The widget's walks stay in a11y.test.ts and phone.test.ts.
// One phone, the smallest the page is made for (360 × 640): the page's layout rules are by width (breakpoints 480,
// 600, 860 and 1000 px; under 860 px no rule reads the height: the sticky controls' 100vh is the wide layout's), so
// a 390 × 844 phone is laid out by the same rules with more room. Its walks took 76 of this file's 228 s. The
// 390 × 844 phone stays in the flows that run on it (tests/e2e/devices.ts), and the tour's card, which reads the
// window's height, is checked on both phones in tour.test.ts.
import { describe, expect, it } from 'vitest'
import { settled, viewsOf } from './harness.mjs'
import { env, useEnv } from './env'
import { DEVICES } from './devices'
import { usePages, traced } from './page-fixture'
import {
  CONTROLS,
  PRIMARY,
  expectAxeClean,
  headerFits,
  noSideScroll,
  smallControls,
  smallText,
  viewReady,
} from './view-checks'
import { MESSAGES } from '../../web/i18n'

useEnv()
const pages = usePages()

const PHONE = { isMobile: true, hasTouch: true, deviceScaleFactor: 2 } as const
const SCREENS = {
  desktop: DEVICES.desktop,
  'phone 360 × 640': { ...PHONE, viewport: { width: 360, height: 640 } },
} as const

describe('every view', () => {
  for (const [screen, device] of Object.entries(SCREENS)) {
    const phone = device.isMobile
    for (const lang of ['en', 'zh'] as const) {
      it(`${screen}, ${lang}: axe, target sizes${phone ? ', text ≥ 12 px, no sideways scroll' : ''}`, async () => {
        const { page, errors } = await pages.open(env.site.url + `?lang=${lang}`, { ...device, ready: traced })
        const views = await viewsOf(page)
        expect(views.length).toBeGreaterThanOrEqual(12)
        const smallTextFound: string[] = []
        for (const view of views) {
          const tab = page.locator(`[role="tab"][data-view="${view}"]`)
          await (phone ? tab.tap() : tab.click())
          await viewReady(page, view)
          const what = `${screen}, ${lang}, view ${view}`
          await expectAxeClean(page, what)
          expect(await smallControls(page, CONTROLS, 24), `${what}: under 24 px`).toEqual([])
          if (!phone) continue
          expect(await smallControls(page, PRIMARY, 44, true), `${what}: under 44 px tall`).toEqual([])
          await noSideScroll(page, what)
          smallTextFound.push(...(await smallText(page)).map((s) => `${view} · ${s}`))
        }
        expect(smallTextFound, 'text under 12 px').toEqual([])

        await page.locator('[role="tab"][data-view="pipeline"]').click()
        await settled(page)
        // Touch wording on a phone, the mouse's on the desktop.
        const help = await page.locator('[data-panel="lines"] .help').first().textContent()
        expect(help).toBe(MESSAGES[lang][phone ? 'linesHelpTouch' : 'linesHelp'])
        if (phone) {
          await headerFits(page.locator('.ap-root'), page, `${screen}, ${lang} header`)
          expect(await page.locator('.ap-root').innerText()).not.toMatch(/hover|click|悬停|鼠标|点击/i)
          // The Embed box open, the tour on (its compact card).
          await page.locator('header button[name="embed"]').tap()
          await page.locator('button[name="guided"]').tap()
          await settled(page)
          await expectAxeClean(page, `${screen}, ${lang}, tour and Embed box`)
        }
        expect(errors).toEqual([])
      }, 300_000)
    }
  }
})
