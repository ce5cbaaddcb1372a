// Phones, in Chromium's mobile emulation (isMobile, touch) at 360 × 640 and 390 × 844, the page and the widget: no
// view of the widget scrolls the page sideways (documentElement.scrollWidth ≤ clientWidth; innerWidth grows with the
// overflow under emulation, so it cannot be the check; the page's views: tests/e2e/every-view.test.ts), nor does the
// long view, the widget's header buttons are all on screen, a wide matrix scrolls inside its panel, tapping a cell shows its arithmetic, and the long view pans with
// a one-finger drag and zooms with a two-finger pinch (touch events sent through CDP).
import { describe, expect, it } from 'vitest'
import type { BrowserContext, Locator, Page } from 'playwright-core'
import { artifact, settled, viewsOf, longText, openLessonWidgets } from './harness.mjs'
import { env, useEnv } from './env'
import { usePages, type Opened } from './page-fixture'
import { headerFits, noSideScroll } from './view-checks'
import type { PlaygroundHandle } from '../../web/playground'

type PageWindow = Window & { __apPlayground: PlaygroundHandle }

const SIZES = [
  { width: 360, height: 640 },
  { width: 390, height: 844 },
]
const LONG_TEXT = longText(400, 3)

useEnv()

const pages = usePages()

/** A blank page on a phone of that size (touch, mobile, device scale factor 2). */
function phone(size: { width: number; height: number }): Promise<Opened> {
  return pages.open(undefined, { viewport: size, isMobile: true, hasTouch: true, deviceScaleFactor: 2 })
}

/**
 * W_v made 16 × 96 (d_v = 96, set by `widen`) is wider than a phone: its heatmap scrolls inside the panel, and
 * the panel stays on screen.
 */
async function matrixScrollsInPanel(
  root: Locator,
  page: Page,
  what: string,
  widen: () => Promise<unknown>,
): Promise<void> {
  await widen()
  // W_q, W_k, W_v are folded on a phone (issue 29): the learner opens the fold first.
  const fold = root.locator('details.w-fold')
  if (!(await fold.evaluate((d) => (d as HTMLDetailsElement).open))) await fold.locator(':scope > summary').tap()
  await root.locator('[data-step="Wv"] .hm-legend').waitFor()
  await expect.poll(() => root.locator('input[name="dv"]').inputValue()).toBe('96')
  await settled(page)
  await noSideScroll(page, `${what} with d_v = 96`)
  const width = await page.evaluate(() => document.documentElement.clientWidth)
  const panel = root.locator('[data-step="Wv"]')
  await panel.scrollIntoViewIfNeeded()
  const scroller = panel.locator('.hm-scroll')
  const m = await scroller.evaluate((el) => {
    const before = el.scrollLeft
    el.scrollLeft = 40
    const panelBox = el.closest('[data-step]')!.getBoundingClientRect()
    return { sw: el.scrollWidth, cw: el.clientWidth, moved: el.scrollLeft - before, panelRight: panelBox.right }
  })
  expect(m.sw, `${what}: W_v's heatmap (${m.sw} px) is wider than its box (${m.cw} px)`).toBeGreaterThan(m.cw)
  expect(m.moved, `${what}: the heatmap scrolls sideways inside the panel`).toBeGreaterThan(0)
  expect(m.panelRight, `${what}: the panel ends on screen`).toBeLessThanOrEqual(width)
}

/** A tap on a weights cell selects it: the arithmetic panel explains that cell. */
async function tapShowsArithmetic(root: Locator, what: string): Promise<void> {
  const canvas = root.locator('[data-step="weights"] canvas.hm-canvas')
  await canvas.scrollIntoViewIfNeeded()
  const box = (await canvas.boundingBox())!
  await root.page().touchscreen.tap(box.x + box.width * 0.6, box.y + box.height * 0.6)
  await settled(root.page())
  const cell = root.locator('[data-panel="arith"] .arith-cell')
  await expect(cell.textContent(), `${what}: the arithmetic after a tap`).resolves.toMatch(/\(\d+, \d+\)/)
}

type Touch = { x: number; y: number; id: number }
type Cdp = Awaited<ReturnType<BrowserContext['newCDPSession']>>
/** One CDP session per gesture: a touch sequence (start, moves, end) must go through the same one. */
async function touch(cdp: Cdp, type: 'touchStart' | 'touchMove' | 'touchEnd', points: Touch[]): Promise<void> {
  await cdp.send('Input.dispatchTouchEvent', { type, touchPoints: points.map((p) => ({ x: p.x, y: p.y, id: p.id })) })
}

/** The long view's zoom line: "<px> px/cell · rows a–b". */
async function longView(root: Locator): Promise<{ px: number; first: number }> {
  // The unit is the widget language's: px, or 像素 in Chinese.
  const text = (await root.locator('[data-panel="long"] .long-zoom').textContent()) ?? ''
  const m = /^([\d.]+) (?:px|像素)\/\S+ · \S+ (\d+)–/.exec(text)
  if (!m) throw new Error(`longView: cannot read "${text}"`)
  return { px: Number(m[1]), first: Number(m[2]) }
}

async function pinchAndDrag(root: Locator, what: string): Promise<void> {
  const page = root.page()
  const canvas = root.locator('[data-panel="long"] canvas.long-canvas')
  await canvas.scrollIntoViewIfNeeded()
  await settled(page)
  const b = (await canvas.boundingBox())!
  const cx = b.x + b.width * 0.6,
    cy = b.y + b.height * 0.5
  const before = await longView(root)
  const cdp = await page.context().newCDPSession(page)
  // Two fingers 40 px apart moving to 160 px apart: zoom in about their midpoint.
  await touch(cdp, 'touchStart', [
    { x: cx - 20, y: cy, id: 1 },
    { x: cx + 20, y: cy, id: 2 },
  ])
  for (let d = 30; d <= 80; d += 10)
    await touch(cdp, 'touchMove', [
      { x: cx - d, y: cy, id: 1 },
      { x: cx + d, y: cy, id: 2 },
    ])
  await touch(cdp, 'touchEnd', [])
  await settled(page)
  const zoomed = await longView(root)
  expect(zoomed.px, `${what}: a pinch zooms in (${before.px} → ${zoomed.px} px per cell)`).toBeGreaterThan(
    before.px * 2,
  )
  // One finger dragged up by 120 px: the view pans down the rows.
  await touch(cdp, 'touchStart', [{ x: cx, y: cy + 60, id: 3 }])
  for (let dy = 20; dy <= 120; dy += 20) await touch(cdp, 'touchMove', [{ x: cx, y: cy + 60 - dy, id: 3 }])
  await touch(cdp, 'touchEnd', [])
  await settled(page)
  const panned = await longView(root)
  expect(panned.px, `${what}: a drag does not zoom`).toBe(zoomed.px)
  expect(panned.first, `${what}: a one-finger drag pans (first row ${zoomed.first} → ${panned.first})`).toBeGreaterThan(
    zoomed.first,
  )
  await cdp.detach()
}

describe.each(SIZES)('a phone at $width × $height', (size) => {
  it('the page: matrices scroll in their panels, taps and gestures work, the long view fits', async () => {
    const { page, errors } = await phone(size)
    await page.goto(env.site.url + '?lang=en')
    await page.waitForSelector('[data-step="weights"] canvas')
    await settled(page)
    const root = page.locator('.ap-root')
    await page.screenshot({ path: artifact(`phone-${size.width}.png`) })
    await matrixScrollsInPanel(root, page, 'page', () =>
      page.evaluate(() => (window as unknown as PageWindow).__apPlayground.setState({ dv: 96 })),
    )
    await tapShowsArithmetic(root, 'page')
    await page.goto(env.site.url + `?lang=en&text=${encodeURIComponent(LONG_TEXT)}`)
    await page.waitForSelector('[data-panel="long"]:not([hidden]) canvas')
    await settled(page)
    await noSideScroll(page, `${size.width}px, long view`)
    await pinchAndDrag(root, 'page')
    expect(errors).toEqual([])
  }, 300_000)

  it('the widget in a lesson page: fits, scrolls matrices inside, taps and gestures work', async () => {
    const { page, errors } = await phone(size)
    await openLessonWidgets(page, env.widgets.url)
    const w = page.locator('#zh')
    for (const view of await viewsOf(w)) {
      await w.locator(`[role="tab"][data-view="${view}"]`).tap()
      if (view === 'train') await w.locator('[data-view-box="train"] button').first().waitFor()
      await settled(page)
      await noSideScroll(page, `widget ${size.width}px, view ${view}`)
    }
    await w.locator('[role="tab"][data-view="pipeline"]').tap()
    await settled(page)
    await headerFits(w, page, 'widget bar')
    await matrixScrollsInPanel(w, page, 'widget', () => w.evaluate((el) => el.setAttribute('dv', '96')))
    await tapShowsArithmetic(w, 'widget')
    await w.evaluate((el, text) => el.setAttribute('text', text), LONG_TEXT)
    await w.locator('[data-panel="long"]:not([hidden]) canvas').waitFor()
    await settled(page)
    await noSideScroll(page, `widget ${size.width}px, long view`)
    await pinchAndDrag(w, 'widget')
    expect(errors).toEqual([])
  }, 300_000)
})
