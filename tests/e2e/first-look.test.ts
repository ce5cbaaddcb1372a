// What a learner sees in the first minutes (issue 39 item 6), each defect measured on the page: labels under or over
// other marks (bounding boxes), a heatmap cut by an inner scroll, a checkbox out of scale with its label, text that contradicts the state on screen.
// The Train tab's canvas charts are checked in tests/unit/web-train-charts.test.ts (their drawing calls); text under
// 12 px on a phone, every view at 390 × 844 and 360 × 640 in zh and en, in tests/e2e/every-view.test.ts.
import { describe, expect, it } from 'vitest'
import { env, useEnv } from './env'
import { usePages, traced } from './page-fixture'
import { MESSAGES } from '../../web/i18n'
import { TRAIN } from '../../web/i18n/train'
import { TRAINED_SENTENCE } from '../../web/compute/trained'

useEnv()
const pages = usePages()

const DESKTOP = { viewport: { width: 1366, height: 768 } }
const PHONES = {
  '390 × 844': { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
}

describe('Why attention: the weights on the arcs', () => {
  for (const [name, device] of Object.entries({ desktop: DESKTOP, phone: PHONES['390 × 844'] })) {
    it(`every label sits clear of its arc's stroke, inside the drawing (${name})`, async () => {
      const { page } = await pages.open(env.site.url + '?lang=zh&view=why', { ...device, ready: traced })
      for (const word of ['it', 'tired', 'The']) {
        await page.locator('.why-pick', { hasText: new RegExp(`^${word}$`) }).click()
        const boxes = await page.locator('svg.why-attn').evaluate((s) => {
          const svg = s as SVGSVGElement
          const view = svg.viewBox.baseVal
          return [...svg.querySelectorAll<SVGTextElement>('text.why-wt')]
            .filter((t) => t.textContent)
            .map((t) => {
              const arc = t.previousElementSibling as SVGPathElement
              const tb = t.getBBox()
              return {
                label: t.textContent,
                bottom: tb.y + tb.height,
                top: tb.y,
                arcTop: arc.getBBox().y - Number(arc.getAttribute('stroke-width')) / 2,
                viewTop: view.y,
              }
            })
        })
        expect(boxes.length, word).toBeGreaterThan(0)
        for (const b of boxes) {
          expect(b.bottom, `${word} → ${b.label}: the label's box ends above the arc's stroke`).toBeLessThanOrEqual(
            b.arcTop,
          )
          expect(b.top, `${word} → ${b.label}: inside the drawing`).toBeGreaterThanOrEqual(b.viewTop)
        }
      }
    })
  }
})

describe('Why ÷√d_k: the charts', () => {
  for (const [name, device] of Object.entries({ desktop: DESKTOP, phone: PHONES['390 × 844'] })) {
    it(`no two labels of a chart overlap, and none is under 12 px (${name})`, async () => {
      const { page } = await pages.open(env.site.url + '?lang=zh&view=scaling', { ...device, ready: traced })
      await expect
        .poll(() => page.locator('[data-step="scaling"]').getAttribute('data-scaling-done'), { timeout: 30_000 })
        .toBe('true')
      const charts = await page.locator('svg.scaling-plot').evaluateAll((svgs) =>
        svgs.map((s) => {
          const texts = [...s.querySelectorAll<SVGTextElement>('text')]
          const scale = Math.hypot((s as SVGSVGElement).getScreenCTM()!.a, (s as SVGSVGElement).getScreenCTM()!.b)
          const rects = texts.map((t) => t.getBoundingClientRect())
          const overlaps: string[] = []
          for (let i = 0; i < rects.length; i++)
            for (let j = i + 1; j < rects.length; j++) {
              const [a, b] = [rects[i], rects[j]]
              const w = Math.min(a.right, b.right) - Math.max(a.left, b.left)
              const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top)
              if (w > 0.5 && h > 0.5) overlaps.push(`"${texts[i].textContent}" × "${texts[j].textContent}"`)
            }
          return { overlaps, px: Math.min(...texts.map((t) => parseFloat(getComputedStyle(t).fontSize) * scale)) }
        }),
      )
      expect(charts.length).toBe(4)
      for (const c of charts) {
        expect(c.overlaps).toEqual([])
        expect(c.px).toBeGreaterThanOrEqual(12)
      }
    })
  }
})

describe('Your model: the sample head', () => {
  it('its 18 × 18 heatmap shows every row at once (no inner scroll)', async () => {
    const { page } = await pages.open(env.site.url + '?lang=en&view=model', { ...DESKTOP, ready: traced })
    const scroll = page.locator('.model-big .hm-scroll').first()
    await scroll.waitFor()
    await expect.poll(() => page.locator('.model-big canvas.hm-canvas').first().getAttribute('width')).not.toBe('0')
    const box = await scroll.evaluate((e) => ({ scroll: e.scrollHeight, client: e.clientHeight }))
    expect(box.scroll).toBeLessThanOrEqual(box.client + 1)
    // Layers in the grid of thumbnails are counted from 1, as everywhere.
    expect(await page.locator('.model-layer-label').allTextContents()).toEqual(['1', '2'])
  })
})

describe('FlashAttention: the causal checkbox', () => {
  it('is the size of its label, in the row’s type size', async () => {
    const { page } = await pages.open(env.site.url + '?lang=zh&view=flash', { ...DESKTOP, ready: traced })
    const m = await page.locator('input[name="flashCausal"]').evaluate((cb) => {
      const label = cb.nextElementSibling as HTMLElement
      const a = cb.getBoundingClientRect()
      const b = label.getBoundingClientRect()
      return {
        box: a.height,
        text: b.height,
        font: parseFloat(getComputedStyle(label).fontSize),
        centres: Math.abs(a.top + a.height / 2 - (b.top + b.height / 2)),
      }
    })
    expect(m.box).toBeLessThanOrEqual(m.text)
    expect(m.font).toBeGreaterThanOrEqual(13)
    expect(m.centres).toBeLessThanOrEqual(2)
  })
})

describe('the Train tab says what the chosen task shows', () => {
  for (const lang of ['zh', 'en'] as const) {
    it(`its intro follows the task; Adam is "Adam" (${lang})`, async () => {
      const { page } = await pages.open(env.site.url + `?lang=${lang}&view=train`, { ...DESKTOP, ready: traced })
      const intro = page.locator('.ap-train > .tr-intro')
      await intro.waitFor()
      await expect.poll(() => intro.innerText()).toContain(TRAIN[lang].introCoreference)
      await page.locator('select[name="task"]').selectOption('induction')
      await expect.poll(() => intro.innerText()).toContain(TRAIN[lang].introInduction)
      expect(await intro.innerText()).not.toMatch(/animal|动物/)
      expect(await page.locator('select[name="optimizer"] option[value="adam"]').textContent()).toBe('Adam')
    })
  }
})

describe('trained weights: the first panel says what X is', () => {
  for (const lang of ['zh', 'en'] as const) {
    it(`layer 2's input, made by layer 1; not "a row of the embedding table" (${lang})`, async () => {
      const { page } = await pages.open(
        env.site.url + `?lang=${lang}&weights=trained&text=${encodeURIComponent(TRAINED_SENTENCE)}`,
        {
          ...DESKTOP,
          ready: traced,
        },
      )
      const panel = page.locator('[data-step="embeddings"]')
      // The trained weights come from the trainer module, loaded on demand: the panel fills once it has.
      await expect.poll(() => panel.locator('.formula annotation').count(), { timeout: 30_000 }).toBe(1)
      const title = await panel.locator('h3').first().innerText()
      expect(title).toBe(MESSAGES[lang].trainedLayerInput)
      expect(await panel.locator('.formula annotation').textContent()).toContain('H_0 + \\mathrm{MHA}_1(H_0)')
      const help = await panel.locator('.help, .hint').first().innerText()
      expect(help).toBe(MESSAGES[lang].helpTrainedInput)
    })
  }
})
