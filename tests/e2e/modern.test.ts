// The views on attention as it runs today in real Chromium, page and widget, zh and en: flash (tile by tile through
// flashTrace, ending equal to plain attention), heads (MHA / GQA / MQA sharing, the sliding window with sinks), sinks
// (a model trained in the page, the sink logit) and the Decoding view's KV-cache panel. Their numbers are checked
// against the engine in Node (the same wasm) and against the formulas.
import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { settled } from './harness.mjs'
import { env, useEnv } from './env'
import { traced, usePages } from './page-fixture'
import type { PlaygroundHandle } from '../../web/playground'
import type { AttentionPlaygroundElement as WidgetEl } from '../../web/widget'
import { kvCacheBytes, kvStepCost } from '../../web/compute/kv-cache'
import { translate } from '../../web/i18n'
import { MODERN, type ModernKey } from '../../web/i18n/modern'
import { modernQuestions } from '../../web/views/modern-quiz'

type Win = { __apPlayground: PlaygroundHandle }

useEnv()
const pages = usePages()

async function openPage(query: string) {
  return pages.open(env.site.url + query, { viewport: { width: 1400, height: 1000 }, ready: traced })
}

async function addWidget(page: Page, id: string, attrs: string): Promise<void> {
  await page.evaluate(
    ([i, a]) =>
      document.body.insertAdjacentHTML('beforeend', `<attention-playground id="${i}" ${a}></attention-playground>`),
    [id, attrs],
  )
  await page.locator(`#${id}`).evaluate((el) => (el as WidgetEl).ready)
}

/** The view's quiz: its questions on the page, in `lang`; answering the right option marks it right. */
async function quizShown(page: Page, view: 'flash' | 'heads' | 'sinks', lang: 'zh' | 'en'): Promise<void> {
  const qs = modernQuestions(view, lang)
  const ids = await page.locator(`[data-quiz^="${view}:"]`).evaluateAll((els) => els.map((e) => e.dataset.quiz))
  expect(ids).toEqual(qs.map((q) => q.id))
  const first = page.locator(`[data-quiz="${qs[0].id}"]`)
  expect(await first.locator('.quiz-q').innerText()).toBe(qs[0].prompt)
  await first.locator('.quiz-opts button', { hasText: qs[0].options[qs[0].right] }).click()
  expect(await first.getAttribute('data-quiz-result')).toBe('right')
}

const num = async (page: Page, sel: string, attr: string) => Number(await page.locator(sel).getAttribute(attr))

describe('view flash', () => {
  for (const lang of ['en', 'zh'] as const) {
    it(`steps through every tile and ends equal to plain attention (${lang})`, async () => {
      const { page, errors } = await openPage(`?view=flash&lang=${lang}&text=this is my cat`)
      const v = page.locator('[data-step="flash"]')
      expect(await v.isVisible()).toBe(true)
      // 4 tokens, blocks 2 × 3: 2 row blocks × 2 key blocks
      expect(await v.getAttribute('data-flash-steps')).toBe('4')
      expect(await page.locator('[data-flash="grid"] td.flash-now').count()).toBe(6)
      expect(await page.locator('[data-flash="counter"]').innerText()).toMatch(
        lang === 'en' ? /Tile 1 of 4/ : /第 1 \/ 4 个瓦片/,
      )
      for (let k = 1; k < 4; k++) await page.locator('button[name="flashStep"]').click()
      expect(await v.getAttribute('data-flash-step')).toBe('3')
      // the last tile (rows 2–3 × key 3): the other 14 cells grey, computed before and never stored
      expect(await page.locator('[data-flash="grid"] td.flash-now').count()).toBe(2)
      expect(await page.locator('[data-flash="grid"] td.flash-gone').count()).toBe(14)
      const result = page.locator('[data-flash="result"]')
      expect(await result.getAttribute('data-done')).toBe('true')
      expect(Number(await result.getAttribute('data-max-diff'))).toBeLessThan(1e-6)
      // each row's factor is exp(m_old − m_new) of its own m's
      const rows = await page.locator('[data-flash="rows"] tbody tr').count()
      expect(rows).toBe(2)
      expect(await page.locator('[data-flash="kernel"]').innerText()).toMatch(/36.*128/)
      await quizShown(page, 'flash', lang)
      // causal: tiles wholly above the diagonal are skipped
      await page.locator('input[name="flashCausal"]').check()
      expect(await v.getAttribute('data-flash-steps')).toBe('3')
      expect(errors).toEqual([])
    })
  }
})

describe('view heads', () => {
  for (const lang of ['en', 'zh'] as const) {
    it(`shows MHA, GQA and MQA sharing K/V heads and the window with sinks (${lang})`, async () => {
      const { page, errors } = await openPage(`?view=heads&lang=${lang}&text=one two three four five six`)
      const kvOf = (arr: string) =>
        page
          .locator(`[data-arrangement="${arr}"] [data-head]`)
          .evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-kv'))))
      expect(await kvOf('mha')).toEqual([0, 1, 2, 3])
      expect(await kvOf('gqa')).toEqual([0, 0, 1, 1])
      expect(await kvOf('mqa')).toEqual([0, 0, 0, 0])
      // Heads counted from 1 in the labels (issue 36), data-head and data-kv stay 0-based indices.
      const tx = translate(MODERN, lang)
      expect(await page.locator('[data-arrangement="gqa"] [data-head] figcaption').allInnerTexts()).toEqual(
        [0, 1, 2, 3].map(
          (hh) =>
            `${tx('headsWeightsOf', { h: hh + 1 })} · ${tx('headsShare', { h: hh + 1, g: Math.floor(hh / 2) + 1 })}`,
        ),
      )
      // heads sharing a K/V head in MQA see the same keys; their weights differ only through their queries
      expect(await page.locator('[data-arrangement="mqa"] .heads-weights').count()).toBe(4)
      // the default window 2 with 1 sink over 6 tokens: rows 3, 4, 5 lose keys; row 5 loses 1, 2, 3, keeps key 0
      const out = () => page.locator('[data-heads="outside"] li[data-row]').count()
      expect(await out()).toBe(3)
      expect(await page.locator('[data-heads="outside"] li[data-row="5"]').innerText()).toMatch(/two, three, four/)
      await quizShown(page, 'heads', lang)
      // window 3 (the old default): rows 4 and 5, row 5 has keys 1 and 2 slid out
      await page.locator('input[name="headsWindow"]').fill('3')
      await expect.poll(out).toBe(2)
      expect(await page.locator('[data-heads="outside"] li[data-row="5"]').innerText()).toMatch(/two, three/)
      // W + sinks = 5 + 1 ≥ 6: nothing slides out, and the sentence says why
      await page.locator('input[name="headsWindow"]').fill('5')
      await expect.poll(out).toBe(0)
      expect(await page.locator('[data-heads="outside"] li').innerText()).toContain('5 + 1 ≥ n = 6')
      expect(errors).toEqual([])
    })
  }
})

describe('view heads at its defaults', () => {
  it('"this is my cat" with W = 2 and 1 sink: the last row\'s "is" slides out, "this" stays as the sink', async () => {
    const { page, errors } = await openPage('?view=heads&lang=en')
    const rows = page.locator('[data-heads="outside"] li[data-row]')
    // before: W = 3, nothing slid out, and the view said "(W ≥ n)" with W = 3 and n = 4
    expect(await rows.count()).toBe(1)
    expect(await rows.first().getAttribute('data-row')).toBe('3')
    expect(await rows.first().innerText()).toBe('Row 3 (cat): outside the window, not attended: is.')
    expect(await page.locator('[data-heads="outside"]').innerText()).not.toMatch(/W ≥ n/)
    expect(errors).toEqual([])
  })
})

describe('view sinks', () => {
  it('opens on its model at once (committed for the default seed), reports honestly whether a sink head appeared, and the sink logit takes a share (en, zh)', async () => {
    const { page, errors } = await openPage('?view=sinks&lang=en')
    const v = page.locator('[data-step="sinks"]')
    // Opens on the committed measure for the default seed: done at the first render (before: ~9 s "training…").
    expect(await v.getAttribute('data-sinks-done')).toBe('true')
    expect(await page.locator('[data-sinks="status"]').innerText()).not.toMatch(/Training/)
    // Whole percents (the legend says so), never "2.96e-7 (1.37e-6)"
    const cells = await page.locator('[data-sinks="table"] tbody td').allInnerTexts()
    expect(cells.length).toBeGreaterThan(0)
    for (const c of cells) expect(c).toMatch(/^(|\d{1,3}|\d{1,3} \(\d{1,3}\))$/)
    expect(await page.locator('[data-sinks="table"] tbody tr:nth-child(2) td').first().innerText()).toMatch(
      /^\d+ \(\d+\)$/,
    )
    expect(await page.locator('[data-sinks="heads"] li').count()).toBe(8)
    // Layers and heads counted from 1 in the labels (issue 36): layer 1, head 1 … layer 2, head 4.
    const heads = await page.locator('[data-sinks="heads"] li').allInnerTexts()
    expect(heads[0]).toMatch(/^layer 1, head 1:/)
    expect(heads[7]).toMatch(/^layer 2, head 4:/)
    const found = await v.getAttribute('data-sinks-found')
    expect(await page.locator('[data-sinks="verdict"]').innerText()).toMatch(found === 'true' ? /^Found/ : /^Not found/)
    // every row: weights + the sink's share = 1
    const sums = await page
      .locator('[data-sinks="table"] tbody tr')
      .evaluateAll((trs) =>
        trs.map(
          (tr) =>
            Number(tr.querySelector('[data-sum]')!.getAttribute('data-sum')) +
            Number(tr.querySelector('[data-share]')!.getAttribute('data-share')),
        ),
      )
    for (const s of sums) expect(Math.abs(s - 1)).toBeLessThan(1e-5)
    const share0 = await num(page, '[data-sinks="pos0"]', 'data-share')
    await page.locator('input[name="sinkLogit"]').fill('4')
    expect(await num(page, '[data-sinks="pos0"]', 'data-share')).toBeGreaterThan(share0)
    await quizShown(page, 'sinks', 'en')
    await page.evaluate(() => (window as unknown as Win).__apPlayground.setState({ lang: 'zh' }))
    await settled(page)
    expect(await page.locator('[data-step="sinks"] h2').innerText()).toMatch(/注意力汇聚/)
    await quizShown(page, 'sinks', 'zh')
    expect(errors).toEqual([])
  })
})

describe("view sinks on the Train tab's model", () => {
  it('measures the last layer "look inside this step" hands over, head by head, against an even spread', async () => {
    const { page, errors } = await pages.open(env.site.url + '?view=sinks&lang=en', {
      viewport: { width: 1400, height: 1000 },
      ready: traced,
    })
    const v = page.locator('[data-step="sinks"]')
    expect(await v.getAttribute('data-sinks-tab')).toBe('none')
    expect(await page.locator('[data-sinks="train-verdict"]').innerText()).toBe(
      translate(MODERN, 'en')('sinksTabWaiting'),
    )
    await page.evaluate(() => (window as unknown as Win).__apPlayground.setState({ view: 'train' }))
    const panel = page.locator('section.ap-train')
    await expect.poll(() => panel.locator('.tr-sentence').inputValue(), { timeout: 30_000 }).not.toBe('')
    await panel.locator('button[name="step"]').click()
    await expect.poll(() => panel.locator('[data-train="grad-norms"]').textContent(), { timeout: 30_000 }).toMatch(/‖/)
    await panel.locator('button[data-train="inspect"]').click()
    await expect.poll(() => new URL(page.url()).searchParams.get('view')).toBe('backward')
    await page.evaluate(() => (window as unknown as Win).__apPlayground.setState({ view: 'sinks' }))
    await expect.poll(() => v.getAttribute('data-sinks-tab')).not.toBe('none')
    const means = await page
      .locator('[data-sinks="train-heads"] li')
      .evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-mean'))))
    expect(means.length).toBeGreaterThan(0)
    for (const m of means) expect(m).toBeGreaterThan(0)
    for (const m of means) expect(m).toBeLessThan(1)
    const found = await v.getAttribute('data-sinks-tab')
    expect(await page.locator('[data-sinks="train-verdict"]').innerText()).toMatch(
      found === 'true' ? /^Found in the Train tab/ : /^Not found in the Train tab/,
    )
    expect(errors).toEqual([])
  })
})

describe('KV cache in the Decoding view', () => {
  for (const lang of ['en', 'zh'] as const) {
    it(`grows one row per step, counts both ways, sizes real models (${lang})`, async () => {
      const { page, errors } = await openPage(`?view=decode&lang=${lang}&source=我 爱 中国&target=I love China`)
      const p = page.locator('[data-step="kv-cache"]')
      expect(await p.isVisible()).toBe(true)
      const cached = () => page.locator('[data-kv="cache"] tr[data-cached="true"]').count()
      expect(await cached()).toBe(1)
      // the decode view's one stepper steps the cache too
      await page.locator('button[name="decodeStep"]').click()
      await page.locator('button[name="decodeStep"]').click()
      expect(await cached()).toBe(3)
      const s = await page.evaluate(() => (window as unknown as Win).__apPlayground.getState())
      const c = kvStepCost(3, { dModel: s.dModel, dq: s.dq, dk: s.dq, dv: s.dv })
      expect(await num(page, '[data-kv-counter="macs"] td[data-with]', 'data-with')).toBe(c.withMacs)
      expect(await num(page, '[data-kv-counter="macs"] td[data-without]', 'data-without')).toBe(c.withoutMacs)
      // LLaMA-3-8B: 2 · 32 layers · 8 K/V heads · 128 dims · 2 bytes = 128 KiB per token
      expect(await num(page, '[data-model="LLaMA-3-8B"] td[data-bytes] >> nth=0', 'data-bytes')).toBe(131072)
      // at its 8,192-token context: 1 GiB; Mistral's window caps its 32,768 at 4,096 tokens
      expect(await num(page, '[data-model="LLaMA-3-8B"] td[data-bytes] >> nth=1', 'data-bytes')).toBe(2 ** 30)
      expect(await num(page, '[data-model="Mistral-7B"] td[data-bytes] >> nth=1', 'data-bytes')).toBe(2 ** 29)
      // each model's name links to the config.json its numbers were read from
      const hrefs = await page
        .locator('[data-kv="sizes"] th a')
        .evaluateAll((as) => as.map((a) => a.getAttribute('href')))
      expect(hrefs).toEqual(
        [
          'openai-community/gpt2',
          'meta-llama/Llama-2-7b-hf',
          'meta-llama/Meta-Llama-3-8B',
          'mistralai/Mistral-7B-v0.1',
        ].map((r) => `https://huggingface.co/${r}/blob/main/config.json`),
      )
      expect(kvCacheBytes({ layers: 32, kvHeads: 8, headDim: 128, window: 4096 }, 32768)).toBe(
        2 * 32 * 8 * 128 * 4096 * 2,
      )
      expect(errors).toEqual([])
    })
  }
})

describe('the widget opens the views', () => {
  it('view="flash", "heads", "sinks" and the decode view with its KV-cache panel, each in zh and en', async () => {
    const { page, errors } = await pages.open(env.widgets.url + '/tests/e2e/pages/two.html', {
      viewport: { width: 1300, height: 1000 },
    })
    /** The panel's heading in `first`, then in the other language after the widget's lang attribute changes. */
    const bothLangs = async (id: string, sel: string, key: ModernKey, first: 'zh' | 'en') => {
      const heading = page.locator(`#${id} ${sel}`)
      expect(await heading.innerText()).toBe(translate(MODERN, first)(key))
      const other = first === 'zh' ? 'en' : 'zh'
      await page.locator(`#${id}`).evaluate((el, l) => el.setAttribute('lang', l), other)
      await expect.poll(() => heading.innerText()).toBe(translate(MODERN, other)(key))
    }
    await addWidget(page, 'fl', 'view="flash" lang="zh" text="我爱中国" tokenizer="char"')
    await addWidget(page, 'hd', 'view="heads" lang="en"')
    await addWidget(page, 'kv', 'view="decode" lang="zh" source="我 爱 中国" target="I love China"')
    expect(await page.locator('#fl [data-step="flash"]').isVisible()).toBe(true)
    expect(await page.locator('#fl [data-flash="grid"] td.flash-now').count()).toBeGreaterThan(0)
    await bothLangs('fl', '[data-step="flash"] h2', 'flashTitle', 'zh')
    expect(await page.locator('#hd [data-arrangement="gqa"]').getAttribute('data-kv-heads')).toBe('2')
    await bothLangs('hd', '[data-step="heads"] h2', 'headsTitle', 'en')
    expect(await page.locator('#kv [data-step="kv-cache"]').isVisible()).toBe(true)
    expect(await page.locator('#kv [data-kv="cache"] tr[data-cached="true"]').count()).toBe(1)
    await bothLangs('kv', '[data-step="kv-cache"] h3', 'kvTitle', 'zh')
    await addWidget(page, 'sk', 'view="sinks" lang="en"')
    await expect
      .poll(() => page.locator('#sk [data-step="sinks"]').getAttribute('data-sinks-done'), { timeout: 120000 })
      .toBe('true')
    expect(await page.locator('#sk [data-sinks="heads"] li').count()).toBe(8)
    await bothLangs('sk', '[data-step="sinks"] h2', 'sinksTitle', 'en')
    expect(await page.locator('#sk [data-sinks="verdict"]').innerText()).toMatch(/^(找到了|这里没有出现)/)
    expect(errors).toEqual([])
  })
})
