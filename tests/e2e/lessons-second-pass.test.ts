// The lessons' second pass (issue 22), in Chromium. Trained or not, always said: the root's data-weights, the
// note above the pipeline with its link to the Train tab, weights=trained and the "it, trained" preset showing the
// trained model's "it → animal" on the page and in the widget (whose trace holds those numbers), in zh and en.
// Decoding as a decoder computes it: the step from the URL or the widget, the data-tensor elements' numbers, and
// an earlier target word changing a later step's cross weights.
import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { settled } from './harness.mjs'
import { env, useEnv } from './env'
import { traced, usePages, type Opened } from './page-fixture'
import type { PlaygroundHandle } from '../../web/playground'
import { init } from '../../dist/index.js'
import type { Engine } from 'attention-playground'
import { decodeModel } from '../../web/compute/decode'
import type { AttentionPlaygroundElement as WidgetEl } from '../../web/widget'

type Win = { __apPlayground: PlaygroundHandle }

useEnv()
let engine: Engine | null = null
const getEngine = async () => (engine ??= (await init()) as unknown as Engine)

const pages = usePages()

/** The page at `query`, once its first trace is there. */
function openPage(query = ''): Promise<Opened> {
  return pages.open(env.site.url + query, { viewport: { width: 1400, height: 1000 }, ready: traced })
}

/** The widgets' course page (tests/e2e/pages/two.html). */
async function coursePage(): Promise<Page> {
  const { page } = await pages.open(env.widgets.url + '/tests/e2e/pages/two.html', {
    viewport: { width: 1300, height: 1000 },
  })
  return page
}

/** The token the "it" row weighs most, and that weight, read from a trace. */
function itRow(t: { tokens: string[]; weights: { data: ArrayLike<number> } }): { top: string; weight: number } {
  const n = t.tokens.length
  const i = t.tokens.indexOf('it')
  const row = Array.from(t.weights.data).slice(i * n, (i + 1) * n)
  const j = row.indexOf(Math.max(...row))
  return { top: t.tokens[j], weight: row[j] }
}

const trace = (page: Page) =>
  page.evaluate(() => {
    const t = (window as unknown as Win).__apPlayground.getTrace()!
    return { tokens: t.tokens, weights: { data: Array.from(t.weights.data), shape: t.weights.shape } }
  })

describe('random or trained weights, always said', () => {
  it('the default page says random, in en and zh, and links to the Train tab', async () => {
    const { page, errors } = await openPage()
    expect(await page.locator('.ap-root').getAttribute('data-weights')).toBe('random')
    const note = page.locator('.weights-note')
    expect(await note.isVisible()).toBe(true)
    expect(await note.innerText()).toMatch(/Random weights\..*nothing here was trained/)
    await page.locator('button[name="lang"]').click()
    await settled(page)
    expect(await note.innerText()).toMatch(/随机权重。.*没有经过训练/)
    await note.locator('a.weights-train').click()
    await settled(page)
    expect(await page.evaluate(() => (window as unknown as Win).__apPlayground.getState().view)).toBe('train')
    expect(errors).toEqual([])
  })

  it('weights=trained: the trained model\'s last layer, its "it" row on "animal", said so with how it was trained', async () => {
    const { page, errors } = await openPage(
      `?weights=trained&text=${encodeURIComponent("the animal didn't cross the street because it was too tired")}`,
    )
    expect(await page.locator('.ap-root').getAttribute('data-weights')).toBe('trained')
    const text = await page.locator('.weights-note').innerText()
    expect(text).toMatch(
      /Trained weights\. Layer 2 of 2 .*coreference.*−log.*200 Adam steps.*held-out accuracy 99\.\d %/,
    )
    const r = itRow(await trace(page))
    expect(r.top).toBe('animal')
    expect(r.weight).toBeGreaterThan(0.9)
    // The weights panel's numbers (its CSV export): the "it" row's largest is its "animal" cell.
    const csv = await page.evaluate(() => (window as unknown as Win).__apPlayground.csv('weights'))
    const itLine = csv.split('\n').find((l) => l.startsWith('it,'))!
    const cells = itLine.split(',').slice(1).map(Number)
    expect(csv.split('\n')[0].split(',')[1 + cells.indexOf(Math.max(...cells))]).toBe('animal')
    // Changing a size goes back to random weights, and says so.
    await page.evaluate(() => (window as unknown as Win).__apPlayground.setState({ dModel: 16 }))
    await settled(page)
    expect(await page.locator('.ap-root').getAttribute('data-weights')).toBe('random')
    expect(errors).toEqual([])
  })

  it('the "it" preset and the note\'s switch load the trained weights', async () => {
    const { page, errors } = await openPage('?lang=zh')
    await page.locator('select[name="preset"]').selectOption('it')
    // The trained weights are the trainer module's, which the page loads when first asked (issue 38 item 4).
    await page.waitForSelector('.ap-root[data-weights="trained"]')
    await settled(page)
    expect(await page.locator('.weights-note').innerText()).toMatch(/训练后的权重。.*第 2 层（共 2 层）/)
    expect(itRow(await trace(page)).top).toBe('animal')
    expect(new URL(page.url()).searchParams.get('weights')).toBe('trained')
    await page.locator('button[name="weightsToggle"]').click()
    await settled(page)
    expect(await page.locator('.ap-root').getAttribute('data-weights')).toBe('random')
    await page.locator('button[name="weightsToggle"]').click()
    await settled(page)
    expect(itRow(await trace(page)).top).toBe('animal')
    expect(errors).toEqual([])
  })

  it('the widget: data-weights on the element, weights="trained" in its trace', async () => {
    const page = await coursePage()
    await page.evaluate(() =>
      document.body.insertAdjacentHTML(
        'beforeend',
        `<attention-playground id="r" lang="en"></attention-playground><attention-playground id="t" weights="trained" text="the dog could not get over the river since it was too wide"></attention-playground>`,
      ),
    )
    for (const id of ['r', 't']) await page.locator(`#${id}`).evaluate((el) => (el as WidgetEl).ready)
    // weights="trained" waits for the trainer module (loaded on demand) before its first trace.
    await expect.poll(() => page.locator('#t').evaluate((el) => (el as WidgetEl).trace !== null)).toBe(true)
    expect(await page.locator('#r').getAttribute('data-weights')).toBe('random')
    expect(await page.locator('#t').getAttribute('data-weights')).toBe('trained')
    expect(await page.locator('#t .ap-root').getAttribute('data-weights')).toBe('trained')
    expect(await page.locator('#t .weights-note').isVisible()).toBe(true)
    const t = await page.locator('#t').evaluate((el) => {
      const tr = (el as WidgetEl).trace!
      return { tokens: tr.tokens, weights: { data: Array.from(tr.weights.data), shape: tr.weights.shape } }
    })
    // "too wide" is about the river.
    expect(itRow(t).top).toBe('river')
    await page.locator('#t').evaluate((el) => el.setAttribute('weights', 'random'))
    await expect.poll(() => page.locator('#t').getAttribute('data-weights')).toBe('random')
  })
})

/** The numbers in an element's text (the decode tables print 4 decimals, or 2 and an exponent, ASCII minus). */
const numbersIn = (page: Page, sel: string) =>
  page
    .locator(sel)
    .innerText()
    .then((t) => (t.match(/-?\d+\.\d+(?:e[-+]?\d+)?/g) ?? []).map(Number))

function expectNear(shown: number[], want: ArrayLike<number>, what: string): void {
  expect(shown.length, what).toBe(want.length)
  shown.forEach((v, i) => expect(Math.abs(v - want[i]), `${what}[${i}]`).toBeLessThanOrEqual(5.1e-5))
}

describe('decoding as a decoder computes it', () => {
  const SRC = 'le chat dort bien'
  const open = (target: string, step: number) =>
    openPage(`?view=decode&source=${encodeURIComponent(SRC)}&target=${encodeURIComponent(target)}&step=${step}`)

  it('step from the URL; data-tensor elements hold the numbers; the URL follows the buttons', async () => {
    const { page, errors } = await open('le chat dort bien', 3)
    const s = await page.evaluate(() => (window as unknown as Win).__apPlayground.getState())
    const m = decodeModel(await getEngine(), s)
    const st = m.steps[2]
    expect(await page.locator('.decode-counter').innerText()).toContain('Step 3 of 4')
    expectNear(await numbersIn(page, '[data-tensor="crossQuery"]'), st.query.data, 'crossQuery')
    expectNear(await numbersIn(page, '[data-tensor="crossWeights"]'), st.crossWeights.data, 'crossWeights')
    expectNear(await numbersIn(page, '[data-tensor="context"]'), st.context.data, 'context')
    const self = await numbersIn(page, '[data-tensor="selfWeights"]')
    // Masked cells print 0 (no decimals): the numbers with decimals are the lower triangle.
    expectNear(
      self,
      Array.from(st.selfWeights.data).filter((_, k) => k % 3 <= Math.floor(k / 3)),
      'selfWeights',
    )
    const exact = (await page.locator('[data-tensor="crossWeights"]').getAttribute('data-values'))!
      .split(',')
      .map(Number)
    expect(exact).toEqual(Array.from(st.crossWeights.data))
    await page.locator('button[name="decodeStep"]').click()
    await settled(page)
    expect(new URL(page.url()).searchParams.get('step')).toBe('4')
    expect(await page.locator('.decode-counter').innerText()).toContain('Step 4 of 4')
    expect(await page.locator('[data-step="decode"]').innerText()).toMatch(/teacher forcing/)
    expect(errors).toEqual([])
  })

  it("an earlier target word changes a later step's cross weights (its own input unchanged)", async () => {
    const a = await open('le chat dort bien', 4)
    const before = await numbersIn(a.page, '[data-tensor="crossWeights"]')
    const queryBefore = await numbersIn(a.page, '[data-tensor="crossQuery"]')
    // The second word (input 2, seen by step 4 only through the self-attention) becomes another source word.
    await a.page.locator('input[name="decodeTarget"]').fill('le le dort bien')
    await settled(a.page)
    expect(await a.page.locator('.decode-counter').innerText()).toMatch(/Step 4 of 4: input dort/)
    const after = await numbersIn(a.page, '[data-tensor="crossWeights"]')
    expect(after).not.toEqual(before)
    expect(await numbersIn(a.page, '[data-tensor="crossQuery"]')).not.toEqual(queryBefore)
    expect(a.errors).toEqual([])
  })

  it("the issue's step 3: swapping I for China moves the cross query visibly (self-attention not one-hot)", async () => {
    const { page, errors } = await openPage(`?view=decode&source=我 爱 中国 ！&target=I love China !&step=3`)
    const query = () => numbersIn(page, '[data-tensor="crossQuery"]')
    const before = await query()
    // the row over ▶, I, love: before this change 8.8e-9, 1.2e-15 and 1
    const self = (await page.locator('[data-tensor="selfWeights"]').getAttribute('data-values'))!.split(',').map(Number)
    expect(Math.max(...self.slice(6))).toBeLessThan(0.8)
    await page.locator('input[name="decodeTarget"]').fill('China love China !')
    await settled(page)
    expect(await page.locator('.decode-counter').innerText()).toMatch(/Step 3 of 4: input love/)
    const after = await query()
    expect(after).toHaveLength(before.length)
    expect(Math.max(...after.map((v, i) => Math.abs(v - before[i])))).toBeGreaterThan(1e-2)
    expect(errors).toEqual([])
  })

  it('opens on step 1 with one short sentence and one stepper; the KV rows are labelled as the decoder inputs', async () => {
    const { page, errors } = await openPage('?view=decode&lang=en')
    const panel = page.locator('[data-step="decode"]')
    expect(await panel.locator('.decode-counter').innerText()).toContain('Step 1 of 3')
    const lead = await panel.locator(':scope > p.lead').innerText()
    expect(lead.split(/[.!?](\s|$)/).filter((x) => x.trim()).length).toBe(1)
    expect(lead.length).toBeLessThan(140)
    // before: a second ◀ ▶ pair in the KV-cache panel, stepping on its own
    expect(await panel.locator('button').evaluateAll((bs) => bs.map((b) => b.getAttribute('name')))).toEqual([
      'decodeBack',
      'decodeStep',
      'decodePlay',
    ])
    await panel.locator('button[name="decodeStep"]').click()
    await panel.locator('button[name="decodeStep"]').click()
    const inputs = await panel.locator('[data-decode="inputs"] .decode-tok').allInnerTexts()
    expect(inputs).toEqual(['▶', 'I', 'love'])
    // before: 0 I, 1 love, 2 China (the target on its own, other numbers than the decoder's)
    expect(await panel.locator('[data-kv="cache"] tbody th').allInnerTexts()).toEqual(inputs)
    expect(await panel.locator('[data-kv="cache"] tr[data-cached="true"]').count()).toBe(3)
    expect(errors).toEqual([])
  })

  it('the widget takes step as an attribute, in zh', async () => {
    const page = await coursePage()
    await page.evaluate(() =>
      document.body.insertAdjacentHTML(
        'beforeend',
        `<attention-playground id="d" view="decode" source="我 爱 中国" target="I love China" step="2" lang="zh"></attention-playground>`,
      ),
    )
    await page.locator('#d').evaluate((el) => (el as WidgetEl).ready)
    expect(await page.locator('#d .decode-counter').innerText()).toMatch(/第 2 步，共 3 步/)
    expect(await page.locator('#d [data-step="decode"]').innerText()).toMatch(/教师强制/)
    expect(await page.locator('#d [data-step="decode"]').innerText()).not.toMatch(/已生成的目标/)
    await page.locator('#d').evaluate((el) => el.setAttribute('step', '3'))
    await expect.poll(() => page.locator('#d .decode-counter').innerText()).toMatch(/第 3 步/)
    expect((await page.locator('#d [data-tensor="context"]').innerText()).match(/-?\d+\.\d+/g)).toHaveLength(28)
  })
})

describe('the quiz: one right answer; no seed file numbers', () => {
  it('temperature 2 with d_k = 4, a repeated word and a fully masked row: the right option is the one the trace says', async () => {
    const text = 'the cat sat on the mat'
    const cells = [0, 1, 2, 3, 4, 5].map((j) => `5.${j}`).join(',')
    const { page, errors } = await openPage(
      `?text=${encodeURIComponent(text)}&tokenizer=word&temperature=2&dq=4&dk=4&mask=cells&cells=${cells}`,
    )
    const options = (sel: string) => page.locator(`${sel} .quiz-opts button`).allInnerTexts()
    // Step ② divides by √4 = 2; the temperature then divides by 2 again: 4 must not be offered as well.
    const scale = '[data-quiz^="scale:"]'
    const opts = (await options(scale)).map((o) => Number(o.replace('−', '-')))
    expect(opts.filter((v) => Math.abs(v - 2) < 1e-9)).toHaveLength(1)
    expect(opts.filter((v) => Math.abs(v - 4) < 1e-9)).toHaveLength(0)
    expect(await page.locator(`${scale} .quiz-q`).innerText()).toMatch(/step ② \(scale\) alone/)
    await page.locator(`${scale} .quiz-opts button`, { hasText: /^2\.0000$/ }).click()
    expect(await page.locator(scale).getAttribute('data-quiz-result')).toBe('right')
    // "Which key weighs most": not the fully masked row 5, and its largest weight is the option marked right.
    const top = page.locator('[data-quiz^="top:"]')
    const id = (await top.getAttribute('data-quiz'))!
    const row = Number(id.split(':')[2])
    expect(row).not.toBe(5)
    const tr = await trace(page)
    const n = tr.tokens.length
    const w = tr.weights.data.slice(row * n, (row + 1) * n)
    const best = w.indexOf(Math.max(...w))
    expect(w.filter((v) => Math.abs(v - w[best]) < 5e-5)).toHaveLength(1)
    const label =
      tr.tokens.indexOf(tr.tokens[best]) !== tr.tokens.lastIndexOf(tr.tokens[best])
        ? `${tr.tokens[best]} #${best}`
        : tr.tokens[best]
    await top.locator('.quiz-opts button', { hasText: new RegExp(`^${label}$`) }).click()
    expect(await top.getAttribute('data-quiz-result')).toBe('right')
    expect(errors).toEqual([])
  })

  it('no lesson is named by its seed file number, in any view, zh or en', async () => {
    const { page, errors } = await openPage('?lang=zh')
    for (const lang of ['zh', 'en'] as const) {
      for (const view of ['pipeline', 'why', 'origin', 'decode', 'scaling', 'train']) {
        await page.evaluate(
          ([v, l]) => (window as unknown as Win).__apPlayground.setState({ view: v as 'pipeline', lang: l as 'zh' }),
          [view, lang],
        )
        await settled(page)
        const text = await page.locator('.ap-root').evaluate((el) => el.textContent ?? '')
        expect(text, `${lang} ${view}`).not.toMatch(/第 ?0\d\d ?课|[Ll]esson 0\d\d|00[02]_[0-9a-f]/)
      }
    }
    expect(errors).toEqual([])
  })
})
