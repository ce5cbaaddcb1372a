// Positions in the page (issue 23), real Chromium, zh and en. The pipeline: the Positions control in "More
// options", the step panels of the chosen encoding where it acts (positions after the embeddings, rotatedQ /
// rotatedK after Q, K, V, positionBias before the mask), each holding the engine's numbers (recomputed here in
// Node), the tour's word on order, the exported PyTorch program's encoding.
import { beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { settled } from './harness.mjs'
import { env, useEnv } from './env'
import { RENDERED, usePages } from './page-fixture'
import { init } from '../../dist/index.js'
import type { Engine, RunOptions, Tensor } from 'attention-playground'
import type { PlaygroundHandle } from '../../web/playground'
import { MESSAGES } from '../../web/i18n'

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
