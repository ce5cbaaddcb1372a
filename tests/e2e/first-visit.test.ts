// A first visit, as issue 29's users tried it, on a 390 × 844 phone (touch) and on the desktop, in zh and en:
// - the course example says why its rows stay one-hot with ÷√d_k on (the shown largest scaled score is the
//   engine's), and one click gives d_model = 2, where switching the scale changes the weights (numbers read
//   from the page's tables, against the engine run in Node);
// - Chinese typed without spaces is split into words by Intl.Segmenter (typed spaces kept), the page says so,
//   and the lesson card names the tokens the page really uses;
// - each tour step's "try it" is undone when the learner moves on, and leaving the tour brings back the state
//   from before it; a `guided=` link scrolls to its step.
import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { readPanel, settled } from './harness.mjs'
import { env, useEnv } from './env'
import { CASES, onDevice } from './devices'
import { traced, usePages } from './page-fixture'
import { init } from '../../dist/index.js'
import type { PlaygroundHandle } from '../../web/playground'
import { MESSAGES } from '../../web/i18n'

type PageWindow = Window & { __apPlayground: PlaygroundHandle }

useEnv()
const pages = usePages()

let engine: Awaited<ReturnType<typeof init>> | null = null
async function nodeEngine(): Promise<Awaited<ReturnType<typeof init>>> {
  engine ??= await init()
  return engine
}

const state = (page: Page) => page.evaluate(() => (window as unknown as PageWindow).__apPlayground.getState())
const tokens = (page: Page) => page.evaluate(() => (window as unknown as PageWindow).__apPlayground.getTrace()!.tokens)

/** Clicks (or taps, on a touch device) a control after scrolling it into view. */
async function press(page: Page, selector: string): Promise<void> {
  const el = page.locator(selector)
  await el.scrollIntoViewIfNeeded()
  if (await page.evaluate(() => matchMedia('(pointer: coarse)').matches)) await el.tap()
  else await el.click()
  await settled(page)
}

describe('the course example and ÷√d_k', () => {
  for (const { device, lang } of CASES) {
    it(`says why the rows stay one-hot and offers d_model = 2 (${device}, ${lang})`, async () => {
      const { page, errors } = await pages.open(env.site.url + `?lang=${lang}`, onDevice(device))
      const note = page.locator('[data-step="scaledScores"] [data-note="scale"]')
      await expect(note.isVisible()).resolves.toBe(true)
      const maxAbs = await page.evaluate(() => {
        const t = (window as unknown as PageWindow).__apPlayground.getTrace()!
        return Math.max(...Array.from(t.scaledScores.data, Math.abs))
      })
      const ref = (await nodeEngine()).run({ text: 'this is my cat' })
      expect(maxAbs).toBeCloseTo(Math.max(...Array.from(ref.scaledScores.data, Math.abs)), 3)
      const text = (await note.textContent()) ?? ''
      expect(text).toContain(maxAbs.toFixed(1))
      expect(text).toContain('torch.rand')
      expect(text).toContain(MESSAGES[lang].scaleTrySmall)

      await press(page, 'button[name="scaleCase"]')
      expect((await state(page)).dModel).toBe(2)
      await expect(note.textContent()).resolves.toContain(MESSAGES[lang].scaleSwitchOff)
      const on = await readPanel(page, 'weights')
      await press(page, 'button[name="scaleCompare"]')
      expect((await state(page)).scale).toBe('off')
      const off = await readPanel(page, 'weights')
      for (const [panel, scale] of [
        [on, undefined],
        [off, false],
      ] as const) {
        const r = (await nodeEngine()).run({ text: 'this is my cat', dModel: 2, scale })
        panel.values.forEach((row, i) => row.forEach((v, j) => expect(v).toBeCloseTo(r.weights.data[i * 4 + j], 3)))
      }
      // The scale visibly matters: some row's largest weight moves by more than 0.3.
      const rowMax = (v: number[][]) => v.map((row) => Math.max(...row))
      const moved = rowMax(on.values).map((m, i) => Math.abs(m - rowMax(off.values)[i]))
      expect(Math.max(...moved)).toBeGreaterThan(0.3)
      expect(errors).toEqual([])
    })
  }
})

/** Intl.Segmenter's words in Node: the reference for the page's Chinese words (Chromium's ICU). */
const icuWords = (s: string) =>
  [...new Intl.Segmenter('zh', { granularity: 'word' }).segment(s)].map((x) => x.segment).filter((x) => /\S/.test(x))

describe('Chinese typed without spaces is split into words', () => {
  for (const { device, lang } of CASES) {
    it(`by the word segmenter, keeping typed spaces, says so, and the lesson card is true (${device}, ${lang})`, async () => {
      const { page, errors } = await pages.open(env.site.url + `?lang=${lang}`, onDevice(device))
      const text = page.locator('[data-panel="controls"] textarea[name="text"]')
      const note = page.locator('[data-note="tokenizer"]')
      await text.fill('我 爱 中国')
      await settled(page)
      expect((await state(page)).tokenizer).toBe('word-sorted')
      expect(await tokens(page)).toEqual(['我', '爱', '中国'])
      await expect(note.isVisible()).resolves.toBe(false)

      // The lesson's 我/爱/中国, by the word tokenizer the learner chose (no switch to characters).
      await text.fill('我爱中国')
      await settled(page)
      expect((await state(page)).tokenizer).toBe('word-sorted')
      expect(await tokens(page)).toEqual(['我', '爱', '中国'])
      expect(icuWords('我爱中国')).toEqual(['我', '爱', '中国'])
      await expect(note.isVisible()).resolves.toBe(true)
      await expect(note.textContent()).resolves.toBe(MESSAGES[lang].tokSegmented)
      const own = page.locator('[data-panel="lessonExample"] [data-own-run]')
      await expect(own.textContent()).resolves.toContain('我 / 爱 / 中国')
      await expect(own.textContent()).resolves.toContain('3')
      // The same numbers as the hand-spaced sentence.
      const r = (await nodeEngine()).run({ text: '我 爱 中国' })
      const shown = await readPanel(page, 'weights')
      shown.values.forEach((row, i) => row.forEach((v, j) => expect(v).toBeCloseTo(r.weights.data[i * 3 + j], 3)))

      // Typed spaces stay word boundaries: four words, none split into characters.
      await text.fill('我 爱 北京 天安门')
      await settled(page)
      expect(await tokens(page)).toEqual(['我', '爱', '北京', '天安门'])
      for (const s of ['我爱北京天安门', '私は猫です']) {
        await text.fill(s)
        await settled(page)
        expect(await tokens(page), s).toEqual(icuWords(s))
      }
      await text.fill('a cat')
      await settled(page)
      await expect(note.isVisible()).resolves.toBe(false)
      // The character tokenizer still splits by character.
      await page.evaluate(() =>
        (window as unknown as PageWindow).__apPlayground.setState({ tokenizer: 'char', text: '我爱中国' }),
      )
      await settled(page)
      expect(await tokens(page)).toEqual(['我', '爱', '中', '国'])
      await expect(note.isVisible()).resolves.toBe(false)
      expect(errors).toEqual([])
    })
  }

  it('a link keeps the same words as typing', async () => {
    // Read once the page has drawn (the handle is set after the engine loads; reading at once raced it).
    const { page, errors } = await pages.open(env.site.url + '?lang=zh&text=我爱北京天安门', { ready: traced })
    expect(await tokens(page)).toEqual(['我', '爱', '北京', '天安门'])
    expect(errors).toEqual([])
  })
})

describe('the guided tour undoes its tries', () => {
  for (const { device, lang } of CASES) {
    it(`moving on undoes a try; leaving restores the state before the tour (${device}, ${lang})`, async () => {
      const { page, errors } = await pages.open(env.site.url + `?lang=${lang}&temperature=2`, onDevice(device))
      await press(page, 'button[name="guided"]')
      const next = '[data-panel="guided"] button[name="next"]'
      const tryIt = '[data-panel="guided"] button[name="try"]'
      await press(page, next)
      await press(page, tryIt)
      expect((await state(page)).scale).toBe('off')
      await press(page, next)
      expect((await state(page)).scale).toBe('auto')
      await press(page, tryIt)
      expect((await state(page)).mask).toBe('causal')
      await press(page, next)
      let s = await state(page)
      expect([s.guided, s.mask, s.scale]).toEqual([4, 'none', 'auto'])
      // Step 4's try from T = 2 (the state before the tour): T = 1; the weights change, as the engine's do.
      const before = await readPanel(page, 'weights')
      await press(page, tryIt)
      expect((await state(page)).temperature).toBe(1)
      const after = await readPanel(page, 'weights')
      const ref = (await nodeEngine()).run({ text: 'this is my cat', temperature: 1 })
      after.values.forEach((row, i) => row.forEach((v, j) => expect(v).toBeCloseTo(ref.weights.data[i * 4 + j], 3)))
      expect(after.values).not.toEqual(before.values)
      await press(page, tryIt)
      await press(page, tryIt)
      await press(page, '[data-panel="guided"] button[name="exit"]')
      s = await state(page)
      expect([s.guided, s.scale, s.mask, s.temperature]).toEqual([0, 'auto', 'none', 2])
      expect(errors).toEqual([])
    })
  }

  for (const device of ['phone', 'desktop'] as const) {
    it(`a guided= link scrolls to its step (${device})`, async () => {
      const { page } = await pages.open(env.site.url + '?lang=en&guided=4', onDevice(device))
      await settled(page)
      const box = await page.evaluate(() => {
        const r = document.querySelector('[data-step="weights"]')!.getBoundingClientRect()
        return { top: r.top, bottom: r.bottom, h: innerHeight }
      })
      expect(box.top).toBeLessThan(box.h)
      expect(box.bottom).toBeGreaterThan(0)
    })
  }
})
