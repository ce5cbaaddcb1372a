// What each tab shows, and what the guided tour dims, in real Chromium:
// - only controls that act on the open tab are shown: the attention column (preset, sentence, tokenizer,
//   rule, mask, sizes) and the PyTorch export follow the step-by-step pipeline, not "Why attention",
//   "Origin" or the others (every view the tab bar offers is checked, so views added later are too);
// - in cross attention, on every tour step, every panel the step is not about is dimmed alike — the
//   encoder's embeddings, the tokens and the decoder's panel included — and the step's panels are not.
import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { settled, viewsOf } from './harness.mjs'
import { env, useEnv } from './env'
import { RENDERED, usePages } from './page-fixture'
import { VIEWS, VIEWS_USING_CONTROLS } from '../../web/state'
import { GUIDED_STEPS } from '../../web/panels/guided'

useEnv()

const pages = usePages()

async function open(query: string): Promise<Page> {
  const { page } = await pages.open(env.site.url + query, { viewport: { width: 1300, height: 900 }, ready: RENDERED })
  return page
}

describe('only what acts on the open tab is shown', () => {
  it('the attention controls and the PyTorch export only where they act', async () => {
    const page = await open('?lang=en')
    const views = await viewsOf(page)
    // The tab bar is the views table (web/view-table.ts), in its order.
    expect(views).toEqual([...VIEWS])
    for (const view of views) {
      await page.locator(`[role="tab"][data-view="${view}"]`).click()
      await settled(page)
      const acts = (VIEWS_USING_CONTROLS as readonly string[]).includes(view)
      await expect(page.locator('[data-panel="controls"]').isVisible(), `controls on ${view}`).resolves.toBe(acts)
      for (const name of ['preset', 'text', 'tokenizer', 'score', 'mask', 'dModel']) {
        await expect(
          page.locator(`[data-panel="controls"] [name="${name}"]`).isVisible(),
          `${name} on ${view}`,
        ).resolves.toBe(acts)
      }
      await expect(
        page.locator('button[data-export="pytorch"]').isVisible(),
        `PyTorch export on ${view}`,
      ).resolves.toBe(acts)
      // What is left acts everywhere: the language and the tabs.
      await expect(page.locator('button[name="lang"]').isVisible()).resolves.toBe(true)
      // The content takes the freed width.
      if (!acts) {
        const w = await page.locator('.ap-main').evaluate((m) => m.getBoundingClientRect().width)
        expect(w, `${view}'s content spans the page`).toBeGreaterThan(1100)
      }
    }
    expect(VIEWS_USING_CONTROLS).not.toContain('why')
  }, 60_000)
})

describe('the guided tour in cross attention', () => {
  it('dims every panel a step is not about alike, the encoder embeddings included', async () => {
    const page = await open('?lang=en&mode=cross&guided=1')
    for (let n = 1; n <= GUIDED_STEPS.length; n++) {
      if (n > 1) {
        await page.locator('[data-panel="guided"] button[name="next"]').click()
        await settled(page)
      }
      const looks = await page.locator('.pipeline .panel').evaluateAll((els) =>
        els
          .filter((e) => (e as HTMLElement).offsetParent !== null)
          .map((e) => {
            const el = e as HTMLElement
            const canvas = el.querySelector('canvas')
            return {
              name: el.dataset.step ?? el.dataset.panel ?? '',
              focus: el.classList.contains('tour-focus'),
              look: `${getComputedStyle(el).backgroundColor} ${getComputedStyle(el).color}`,
              canvas: canvas ? getComputedStyle(canvas).opacity : null,
            }
          }),
      )
      const names = looks.map((l) => l.name)
      expect(names).toEqual(
        expect.arrayContaining(['sourceEmbeddings', 'embeddings', 'tokens', 'decoderSelfAttention']),
      )
      const focused = looks.filter((l) => l.focus)
      const dimmed = looks.filter((l) => !l.focus)
      expect(focused.map((l) => l.name).sort(), `step ${n}`).toEqual([...GUIDED_STEPS[n - 1].steps].sort())
      // One look for all the dimmed panels, another for the step's own.
      expect(new Set(dimmed.map((l) => l.look)).size, `step ${n}: dimmed alike ${JSON.stringify(dimmed)}`).toBe(1)
      expect(
        new Set(dimmed.filter((l) => l.canvas !== null).map((l) => l.canvas)),
        `step ${n}: faded pictures`,
      ).toEqual(new Set(['0.38']))
      expect(dimmed.find((l) => l.name === 'sourceEmbeddings')?.canvas, `step ${n}: encoder embeddings faded`).toBe(
        '0.38',
      )
      for (const f of focused) {
        expect(f.look, `step ${n}: ${f.name} is not dimmed`).not.toBe(dimmed[0].look)
        if (f.canvas !== null) expect(f.canvas).toBe('1')
      }
    }
  }, 60_000)
})
