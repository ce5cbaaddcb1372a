// Accessibility in real Chromium: axe-core 4.14 (WCAG 2.0/2.1 A and AA, WCAG 2.2 AA with target-size, best
// practices) finds nothing on every view of the widget (zh and en), with the guided tour open, a cell's arithmetic
// and a table of numbers open, cross attention, the long view — and a keyboard-only learner (keyboard.press, no
// clicks) can go through the guided tour and edit a cell. Every view of the page, on the desktop and on phones, in
// zh and en, is checked in tests/e2e/every-view.test.ts.
import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { settled, viewsOf, longText, openLessonWidgets } from './harness.mjs'
import { env, useEnv } from './env'
import { DEVICES } from './devices'
import { usePages, type Opened } from './page-fixture'
import { expectAxeClean, viewReady } from './view-checks'

// A text of more than 320 tokens (the long view), short enough for a URL.
const LONG_TEXT = longText(340, 7)

useEnv()

const pages = usePages()

async function openPage(query: string): Promise<Opened> {
  return pages.open(env.site.url + query, {
    ...DEVICES.desktop,
    ready: (page) => page.waitForSelector('.ap-root [role="tab"]').then(() => settled(page)),
  })
}

describe('axe-core finds no violations', () => {
  for (const lang of ['en', 'zh']) {
    it(`with the guided tour, a cell's arithmetic, cross attention and the long view (${lang})`, async () => {
      const { page } = await openPage(`?lang=${lang}&guided=3&mask=causal`)
      await expectAxeClean(page, `guided tour step 3, ${lang}`)
      await page.locator('[data-panel="guided"] button[name="next"]').click()
      await settled(page)
      await expectAxeClean(page, `guided tour step 4, ${lang}`)
      // A score cell clicked: the arithmetic panel explains it.
      await page.locator('[data-panel="guided"] button[name="exit"]').click()
      const canvas = page.locator('[data-step="weights"] canvas.hm-canvas')
      await canvas.scrollIntoViewIfNeeded()
      await canvas.click()
      await settled(page)
      await expect(page.locator('[data-panel="arith"] .arith-cell').textContent()).resolves.toMatch(/\(\d+, \d+\)/)
      // And a matrix's numbers opened as a table.
      await page.locator('[data-step="weights"] details.hm-alt summary').click()
      await settled(page)
      await expectAxeClean(page, `a cell's arithmetic and a table of numbers, ${lang}`)

      const cross = await openPage(`?lang=${lang}&mode=cross&guided=1`)
      await expectAxeClean(cross.page, `cross attention with the tour, ${lang}`)

      const long = await openPage(`?lang=${lang}&text=${encodeURIComponent(LONG_TEXT)}`)
      await long.page.waitForSelector('[data-panel="long"]:not([hidden]) canvas')
      await settled(long.page)
      await expectAxeClean(long.page, `long view, ${lang}`)
    }, 300_000)
  }

  it('on every view of the widget in a lesson page (zh and en, tour open, long view)', async () => {
    const { page } = await pages.open(undefined, { viewport: { width: 1100, height: 900 } })
    await openLessonWidgets(page, env.widgets.url)
    const first = page.locator('#en')
    const views = await viewsOf(first)
    for (const view of views) {
      for (const id of ['en', 'zh']) await page.locator(`#${id}`).evaluate((el, v) => el.setAttribute('view', v), view)
      await settled(page)
      await viewReady(page, view)
      await expectAxeClean(page, `widget, view ${view}`)
    }
    // Back to the pipeline, the zh one with a long text (the long view).
    await page.locator('#zh').evaluate((el, text) => {
      el.setAttribute('view', 'pipeline')
      el.setAttribute('text', text)
    }, LONG_TEXT)
    await page.locator('#en').evaluate((el) => el.setAttribute('view', 'pipeline'))
    await page.locator('#zh [data-panel="long"]:not([hidden]) canvas').waitFor()
    await settled(page)
    await expectAxeClean(page, 'widget, long view')
  }, 300_000)
})

describe('keyboard only', () => {
  /** Presses Tab (Shift+Tab: `back`) until the focused element (inside shadow roots too) matches, at most `max` times. */
  async function tabTo(page: Page, selector: string, max = 80, back = false): Promise<void> {
    for (let i = 0; i < max; i++) {
      await page.keyboard.press(back ? 'Shift+Tab' : 'Tab')
      const hit = await page.evaluate((sel) => {
        let a: Element | null = document.activeElement
        while (a?.shadowRoot?.activeElement) a = a.shadowRoot.activeElement
        return !!a?.matches(sel)
      }, selector)
      if (hit) return
    }
    throw new Error(`tabTo: ${selector} not reached with ${max} presses of Tab`)
  }

  it('goes through the guided tour and edits a cell with the keyboard alone', async () => {
    const { page, errors } = await openPage('?lang=en')
    const state = () => page.evaluate(() => window.__apPlayground!.getState())
    await tabTo(page, 'button[name="guided"]')
    await page.keyboard.press('Enter')
    await settled(page)
    expect((await state()).guided).toBe(1)
    await tabTo(page, '[data-panel="guided"] button[name="next"]')
    for (let n = 2; n <= 5; n++) {
      await page.keyboard.press('Enter')
      await settled(page)
      expect((await state()).guided).toBe(n)
      await expect(page.locator('.tour-focus').count()).resolves.toBeGreaterThan(0)
    }
    // The last step disables Next: focus must not be lost; Exit ends the tour.
    await tabTo(page, '[data-panel="guided"] button[name="exit"]')
    await page.keyboard.press('Enter')
    await settled(page)
    expect((await state()).guided).toBe(0)

    // "More options" by keyboard (cell editing is folded on a first visit), then a cell of W_q: focus its heatmap,
    // move with the arrows, Enter opens the editor, type, Enter commits.
    // Back up to its summary (the tour's card is below the controls): Enter opens it.
    await tabTo(page, 'details.more-options > summary', 80, true)
    expect(await page.locator('details.more-options').evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false)
    await page.keyboard.press('Enter')
    await page.locator('details.more-options[open]').waitFor({ state: 'attached' })
    await settled(page)
    await tabTo(page, '[data-step="Wq"] canvas.hm-canvas')
    await page.keyboard.press('ArrowRight')
    await page.keyboard.press('Enter')
    await settled(page)
    const editor = page.locator('[data-step="Wq"] input.hm-editor')
    await expect(editor.isVisible()).resolves.toBe(true)
    await page.keyboard.press('Control+A')
    for (const key of '-2.5') await page.keyboard.press(key)
    await page.keyboard.press('Enter')
    await settled(page)
    const s = await state()
    expect(s.edits).toEqual([{ t: 'Wq', r: 0, c: 1, v: -2.5 }])
    const trace = await page.evaluate(() => {
      const t = window.__apPlayground!.getTrace()!
      return { wq01: t.Wq.data[1], cols: t.Wq.shape[1] }
    })
    expect(trace.wq01).toBe(-2.5)
    expect(errors).toEqual([])
  }, 240_000)
})

declare global {
  interface Window {
    __apPlayground?: import('../../web/playground').PlaygroundHandle
  }
}
