// A teacher preparing a class (issue 29), on a phone and the desktop, in zh and en:
// - "Embed" gives an iframe and an <attention-playground> tag for the current state with the panels ticked;
//   the iframe's link opens the page with only those panels (`steps=` on the page's URL, kept as the learner
//   changes things), and the tag, put in a course page, shows the same panels and numbers;
// - a panel's PNG carries its colour key and a caption of the settings under the heatmap (read back from the
//   image's pixels: the key's ends are the panel's own colours, the caption rows hold text).
import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { axeViolations, readPanel, settled } from './harness.mjs'
import { env, useEnv } from './env'
import { CASES, onDevice } from './devices'
import { usePages } from './page-fixture'
import { MESSAGES } from '../../web/i18n'
import type { PlaygroundHandle } from '../../web/playground'

type PageWindow = Window & { __apPlayground: PlaygroundHandle }

useEnv()
const pages = usePages()

/** The visible step panels (data-step) of the page. */
const visibleSteps = (page: Page) =>
  page
    .locator('[data-step]')
    .evaluateAll((els) =>
      els.filter((e) => (e as HTMLElement).offsetParent !== null).map((e) => (e as HTMLElement).dataset.step),
    )

describe('Embed', () => {
  for (const { device, lang } of CASES) {
    it(`gives an iframe and a tag for the current state, with the panels ticked (${device}, ${lang})`, async () => {
      const { page, context, errors } = await pages.open(
        env.site.url + `?lang=${lang}&temperature=2&mask=causal`,
        onDevice(device),
      )
      const btn = page.locator('header button[name="embed"]')
      await expect(btn.textContent()).resolves.toBe(MESSAGES[lang].embed)
      await btn.click()
      await expect(btn.getAttribute('aria-expanded')).resolves.toBe('true')
      await page.locator('[data-embed] input[value="weights"]').check()
      await page.locator('[data-embed] input[value="scores"]').check()
      const iframe = await page.locator('textarea[name="embedIframe"]').inputValue()
      const widget = await page.locator('textarea[name="embedWidget"]').inputValue()
      expect(iframe).toMatch(/^<iframe src="[^"]+" title="[^"]+" width="100%" height="\d+"/)
      const src = new URL(iframe.match(/src="([^"]+)"/)![1].replace(/&amp;/g, '&'))
      expect(Object.fromEntries(src.searchParams)).toEqual({
        temperature: '2',
        mask: 'causal',
        lang,
        steps: 'scores,weights',
      })
      expect(widget).toContain(`<attention-playground lang="${lang}"`)
      expect(widget).toContain('mask="causal"')
      expect(widget).toContain('temperature="2"')
      expect(widget).toContain('steps="scores,weights"')

      // The iframe's page: only the two panels, the same numbers as the page they came from.
      const want = await readPanel(page, 'weights')
      const framed = await pages.open(env.site.url + src.search, onDevice(device))
      expect(await visibleSteps(framed.page)).toEqual(['scores', 'weights'])
      expect((await readPanel(framed.page, 'weights')).values).toEqual(want.values)
      // The embed layout: no header, tab bar or controls; a link opens the same state on the full page.
      expect(await embedChrome(framed.page)).toEqual({ header: false, tabs: false, controls: false })
      const full = new URL((await framed.page.locator('a.full-page').getAttribute('href'))!)
      expect(full.searchParams.has('steps')).toBe(false)
      expect(full.searchParams.get('mask')).toBe('causal')
      await expect(framed.page.locator('a.full-page').textContent()).resolves.toBe(MESSAGES[lang].embedOpenFull)
      // steps= stays in the URL as the state changes.
      await framed.page.evaluate(() => (window as unknown as PageWindow).__apPlayground.setState({ mask: 'none' }))
      await settled(framed.page)
      await expect.poll(() => new URL(framed.page.url()).searchParams.get('steps')).toBe('scores,weights')

      // The tag as given (its script is the site's own widget/widget.js), in a course page beside the site: the
      // same panels and numbers.
      expect(widget.split('\n')[0]).toBe(`<script type="module" src="${env.site.url}widget/widget.js"></script>`)
      const html = `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>t</title></head><body><main>${widget}</main></body></html>`
      // Its errors join `errors` (the same context).
      const course = await context.newPage()
      await course.route(`${env.site.url}embed-test.html`, (r) =>
        r.fulfill({ body: html, contentType: 'text/html; charset=utf-8' }),
      )
      await course.goto(`${env.site.url}embed-test.html`)
      await course.locator('attention-playground').evaluate((el) => (el as unknown as { ready: Promise<void> }).ready)
      await settled(course)
      const tagged = course.locator('attention-playground')
      const shown = await tagged
        .locator('[data-step]')
        .evaluateAll((els) =>
          els.filter((e) => (e as HTMLElement).offsetParent !== null).map((e) => (e as HTMLElement).dataset.step),
        )
      expect(shown).toEqual(['scores', 'weights'])
      await tagged.locator('[data-step="weights"] details.hm-alt summary').click()
      await expect.poll(() => tagged.locator('[data-step="weights"] table tbody td').count()).toBe(16)
      const cells = await tagged.locator('[data-step="weights"] table tbody td').allTextContents()
      expect(cells.map((c) => Number(c.trim()))).toEqual(want.values.flat())
      expect(errors).toEqual([])
    })
  }
})

/** Whether the page's header, tab bar and controls column are on screen. */
const embedChrome = (page: Page) =>
  page.evaluate(() => {
    const shown = (sel: string) => {
      const e = document.querySelector<HTMLElement>(sel)
      return !!e && e.offsetParent !== null
    }
    return { header: shown('header.ap-header'), tabs: shown('.ap-nav'), controls: shown('[data-panel="controls"]') }
  })

describe('steps= on the page', () => {
  for (const device of ['phone', 'desktop'] as const) {
    it(`shows only the listed panels and names an unknown one in a notice (${device})`, async () => {
      const { page, errors } = await pages.open(env.site.url + '?lang=en&steps=weights,nope', onDevice(device))
      expect(await visibleSteps(page)).toEqual(['weights'])
      await expect(page.locator('.banner.notice').textContent()).resolves.toContain('steps = “nope”')
      expect(await embedChrome(page)).toEqual({ header: false, tabs: false, controls: false })
      // No Train tab (as in the widget with steps): the panels listed are the page.
      await expect(page.locator('[role="tab"][data-view="train"]').isVisible()).resolves.toBe(false)
      // The embed layout too: axe-core's wcag22aa rules find nothing.
      expect(await axeViolations(page)).toEqual([])
      expect(errors).toEqual([])
    })
  }
})

describe("the Embed box's iframe", () => {
  for (const { device, lang } of CASES) {
    it(`shows the weights, whole, at the top of its frame (${device}, ${lang})`, async () => {
      const { page, context, errors } = await pages.open(
        env.site.url + `?lang=${lang}&text=the+animal+was+too+tired`,
        onDevice(device),
      )
      await page.locator('header button[name="embed"]').click()
      await page.locator('[data-embed] input[value="weights"]').check()
      const snippet = await page.locator('textarea[name="embedIframe"]').inputValue()
      const height = Number(snippet.match(/height="(\d+)"/)![1])
      expect(height).toBeLessThanOrEqual(600)
      const host = await context.newPage()
      await host.route(`${env.site.url}course.html`, (r) =>
        r.fulfill({
          body: `<!doctype html><title>c</title><body style="margin:0">${snippet}`,
          contentType: 'text/html',
        }),
      )
      await host.goto(`${env.site.url}course.html`)
      const frame = host.frameLocator('iframe')
      await frame.locator('[data-step="weights"] canvas').waitFor()
      // The heatmap and its labels wholly inside the frame's first screen, the step names around it hidden.
      const box = await frame.locator('[data-step="weights"]').evaluate((e) => {
        const r = e.getBoundingClientRect()
        return { top: r.top, bottom: r.bottom, h: innerHeight }
      })
      expect(box.h).toBe(height)
      expect(box.top).toBeGreaterThanOrEqual(0)
      expect(box.bottom).toBeLessThanOrEqual(height)
      const shown = await frame
        .locator('[data-step]')
        .evaluateAll((els) =>
          els.filter((e) => (e as HTMLElement).offsetParent !== null).map((e) => e.getAttribute('data-step')),
        )
      expect(shown).toEqual(['weights'])
      expect(errors).toEqual([])
    })
  }
})

describe('PNG export', () => {
  for (const { device, lang } of CASES) {
    it(`carries the colour key and a caption of the settings (${device}, ${lang})`, async () => {
      const { page, errors } = await pages.open(
        env.site.url + `?lang=${lang}&seed=7&dModel=8&text=a+b+c`,
        onDevice(device),
      )
      const info = await page.evaluate(async () => {
        const blob = await (window as unknown as PageWindow).__apPlayground.png('weights')
        const img = await createImageBitmap(blob)
        const c = document.createElement('canvas')
        c.width = img.width
        c.height = img.height
        const g = c.getContext('2d')!
        g.drawImage(img, 0, 0)
        const map = document.querySelector<HTMLCanvasElement>('[data-step="weights"] canvas.hm-canvas')!
        // The bottom 40 rows: the caption, dark text only (no coloured pixel, as a heatmap's would be). The 30
        // rows above them: the colour key, viridis' two ends (the weights' key: 0 → #440154, max → #fde725).
        const near = (d: Uint8ClampedArray, i: number, rgb: number[]) =>
          Math.abs(d[i] - rgb[0]) + Math.abs(d[i + 1] - rgb[1]) + Math.abs(d[i + 2] - rgb[2]) < 30
        const caption = g.getImageData(0, c.height - 40, c.width, 40).data
        let inkRows = 0
        let coloured = 0
        for (let y = 0; y < 40; y++) {
          let ink = 0
          for (let x = 0; x < c.width; x++) {
            const i = 4 * (y * c.width + x)
            if (caption[i] < 200) ink++
            const rgb = [caption[i], caption[i + 1], caption[i + 2]]
            if (Math.max(...rgb) - Math.min(...rgb) > 60) coloured++
          }
          if (ink > 3) inkRows++
        }
        const key = g.getImageData(0, c.height - 70, c.width, 30).data
        let low = false
        let high = false
        for (let i = 0; i < key.length; i += 4) {
          low ||= near(key, i, [0x44, 0x01, 0x54])
          high ||= near(key, i, [0xfd, 0xe7, 0x25])
        }
        return { h: img.height, mapH: map.height, inkRows, coloured, low, high }
      })
      expect(info.h).toBeGreaterThan(info.mapH + 100)
      expect(info.inkRows).toBeGreaterThan(10)
      expect(info.coloured).toBe(0)
      expect([info.low, info.high]).toEqual([true, true])
      expect(errors).toEqual([])
    })
  }
})
