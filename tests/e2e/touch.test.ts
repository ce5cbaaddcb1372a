// Issue 29 on a 390 × 844 touch phone and on the desktop, in zh and en (every control's target size and the touch
// wording, view by view, are checked in tests/e2e/every-view.test.ts):
// - a link to a view scrolls its tab into sight;
// - "jump to the weights" brings the weights panel to the top of the screen; W_q / W_k / W_v are folded on the
//   phone; a clicked cell's arithmetic is brought into view with a way back; a heatmap's tooltip stays on screen;
// - the padding mask is set beside the masked scores (the weights then follow the engine's padded run);
// - at 52 tokens every row and column of the weights has room for its label (cells ≥ 12 px);
// - the Train tab pauses at its goal and says so, and a sentence with words outside its vocabulary gives a
//   message in the page's language while the last attention map stays drawn.
import { describe, expect, it } from 'vitest'
import { readPanel, settled } from './harness.mjs'
import { env, useEnv } from './env'
import { CASES, onDevice } from './devices'
import { usePages } from './page-fixture'
import { MESSAGES } from '../../web/i18n'
import { init } from '../../dist/index.js'
import type { PlaygroundHandle } from '../../web/playground'

type PageWindow = Window & { __apPlayground: PlaygroundHandle }

useEnv()
const pages = usePages()

describe('links to a view', () => {
  for (const view of ['train', 'decode', 'scaling', 'model']) {
    it(`a link to view=${view} shows its tab on the phone`, async () => {
      const { page } = await pages.open(env.site.url + `?lang=en&view=${view}`, onDevice('phone'))
      await settled(page)
      const m = await page.evaluate((v) => {
        const list = document.querySelector('[role="tablist"]')!.getBoundingClientRect()
        const tab = document.querySelector(`[role="tab"][data-view="${v}"]`)!.getBoundingClientRect()
        return { l: list.left, r: list.right, tl: tab.left, tr: tab.right }
      }, view)
      expect(m.tl).toBeGreaterThanOrEqual(m.l)
      expect(m.tr).toBeLessThanOrEqual(m.r)
    })
  }
})

describe('finding things', () => {
  for (const { device, lang } of CASES) {
    it(`jump to the weights, W folded on phones, the arithmetic brought into view (${device}, ${lang})`, async () => {
      const { page, errors } = await pages.open(env.site.url + `?lang=${lang}`, onDevice(device))
      await expect(page.locator('details.w-fold').evaluate((d) => (d as HTMLDetailsElement).open)).resolves.toBe(
        device === 'desktop',
      )
      const jump = page.locator('button[name="jumpWeights"]')
      await expect(jump.textContent()).resolves.toBe(MESSAGES[lang].jumpWeights)
      await jump.click()
      await settled(page)
      const top = await page.locator('[data-step="weights"]').evaluate((e) => e.getBoundingClientRect().top)
      expect(Math.abs(top)).toBeLessThan(40)

      // A score cell, clicked: the arithmetic comes into view, outlined, with a way back.
      const canvas = page.locator('[data-step="scores"] canvas.hm-canvas')
      await canvas.scrollIntoViewIfNeeded()
      const box = (await canvas.boundingBox())!
      if (device === 'phone') await page.touchscreen.tap(box.x + box.width * 0.7, box.y + box.height * 0.5)
      else await page.mouse.click(box.x + box.width * 0.7, box.y + box.height * 0.5)
      const arith = page.locator('[data-panel="arith"]')
      await expect.poll(() => arith.evaluate((e) => e.getBoundingClientRect().top)).toBeLessThan(100)
      await expect(arith.evaluate((e) => e.getBoundingClientRect().top)).resolves.toBeGreaterThanOrEqual(-1)
      await expect(arith.locator('.arith-cell').textContent()).resolves.toMatch(/\(\d+, \d+\)/)
      const back = arith.locator('button[name="arithBack"]')
      await expect(back.textContent()).resolves.toBe(MESSAGES[lang].arithBack)
      await back.click()
      await settled(page)
      const sc = await page
        .locator('[data-step="scores"]')
        .evaluate((e) => [e.getBoundingClientRect().top, e.getBoundingClientRect().bottom, innerHeight])
      expect(sc[1]).toBeGreaterThan(0)
      expect(sc[0]).toBeLessThan(sc[2])
      expect(errors).toEqual([])
    })
  }

  it('a tooltip on the rightmost column stays on the phone screen', async () => {
    const { page } = await pages.open(
      env.site.url + '?lang=en&text=' + encodeURIComponent('one two three four five six'),
      onDevice('phone'),
    )
    const canvas = page.locator('[data-step="scores"] canvas.hm-canvas')
    await canvas.scrollIntoViewIfNeeded()
    const box = (await canvas.boundingBox())!
    await page.mouse.move(box.x + box.width - 4, box.y + box.height - 4)
    const tip = page.locator('[data-step="scores"] .hm-tip')
    await expect.poll(() => tip.isVisible()).toBe(true)
    const r = await tip.evaluate((e) => [e.getBoundingClientRect().left, e.getBoundingClientRect().right])
    expect(r[0]).toBeGreaterThanOrEqual(0)
    expect(r[1]).toBeLessThanOrEqual(390)
  })

  for (const { device, lang } of CASES) {
    it(`the padding mask is set beside the masked scores (${device}, ${lang})`, async () => {
      const { page, errors } = await pages.open(env.site.url + `?lang=${lang}`, onDevice(device))
      await page.locator('select[name="mask"]').selectOption('padding')
      await settled(page)
      const row = page.locator('[data-step="maskedScores"] [data-pad-keys]')
      await expect(row.isVisible()).resolves.toBe(true)
      await expect(row.locator('.lbl').textContent()).resolves.toBe(
        MESSAGES[lang][device === 'phone' ? 'padKeysLabelTouch' : 'padKeysLabel'],
      )
      await row.locator('button[data-key="3"]').click()
      await settled(page)
      expect((await page.evaluate(() => (window as unknown as PageWindow).__apPlayground.getState())).padKeys).toEqual([
        3,
      ])
      await expect(row.locator('button[data-key="3"]').getAttribute('aria-pressed')).resolves.toBe('true')
      const ap = await init()
      const ref = ap.run({ text: 'this is my cat', mask: { keyPadding: [false, false, false, true] } })
      const got = await readPanel(page, 'weights')
      got.values.forEach((r, i) => r.forEach((v, j) => expect(v).toBeCloseTo(ref.weights.data[i * 4 + j], 3)))
      expect(got.values.map((r) => r[3])).toEqual([0, 0, 0, 0])
      expect(errors).toEqual([])
    })
  }

  for (const device of ['phone', 'desktop'] as const) {
    it(`at 52 tokens every weights row and column has room for its label (${device})`, async () => {
      const words = Array.from({ length: 52 }, (_, i) => `w${i}`).join(' ')
      const { page } = await pages.open(
        env.site.url + `?lang=en&tokenizer=word&text=${encodeURIComponent(words)}`,
        onDevice(device),
      )
      const canvas = page.locator('[data-step="weights"] canvas.hm-canvas')
      const size = await canvas.evaluate((c) => [c.clientWidth, c.clientHeight])
      // Labels take the first ~30 px; 52 cells of 12 px or more follow on each side.
      expect(size[0]).toBeGreaterThanOrEqual(52 * 12)
      expect(size[1]).toBeGreaterThanOrEqual(52 * 12)
    })
  }
  for (const { device, lang } of CASES) {
    it(`the highlighted row's label is drawn whole, in bold ("this", not "t…") (${device}, ${lang})`, async () => {
      const { page, errors } = await pages.open(env.site.url + `?lang=${lang}`, onDevice(device))
      // Every label the heatmaps draw, with its font: the canvas is the only place the text exists.
      await page.addInitScript(() => {
        const drawn: Array<[string, string]> = []
        ;(window as unknown as { __drawn: typeof drawn }).__drawn = drawn
        const fill = CanvasRenderingContext2D.prototype.fillText
        CanvasRenderingContext2D.prototype.fillText = function (text: string, x: number, y: number, w?: number) {
          drawn.push([text, this.font])
          return w === undefined ? fill.call(this, text, x, y) : fill.call(this, text, x, y, w)
        }
      })
      await page.reload()
      await page.waitForSelector('[data-step="weights"] canvas', { state: 'attached' })
      await settled(page)
      await page.evaluate(() => ((window as unknown as { __drawn: unknown[] }).__drawn.length = 0))
      // The first token's chip, focused (as a tap or Tab does): row 0 of every n × n panel is highlighted.
      await page.locator('.tok[data-i="0"]').first().focus()
      await settled(page)
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))))
      const bold = await page.evaluate(() =>
        (window as unknown as { __drawn: Array<[string, string]> }).__drawn.filter(([, f]) => f.startsWith('bold')),
      )
      const texts = bold.map(([t]) => t)
      expect(texts).toContain('this')
      expect(texts.filter((t) => t.endsWith('…'))).toEqual([])
      expect(errors).toEqual([])
    })
  }
})

describe('the Train tab', () => {
  for (const { device, lang } of CASES) {
    it(`pauses at its goal and says so; a word outside the vocabulary is explained in ${lang} (${device})`, async () => {
      const { page, errors } = await pages.open(env.site.url + `?lang=${lang}&view=train`, onDevice(device))
      const panel = page.locator('[data-view-box="train"]')
      await panel.locator('button[name="play"]').waitFor({ timeout: 30_000 })
      await panel.locator('button[name="play"]').click()
      const goal = panel.locator('[data-goal]')
      // the goal is reached, and nothing went wrong on the way (a play sent before the worker's trainer was
      // made once failed as 'trainer: not created yet', and the goal never came)
      await expect
        .poll(async () => (await goal.textContent()) || (await panel.locator('.tr-error').textContent()), {
          timeout: 60_000,
        })
        .not.toBe('')
      expect(await panel.locator('.tr-error').textContent()).toBe('')
      const text = (await goal.textContent())!
      expect(text).toMatch(lang === 'zh' ? /^第 \d+ 步达到目标/ : /^Goal reached at step \d+/)
      const pct = Number(/(\d+(?:\.\d+)?) ?%/.exec(text)![1])
      expect(pct).toBeGreaterThanOrEqual(95)
      await expect
        .poll(() => panel.locator('button[name="play"]').getAttribute('aria-pressed'), { timeout: 10_000 })
        .toBe('false')

      // Chinese words in "sentence to watch": the message in the page's language, the last map still drawn.
      await panel.locator('input[name="sentence"]').fill('我 爱 中国')
      const err = panel.locator('.tr-error')
      await expect.poll(() => err.textContent(), { timeout: 10_000 }).toContain('“我”')
      expect(await err.textContent()).toMatch(
        lang === 'zh' ? /不在这个任务的词表里/ : /is not in this task’s vocabulary/,
      )
      const inked = await panel.locator('[data-train-view="attention"] canvas').evaluate((c) => {
        const cv = c as HTMLCanvasElement
        const d = cv.getContext('2d')!.getImageData(0, 0, cv.width, cv.height).data
        let n = 0
        for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++
        return n
      })
      expect(inked).toBeGreaterThan(1000)
      expect(errors).toEqual([])
    }, 120_000)
  }
})
