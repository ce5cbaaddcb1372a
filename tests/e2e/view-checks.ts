// What every view must hold wherever it is shown, measured on the page as it is drawn: no axe-core violation, no
// control under the target size (and on a phone, the primary ones 44 px tall), no text under 12 px on a phone, no
// sideways scroll on a phone, and the header's buttons on screen. tests/e2e/every-view.test.ts walks every view on
// every device and in both languages once and runs them all; the widget's own sweeps (a11y, phone) use them too.
import { expect } from 'vitest'
import type { Locator, Page } from 'playwright-core'
import { axeViolations, settled } from './harness.mjs'

/**
 * Waits for what a view loads or measures after it is shown, and its first draw: the Train tab's module and its
 * worker's first snapshot (the watched sentence filled in), the poem sample, the model view's sample file, the
 * scaling view's measurements. Locators reach into the widget's shadow roots.
 */
export async function viewReady(page: Page, view: string): Promise<void> {
  const wait = { timeout: 30_000 }
  if (view === 'train') {
    await page.waitForSelector('[data-view-box="train"] button', wait)
    const sentences = page.locator('.ap-train .tr-sentence')
    await expect
      .poll(() => sentences.evaluateAll((els) => els.every((e) => (e as HTMLInputElement).value !== '')), wait)
      .toBe(true)
  }
  // The poem's panels (bars, heads, residual stream) exist once the sample has written.
  if (view === 'generate') await page.waitForSelector('[data-poem]:not([data-poem=""])', wait)
  // The page opens its sample model file there (web/app.ts); the widget has none to open.
  if (view === 'model' && (await page.evaluate(() => '__apPlayground' in window)))
    await page.waitForSelector('.model-sample-note:not([hidden])', wait)
  if (view === 'scaling') await page.waitForSelector('[data-step="scaling"][data-scaling-done="true"]', wait)
  await page.waitForLoadState('networkidle')
  await settled(page)
}

/** axe-core (WCAG 2.0/2.1 A and AA, 2.2 AA, best practices) finds nothing on the page as it is now. */
export async function expectAxeClean(page: Page, what: string): Promise<void> {
  const v = await axeViolations(page)
  expect(v, `${what}:\n${v.join('\n')}`).toEqual([])
}

export const CONTROLS =
  'button, a[href], input, select, textarea, summary, [role="button"], [role="tab"], [tabindex]:not([tabindex="-1"])'
export const PRIMARY =
  '.btn-primary, [role="tab"], .segmented .seg, .guided-nav button, .ap-actions button, .controls select, .controls input[type="number"], .ap-train button'

/** Visible controls smaller than `min` px (width or height; `tall`: height only), as "tag.class name w×h". */
export function smallControls(page: Page, selector: string, min: number, tall = false): Promise<string[]> {
  return page.evaluate(
    ({ selector, min, tall }) => {
      const out: string[] = []
      for (const el of document.querySelectorAll<HTMLElement>(selector)) {
        const r = el.getBoundingClientRect()
        if (!r.width || !r.height || el.closest('[hidden]')) continue
        // WCAG 2.5.8's inline exception: a link inside a sentence is sized by the line it sits in.
        if (el.tagName === 'A' && el.parentElement?.tagName === 'P') continue
        if ((!tall && r.width < min) || r.height < min)
          out.push(
            `${el.tagName.toLowerCase()}.${el.getAttribute('class') ?? ''} ${el.getAttribute('name') ?? el.textContent?.slice(0, 20)} ${Math.round(r.width)}×${Math.round(r.height)}`,
          )
      }
      return out
    },
    { selector, min, tall },
  )
}

/**
 * Visible text under `min` px: every text node with a box on the page (shadow roots too), at its computed size, times
 * the drawing's scale inside an SVG. As "where: text (size)".
 */
export const smallText = (page: Page, min = 12): Promise<string[]> =>
  page.evaluate((min) => {
    const out: string[] = []
    const visit = (root: Document | ShadowRoot) => {
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT)
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const text = n.textContent?.trim()
        const el = n.parentElement
        if (!text || !el) continue
        const range = document.createRange()
        range.selectNodeContents(n)
        if (![...range.getClientRects()].some((r) => r.width > 1 && r.height > 1)) continue
        const cs = getComputedStyle(el)
        if (cs.visibility === 'hidden') continue
        let size = parseFloat(cs.fontSize)
        const m = el instanceof SVGGraphicsElement ? el.getScreenCTM() : null
        if (m) size *= Math.hypot(m.a, m.b)
        if (size < min - 0.01) {
          const at = el.closest('[data-step],[data-panel]') as HTMLElement | null
          out.push(
            `${at?.dataset.step ?? at?.dataset.panel ?? el.tagName}: ${text.slice(0, 24)} (${size.toFixed(1)} px)`,
          )
        }
      }
      for (const e of root.querySelectorAll('*')) if (e.shadowRoot) visit(e.shadowRoot)
    }
    visit(document)
    return out
  }, min)

/** The page does not scroll sideways: its content is no wider than the layout viewport. */
export async function noSideScroll(page: Page, what: string): Promise<void> {
  const m = await page.evaluate(() => {
    const d = document.documentElement
    // The widest element, to name the culprit when the check fails.
    let worst = '',
      right = 0
    const walk = (root: Document | ShadowRoot) => {
      for (const el of root.querySelectorAll<HTMLElement>('*')) {
        const r = el.getBoundingClientRect()
        if (r.width && r.right > right) {
          right = r.right
          worst = `${el.tagName.toLowerCase()}.${el.className}`
        }
        if (el.shadowRoot) walk(el.shadowRoot)
      }
    }
    walk(document)
    return { scrollWidth: d.scrollWidth, clientWidth: d.clientWidth, worst, right: Math.round(right) }
  })
  expect(
    m.scrollWidth,
    `${what}: page ${m.scrollWidth} px wide in ${m.clientWidth} (widest: ${m.worst} to ${m.right})`,
  ).toBeLessThanOrEqual(m.clientWidth)
}

/** Every visible button of the header lies inside the viewport. */
export async function headerFits(root: Locator, page: Page, what: string): Promise<void> {
  const width = await page.evaluate(() => document.documentElement.clientWidth)
  const boxes = await root.locator('.ap-header button:visible').evaluateAll((bs) =>
    bs.map((b) => {
      const r = b.getBoundingClientRect()
      return { name: b.textContent ?? '', left: r.left, right: r.right }
    }),
  )
  for (const b of boxes) {
    expect(b.left, `${what}: header button "${b.name}" starts at ${b.left}`).toBeGreaterThanOrEqual(0)
    expect(b.right, `${what}: header button "${b.name}" ends at ${b.right} of ${width}`).toBeLessThanOrEqual(width)
  }
}
