// The guided tour shows what it explains (issue 39 item 1), in real Chromium, on a laptop (1366 × 768) and two
// phones (390 × 844, 360 × 640), in en and zh, at every step reached by its Next button:
// - the panel the step points at (its first panel) is in view, and its title and first rows (the panel's top
//   120 px) lie wholly inside the viewport and not under the tour card — overlap measured by bounding boxes,
//   0 px² — and no other panel of the step has its top under the card;
// - on the phones nothing in the card scrolls inside itself (the card, its explanation, the step's question, its
//   options and the feedback after an answer: scrollHeight ≤ clientHeight for each), and the feedback is shown
//   whole inside the viewport once an option is pressed.
import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { settled } from './harness.mjs'
import { env, useEnv } from './env'
import { RENDERED, usePages } from './page-fixture'
import { GUIDED_STEPS } from '../../web/panels/guided'

useEnv()

const pages = usePages()

const SIZES = [
  { name: 'laptop', viewport: { width: 1366, height: 768 }, isMobile: false, hasTouch: false },
  { name: 'phone', viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
  { name: 'small phone', viewport: { width: 360, height: 640 }, isMobile: true, hasTouch: true },
] as const

/** The part of a panel a learner must see: its title and first rows. */
const HEAD = 120

interface Rect {
  top: number
  bottom: number
  left: number
  right: number
}

interface Look {
  card: Rect
  vh: number
  vw: number
  panels: Array<{ name: string; rect: Rect }>
  /** elements of the card whose content is taller than their box */
  scrolling: string[]
}

function overlap(a: Rect, b: Rect): number {
  const w = Math.min(a.right, b.right) - Math.max(a.left, b.left)
  const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top)
  return w > 0 && h > 0 ? w * h : 0
}

/** Waits until the page has stopped scrolling (the tour scrolls smoothly, a frame after it renders). */
async function still(page: Page): Promise<void> {
  await settled(page)
  await page.waitForFunction(
    () =>
      new Promise<boolean>((resolve) => {
        let y = scrollY
        let same = 0
        const tick = () => {
          same = scrollY === y ? same + 1 : 0
          y = scrollY
          if (same >= 5) resolve(true)
          else setTimeout(tick, 100)
        }
        setTimeout(tick, 100)
      }),
  )
  await settled(page)
}

async function look(page: Page, steps: readonly string[]): Promise<Look> {
  return page.evaluate((names) => {
    const box = (el: Element) => {
      const r = el.getBoundingClientRect()
      return { top: r.top, bottom: r.bottom, left: r.left, right: r.right }
    }
    const card = document.querySelector('[data-panel="guided"]')!
    const quiz = document.querySelector('.quiz-tour')!
    const scrolling = [card, ...card.querySelectorAll('*'), quiz, ...quiz.querySelectorAll('*')]
      .filter((e) => (e as HTMLElement).offsetParent !== null && e.scrollHeight > e.clientHeight + 1)
      .filter((e) => getComputedStyle(e).display !== 'inline')
      .filter((e, i, all) => all.indexOf(e) === i)
      .map((e) => `${e.tagName.toLowerCase()}.${e.className} ${e.scrollHeight} > ${e.clientHeight}`)
    return {
      card: box(card),
      vh: innerHeight,
      vw: innerWidth,
      panels: names.map((n) => ({ name: n, rect: box(document.querySelector(`[data-step="${n}"]`)!) })),
      scrolling,
    }
  }, steps)
}

describe('the guided tour never covers the panel it explains', () => {
  for (const size of SIZES)
    for (const lang of ['en', 'zh'] as const) {
      it(`every step, ${size.name} ${size.viewport.width}×${size.viewport.height}, ${lang}`, async () => {
        const { name: _n, ...device } = size
        const { page } = await pages.open(env.site.url + `?lang=${lang}`, { ...device, ready: RENDERED })
        await page.locator('button[name="guided"]').click()
        await still(page)
        const phone = size.viewport.width < 600
        const report: string[] = []
        for (let n = 1; n <= GUIDED_STEPS.length; n++) {
          if (n > 1) {
            await page.locator('[data-panel="guided"] button[name="next"]').click()
            await still(page)
          }
          const l = await look(page, GUIDED_STEPS[n - 1].steps)
          const [first] = l.panels
          const head = { ...first.rect, bottom: Math.min(first.rect.bottom, first.rect.top + HEAD) }
          const covered = l.panels.map((p) =>
            overlap(l.card, { ...p.rect, bottom: Math.min(p.rect.bottom, p.rect.top + HEAD) }),
          )
          report.push(
            `step ${n}: card ${Math.round(l.card.top)}–${Math.round(l.card.bottom)}, ${first.name} ${Math.round(head.top)}–${Math.round(head.bottom)}, covered ${covered.map(Math.round).join('/')} px²`,
          )
          expect
            .soft(head.top, `step ${n}: ${first.name}'s title below the top (${report.at(-1)})`)
            .toBeGreaterThanOrEqual(0)
          expect
            .soft(head.bottom, `step ${n}: ${first.name}'s first rows in view (${report.at(-1)})`)
            .toBeLessThanOrEqual(l.vh)
          expect
            .soft(covered, `step ${n}: no panel of the step under the card (${report.at(-1)})`)
            .toEqual(covered.map(() => 0))
          if (phone) expect(l.scrolling, `step ${n}: nothing in the card scrolls inside it`).toEqual([])
          // The step's question: answering it shows the feedback whole, in view, with no inner scroll.
          const quiz = page.locator('.quiz-tour [data-quiz]')
          if (phone && (await quiz.count())) {
            await quiz.first().locator('button').first().click()
            await settled(page)
            const after = await look(page, GUIDED_STEPS[n - 1].steps)
            expect.soft(after.scrolling, `step ${n}: after an answer nothing in the card scrolls`).toEqual([])
            const expl = await quiz
              .first()
              .locator('.quiz-expl')
              .evaluate((e) => {
                e.scrollIntoView({ block: 'nearest' })
                const r = e.getBoundingClientRect()
                return { top: r.top, bottom: r.bottom, vh: innerHeight, text: e.textContent ?? '' }
              })
            expect.soft(expl.text.length, `step ${n}: feedback shown`).toBeGreaterThan(10)
            expect.soft(expl.top, `step ${n}: feedback in view`).toBeGreaterThanOrEqual(0)
            expect.soft(expl.bottom, `step ${n}: feedback in view`).toBeLessThanOrEqual(expl.vh + 1)
          }
        }
        console.log(`${size.name} ${lang}\n  ${report.join('\n  ')}`)
      }, 90_000)
    }
})
