// Positions in the page (issue 23), real Chromium, zh and en. The pipeline: the Positions control in "More
// options", the step panels of the chosen encoding where it acts (positions after the embeddings, rotatedQ /
// rotatedK after Q, K, V, positionBias before the mask), each holding the engine's numbers (recomputed here in
// Node), the tour's word on order, the exported PyTorch program's encoding. Then the view `positions`.
import { beforeAll, describe, expect, it } from 'vitest'
import type { Locator, Page } from 'playwright-core'
import { settled } from './harness.mjs'
import { env, useEnv } from './env'
import { RENDERED, traced, usePages } from './page-fixture'
import { init } from '../../dist/index.js'
import type { Engine, PositionEncoding, RunOptions, Tensor } from 'attention-playground'
import type { PlaygroundHandle } from '../../web/playground'
import { MESSAGES } from '../../web/i18n'
import { fmt } from '../../web/format'

type Win = { __apPlayground: PlaygroundHandle }

let engine: Engine
useEnv()
const pages = usePages()
beforeAll(async () => {
  engine = (await init()) as unknown as Engine
})

const DESKTOP = { viewport: { width: 1300, height: 900 }, ready: RENDERED }
const POSITION_PANELS = ['positions', 'rotatedQ', 'rotatedK', 'positionBias'] as const

/** The position panels shown in the pipeline. */
async function shownPanels(page: Page): Promise<string[]> {
  const out: string[] = []
  for (const name of POSITION_PANELS)
    if (await page.locator(`.pipeline [data-step="${name}"]`).isVisible()) out.push(name)
  return out
}

/** The data-step names of the pipeline's visible panels, in page order. */
const order = (page: Page) =>
  page
    .locator('.pipeline [data-step]')
    .evaluateAll((els) =>
      els.filter((e) => (e as HTMLElement).offsetParent).map((e) => (e as HTMLElement).dataset.step),
    )

/** The page's trace of one step against the engine's own run in Node (same options), bit for bit. */
async function expectEngineStep(page: Page, step: string, run: RunOptions): Promise<void> {
  const shown = await page.evaluate((s) => {
    const t = (window as unknown as Win).__apPlayground.getTrace() as unknown as Record<string, Tensor>
    return { data: Array.from(t[s].data), shape: t[s].shape }
  }, step)
  const want = (engine.run(run) as unknown as Record<string, Tensor>)[step]
  expect(shown.shape, step).toEqual(want.shape)
  expect(shown.data, step).toEqual(Array.from(want.data))
}

describe('positions in the pipeline', () => {
  for (const lang of ['en', 'zh'] as const) {
    it(`a link with positions=rope opens More options; each encoding's panels where it acts (${lang})`, async () => {
      const m = MESSAGES[lang]
      const { page, errors } = await pages.open(`${env.site.url}?lang=${lang}&positions=rope`, DESKTOP)
      expect(await page.locator('details.more-options').evaluate((d) => (d as HTMLDetailsElement).open)).toBe(true)
      const select = page.locator('.controls select[name="positions"]')
      expect(await select.inputValue()).toBe('rope')
      expect(await select.locator('option').allTextContents()).toEqual([
        m.posNone,
        m.posSinusoidal,
        m.posLearned,
        m.posRope,
        m.posAlibi,
      ])
      expect(await page.locator('.controls input[name="ropeBase"]').inputValue()).toBe('10000')
      expect(await shownPanels(page)).toEqual(['rotatedQ', 'rotatedK'])
      let steps = await order(page)
      expect(steps.indexOf('rotatedQ')).toBe(steps.indexOf('V') + 1)
      expect(steps.indexOf('rotatedK')).toBe(steps.indexOf('V') + 2)
      expect(steps.indexOf('scores')).toBeGreaterThan(steps.indexOf('rotatedK'))
      await expect(page.locator('[data-step="rotatedQ"] h3').textContent()).resolves.toBe(m.stepRotatedQ)
      await expect(page.locator('[data-step="rotatedQ"] .shape').textContent()).resolves.toBe('(4,24)')
      await expectEngineStep(page, 'rotatedQ', { positions: 'rope' })
      await expectEngineStep(page, 'rotatedK', { positions: 'rope' })
      await expectEngineStep(page, 'scores', { positions: 'rope' })

      // RoPE's base, typed: the numbers follow.
      await page.locator('.controls input[name="ropeBase"]').fill('500')
      await page.locator('.controls input[name="ropeBase"]').dispatchEvent('change')
      await settled(page)
      await expect.poll(() => new URL(page.url()).searchParams.get('ropeBase')).toBe('500')
      await expectEngineStep(page, 'rotatedK', { positions: 'rope', ropeBase: 500 })

      // ALiBi, two heads: the bias panel just before the masked scores, per head.
      await page.evaluate(() => (window as unknown as Win).__apPlayground.setState({ positions: 'alibi', heads: 2 }))
      await settled(page)
      expect(await shownPanels(page)).toEqual(['positionBias'])
      steps = await order(page)
      expect(steps.indexOf('positionBias')).toBe(steps.indexOf('maskedScores') - 1)
      expect(steps.indexOf('positionBias')).toBeGreaterThan(steps.indexOf('scaledScores'))
      await expect(page.locator('[data-step="positionBias"] h3').textContent()).resolves.toBe(m.stepPositionBias)
      await expectEngineStep(page, 'positionBias', { positions: 'alibi', heads: 2 })
      await expectEngineStep(page, 'maskedScores', { positions: 'alibi', heads: 2 })

      // Sinusoidal from the control: the table right after the embeddings, before W_q.
      await select.selectOption('sinusoidal')
      await settled(page)
      await expect.poll(() => new URL(page.url()).searchParams.get('positions')).toBe('sinusoidal')
      expect(await shownPanels(page)).toEqual(['positions'])
      steps = await order(page)
      expect(steps.indexOf('positions')).toBe(steps.indexOf('embeddings') + 1)
      expect(steps.indexOf('Wq')).toBe(steps.indexOf('positions') + 1)
      await expect(page.locator('.pipeline [data-step="positions"] .shape').textContent()).resolves.toBe('(4,16)')
      await expect(page.locator('.pipeline [data-step="positions"] p.help').textContent()).resolves.toBe(
        m.helpPositionsSin,
      )
      await expectEngineStep(page, 'positions', { positions: 'sinusoidal', heads: 2 })
      await expectEngineStep(page, 'Q', { positions: 'sinusoidal', heads: 2 })
      const code = await page.evaluate(() => (window as unknown as Win).__apPlayground.pytorchCode())
      expect(code).toContain('def sinusoidal(n, d):')
      expect(code).toContain('xp = x + P[: x.shape[0]]')

      // Learned: the same panel, its own help; none: no position panel at all.
      await select.selectOption('learned')
      await settled(page)
      await expect(page.locator('.pipeline [data-step="positions"] p.help').textContent()).resolves.toBe(
        m.helpPositionsLearned,
      )
      await expectEngineStep(page, 'positions', { positions: 'learned', heads: 2 })
      await select.selectOption('none')
      await settled(page)
      expect(await shownPanels(page)).toEqual([])
      await expect.poll(() => new URL(page.url()).searchParams.get('positions')).toBeNull()
      expect(errors).toEqual([])
    })

    it(`the guided tour's last step says order is missing and names the view (${lang})`, async () => {
      const { page, errors } = await pages.open(`${env.site.url}?lang=${lang}&guided=5`, DESKTOP)
      const body = await page.locator('[data-panel="guided"]').textContent()
      expect(body).toContain(MESSAGES[lang].guided5Body)
      expect(MESSAGES[lang].guided5Body).toContain(lang === 'zh' ? '“位置编码”视图' : 'the view “Positions”')
      expect(errors).toEqual([])
    })
  }

  it('a link whose sizes rope cannot take falls back to none and says why', async () => {
    const { page, errors } = await pages.open(`${env.site.url}?lang=en&positions=rope&dq=6&dk=6&heads=2&dv=6`, DESKTOP)
    const notice = await page.locator('.banner.notice').textContent()
    expect(notice).toContain('rope (needs dq = dk and an even dq / heads, got dq = 6, dk = 6, heads = 2)')
    expect(await page.locator('.controls select[name="positions"]').inputValue()).toBe('none')
    expect(await shownPanels(page)).toEqual([])
    expect(errors).toEqual([])
  })
})

// The view `positions`: the order check on the numbers, RoPE's offset check equal to the engine's numbers
// (recomputed here in Node through the package), the sinusoidal table, ALiBi's slopes, the quiz; page and widget.

/** The order table: no positions gives the same vectors permuted; every encoding differs, by the amount shown. */
async function expectOrderCheck(view: Locator, lang: 'zh' | 'en'): Promise<void> {
  await view.locator('tr[data-positions="alibi"]').waitFor()
  const rows = await view.locator('tr[data-positions]').evaluateAll((trs) =>
    trs.map((tr) => ({
      p: (tr as HTMLElement).dataset.positions!,
      diff: Number((tr as HTMLElement).dataset.maxDiff),
      permuted: (tr as HTMLElement).dataset.permuted,
      shown: tr.querySelector('td')!.textContent,
    })),
  )
  expect(rows.map((r) => r.p)).toEqual(['none', 'sinusoidal', 'learned', 'rope', 'alibi'])
  const original = (await view.locator('[data-order="original"]').textContent())!.split(/[:：] /)[1].split(' ')
  const shuffled = (await view.locator('[data-order="shuffled"]').textContent())!.split(/[:：] /)[1].split(' ')
  expect([...shuffled].sort()).toEqual([...original].sort())
  expect(shuffled).not.toEqual(original)
  // The same check here, through the package: each shuffled row against the original row it came from.
  const perm = (await view.locator('[data-order="shuffled"]').getAttribute('data-perm'))!.split(',').map(Number)
  expect([...perm].sort((x, y) => x - y)).toEqual(original.map((_, i) => i))
  expect(perm.map((p) => original[p])).toEqual(shuffled)
  for (const r of rows) {
    const a = engine.run(viewRunOptions(original.join(' '), 123, r.p as PositionEncoding)).output
    const b = engine.run(viewRunOptions(shuffled.join(' '), 123, r.p as PositionEncoding)).output
    const diff = permutedDiff(a, b, perm)
    expect(Math.abs(diff - r.diff), r.p).toBeLessThanOrEqual(1e-6)
    expect(r.shown, r.p).toBe(fmt(diff, 3))
  }
  expect(rows[0].permuted).toBe('true')
  expect(rows[0].diff).toBeLessThan(1e-5)
  for (const r of rows.slice(1)) {
    expect(r.permuted, r.p).toBe('false')
    expect(r.diff, r.p).toBeGreaterThan(1e-3)
  }
  // The causal mask looks at positions: the same check with no positions under it differs, by what the engine gives.
  const causalRow = view.locator('tr[data-order-mask="causal"]')
  const causalDiff = Number(await causalRow.getAttribute('data-max-diff'))
  const ca = engine.run({ ...viewRunOptions(original.join(' '), 123, 'none'), mask: 'causal' }).output
  const cb = engine.run({ ...viewRunOptions(shuffled.join(' '), 123, 'none'), mask: 'causal' }).output
  expect(Math.abs(causalDiff - permutedDiff(ca, cb, perm))).toBeLessThanOrEqual(1e-6)
  expect(causalDiff).toBeGreaterThan(1e-3)
  expect(await causalRow.getAttribute('data-permuted')).toBe('false')
  expect(await view.locator('[data-order-causal]').textContent()).toContain(
    MESSAGES[lang].posVerdictCausal.slice(0, MESSAGES[lang].posVerdictCausal.indexOf('{')),
  )
  const verdict = view.locator('[data-order-verdict]')
  expect(await verdict.getAttribute('data-order-verdict')).toBe('blind-without-positions')
  expect(await verdict.textContent()).toContain(
    MESSAGES[lang].posVerdictSame.slice(0, MESSAGES[lang].posVerdictSame.indexOf('{')),
  )
}

/** The view's model, written out here: the course's tokenizer, 16 wide, the page's seed. */
const viewRunOptions = (text: string, seed: number, positions: PositionEncoding): RunOptions => ({
  text,
  tokenizer: 'word-sorted',
  seed,
  positions,
  dModel: 16,
  dq: 16,
  dk: 16,
  dv: 16,
})

/** max |shuffled[r] − original[perm[r]]| over rows and columns. */
function permutedDiff(original: Tensor, shuffled: Tensor, perm: number[]): number {
  const d = original.shape[1]
  let m = 0
  perm.forEach((p, r) => {
    for (let c = 0; c < d; c++) m = Math.max(m, Math.abs(shuffled.data[r * d + c] - original.data[p * d + c]))
  })
  return m
}

/** The page's RoPE offset check against the engine in Node: the same Q and K rows at the same positions. */
async function expectRopeOffset(view: Locator, words: string, shift: number): Promise<void> {
  const input = view.locator('input[name="ropeShift"]')
  await input.fill(String(shift))
  await input.dispatchEvent('input')
  const out = view.locator('[data-rope-offset]')
  await expect.poll(() => out.getAttribute('data-s')).toBe(String(shift))
  const d = await out.evaluate((e) => ({ ...(e as HTMLElement).dataset }))
  const [i, j, s] = [Number(d.i), Number(d.j), Number(d.s)]
  expect(i).not.toBe(j)
  const tr = engine.run(viewRunOptions(words, 123, 'none'))
  const dq = tr.Q.shape[1]
  const q = tr.Q.data.slice(i * dq, (i + 1) * dq)
  const k = tr.K.data.slice(j * dq, (j + 1) * dq)
  const score = (qi: number, kj: number) =>
    engine.attention({
      query: { data: q, shape: [1, dq] },
      key: { data: k, shape: [1, dq] },
      value: { data: new Float32Array(1), shape: [1, 1] },
      score: 'dot',
      needScores: true,
      rope: { queryPositions: [qi], keyPositions: [kj] },
    }).scores!.data[0]
  const [a, b] = [score(i, j), score(i + s, j + s)]
  expect(Number(d.scoreA), `page ${d.scoreA} vs engine ${a}`).toBe(a)
  expect(Number(d.scoreB), `page ${d.scoreB} vs engine ${b}`).toBe(b)
  // Only the offset counts: equal up to float32 rounding of the turned vectors.
  expect(Math.abs(a - b)).toBeLessThan(1e-4 * Math.max(1, Math.abs(a)))
}

const SENTENCE = 'the cat sat on the mat'

/** The numbers of the sinusoidal part's two heatmaps (their tables, opened): P, then P·Pᵀ. */
async function sinusoidalShown(view: Locator): Promise<number[][]> {
  const out: number[][] = []
  for (const [k, fig] of (await view.locator('[data-pos-part="sinusoidal"] figure').all()).entries()) {
    await fig.locator('details.hm-alt > summary').click()
    // The table is built when its disclosure opens: 32 × 32 for P, and P·Pᵀ the same.
    await expect.poll(() => fig.locator('td').count(), { message: `figure ${k}` }).toBe(32 * 32)
    out.push(await fig.locator('td').evaluateAll((tds) => tds.map((td) => Number(td.textContent!.replace('−', '-')))))
  }
  return out
}

describe('the view positions', () => {
  for (const lang of ['en', 'zh'] as const) {
    it(`${lang}: order check and shuffle, sinusoidal table, RoPE dials and offset, ALiBi slopes, quiz`, async () => {
      const m = MESSAGES[lang]
      const { page, errors } = await pages.open(
        `${env.site.url}?view=positions&lang=${lang}&text=${encodeURIComponent(SENTENCE)}`,
        { viewport: { width: 1400, height: 1000 }, ready: traced },
      )
      const view = page.locator('section.positions-view[data-step="positions"]')
      expect(await view.isVisible()).toBe(true)
      await expect(view.locator('h2').textContent()).resolves.toBe(m.posViewTitle)
      expect(await view.locator('p.lead').textContent()).toContain(
        lang === 'zh' ? '超出课程内容' : 'beyond the lessons',
      )
      await expectOrderCheck(view, lang)
      const before = await view.locator('[data-order="shuffled"]').textContent()
      await view.locator('button[name="shuffle"]').click()
      await settled(page)
      await expect.poll(() => view.locator('[data-order="shuffled"]').textContent()).not.toBe(before)
      await expectOrderCheck(view, lang)
      for (const s of [1, 7, 250]) await expectRopeOffset(view, SENTENCE, s)
      // Another pair of words.
      await view.locator('select[name="ropeWordI"]').selectOption('3')
      await expectRopeOffset(view, SENTENCE, 40)
      // Dials: pair 0 at position 3 turned by 3 radians (θ_0 = 1), pair 1 by 3·10000^(−2/16), by the engine.
      const dial = (i: number, a: string) => view.locator(`[data-pair="${i}"]`).getAttribute(a).then(Number)
      expect(await dial(0, 'data-cos')).toBeCloseTo(Math.cos(3), 5)
      expect(await dial(0, 'data-sin')).toBeCloseTo(Math.sin(3), 5)
      expect(await dial(1, 'data-sin')).toBeCloseTo(Math.sin(3 * 10000 ** (-2 / 16)), 5)
      // Sinusoidal: the table shown is Vaswani et al.'s (P[m, 2i] = sin(m / 10000^(2i/32)), cos at 2i+1), and
      // P·Pᵀ its dot products: d/2 = 16 on the diagonal, falling off with the distance.
      const [P, D] = await sinusoidalShown(view)
      expect(P.length).toBe(32 * 32)
      P.forEach((v, k) => {
        const [m, c] = [Math.floor(k / 32), k % 32]
        const angle = m / 10000 ** ((c - (c % 2)) / 32)
        const want = c % 2 === 0 ? Math.sin(angle) : Math.cos(angle)
        expect(Math.abs(v - want), `P[${m}, ${c}] shown ${v}, formula ${want}`).toBeLessThanOrEqual(6e-5)
      })
      for (let i = 0; i < 32; i++) expect(D[i * 32 + i]).toBeCloseTo(16, 3)
      for (let j = 1; j < 4; j++) expect(D[j], `P·Pᵀ[0, ${j}]`).toBeLessThan(D[j - 1])
      // ALiBi with 4 heads: BLOOM's slopes 1/4, 1/16, 1/64, 1/256; 8 heads: 2^-1 … 2^-8.
      const slopes = async () =>
        (await view.locator('[data-alibi-slopes]').getAttribute('data-alibi-slopes'))!.split(',').map(Number)
      expect(await slopes()).toEqual([0.25, 0.0625, 0.015625, 0.00390625])
      // Heads counted from 1 (issue 36): the first head is "head 1" with slope m1 = 2^(−8·1/H), as the lead writes.
      expect(await view.locator('[data-alibi-slopes]').textContent()).toContain('m1 = 0.2500, m2 = 0.0625')
      expect(await view.locator('select[name="alibiHead"] option').allTextContents()).toEqual(
        [1, 2, 3, 4].map((k) => `${m.headN} ${k}`),
      )
      await view.locator('select[name="alibiHeads"]').selectOption('8')
      await expect.poll(slopes).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((h) => 2 ** -h))
      // The quiz under the view.
      expect(await page.locator('[data-quiz="positions:shuffle"]').count()).toBe(1)
      await page.locator('[data-quiz="positions:rope-offset"] button').first().click()
      expect(await page.locator('[data-quiz="positions:rope-offset"]').getAttribute('data-quiz-result')).toMatch(
        /^(right|wrong)$/,
      )
      expect(errors).toEqual([])
    })
  }

  it('the widget: view="positions" in zh and en', async () => {
    const { page, errors } = await pages.open(undefined, { viewport: { width: 1300, height: 1000 } })
    const body =
      `<attention-playground id="pz" view="positions" lang="zh" text="${SENTENCE}"></attention-playground>` +
      `<attention-playground id="pe" view="positions" lang="en" text="${SENTENCE}"></attention-playground>`
    await page.route(`${env.site.url}positions.html`, (r) =>
      r.fulfill({
        body: `<!doctype html><html><head><meta charset="utf-8"><title>t</title><script type="module" src="widget/widget.js"></script></head><body><main>${body}</main></body></html>`,
        contentType: 'text/html; charset=utf-8',
      }),
    )
    await page.goto(`${env.site.url}positions.html`)
    for (const [id, lang] of [
      ['pz', 'zh'],
      ['pe', 'en'],
    ] as const) {
      await page.locator(`#${id}`).evaluate((el) => (el as unknown as { ready: Promise<void> }).ready)
      const view = page.locator(`#${id} section.positions-view`)
      expect(await view.isVisible()).toBe(true)
      await expect(view.locator('h2').textContent()).resolves.toBe(MESSAGES[lang].posViewTitle)
      await expectOrderCheck(view, lang)
      await expectRopeOffset(view, SENTENCE, 13)
    }
    expect(errors).toEqual([])
  })
})
