// Issue 22, deliver 4: a first visit shows the lesson's choices only. "More options" keeps the other scoring rules
// (the lesson's rules 1-2 and bilinear), the tokenizers other than the course's, heads, temperature and cell editing
// folded until opened; a link (or the widget's attributes) that uses one opens them. On a 390 × 844 phone and the
// desktop, in zh and en, on the page and in the widget (served by the site, as the Embed box's tag loads it).
// And (item 8) the cross mode's hint says that cross attention is the lesson's 一般注意力, and where they differ.
import { describe, expect, it } from 'vitest'
import type { Locator, Page } from 'playwright-core'
import { openMoreOptions, settled } from './harness.mjs'
import { env, useEnv } from './env'
import { CASES, DEVICES, onDevice } from './devices'
import { usePages } from './page-fixture'
import { MESSAGES } from '../../web/i18n'

useEnv()
const pages = usePages()

const options = (scope: Page | Locator, name: string) =>
  scope
    .locator(`.controls select[name="${name}"] option`)
    .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value))

/** Whether Enter on a cell of the embeddings (keyboard, as on any device) opens the cell editor. */
async function editorOpens(scope: Page | Locator): Promise<boolean> {
  const canvas = scope.locator('[data-step="embeddings"] canvas.hm-canvas')
  await canvas.focus()
  await canvas.press('ArrowRight')
  await canvas.press('Enter')
  const editor = scope.locator('[data-step="embeddings"] input.hm-editor')
  const open = await editor.isVisible()
  if (open) await editor.press('Escape')
  return open
}

/** The fold closed: only the lesson's rule 3 (with and without the scale), the course's tokenizer; no heads, T or editing. */
async function expectFolded(scope: Page | Locator, lang: 'zh' | 'en'): Promise<void> {
  const fold = scope.locator('details.more-options')
  expect(await fold.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false)
  await expect(fold.locator('summary').textContent()).resolves.toBe(MESSAGES[lang].moreOptions)
  expect(await options(scope, 'score')).toEqual(['dot', 'scaled-dot'])
  expect(await options(scope, 'tokenizer')).toEqual(['word-sorted'])
  for (const c of ['select[name="heads"]', 'input[name="temperature"]', 'select[name="positions"]'])
    expect(await scope.locator(`.controls ${c}`).isVisible(), c).toBe(false)
  await expect(scope.locator('[data-step="embeddings"] p.help').textContent()).resolves.toBe(
    MESSAGES[lang].helpEmbeddingsFolded,
  )
  expect(await editorOpens(scope)).toBe(false)
}

async function expectOpen(scope: Page | Locator): Promise<void> {
  expect(await scope.locator('details.more-options').evaluate((d) => (d as HTMLDetailsElement).open)).toBe(true)
  expect(await options(scope, 'score')).toEqual(['dot', 'scaled-dot', 'general', 'additive', 'concat'])
  expect(await options(scope, 'tokenizer')).toEqual(['word-sorted', 'word', 'char', 'bpe'])
  for (const c of ['select[name="heads"]', 'input[name="temperature"]', 'select[name="positions"]'])
    expect(await scope.locator(`.controls ${c}`).isVisible(), c).toBe(true)
}

describe('More options on the page', () => {
  for (const { device, lang } of CASES) {
    it(`folded on a first visit, everything there once opened (${device}, ${lang})`, async () => {
      const { page, errors } = await pages.open(`${env.site.url}?lang=${lang}`, onDevice(device))
      await expectFolded(page, lang)
      await openMoreOptions(page)
      await expectOpen(page)
      expect(await editorOpens(page)).toBe(true)
      // What the fold offers works: a rule from it, the numbers recomputed (the URL says so).
      await page.locator('.controls select[name="score"]').selectOption('additive')
      await settled(page)
      await expect.poll(() => new URL(page.url()).searchParams.get('score')).toBe('additive')
      expect(errors).toEqual([])
    })
  }

  for (const query of [
    'score=concat',
    'heads=2',
    'temperature=2',
    'tokenizer=char',
    'edits=Wq.0.0%3D1',
    'score=bilinear',
    'positions=rope',
  ])
    it(`a link with ${query} opens it`, async () => {
      const { page, errors } = await pages.open(`${env.site.url}?lang=en&${query}`, onDevice('desktop'))
      await expectOpen(page)
      expect(errors).toEqual([])
    })
})

describe('More options in the widget', () => {
  for (const lang of ['zh', 'en'] as const)
    it(`folded in a plain tag, open in one with heads="2" (${lang})`, async () => {
      const { page, errors } = await pages.open(undefined, DEVICES.desktop)
      const body = `<attention-playground id="a" lang="${lang}"></attention-playground><attention-playground id="b" lang="${lang}" heads="2"></attention-playground>`
      await page.route(`${env.site.url}more.html`, (r) =>
        r.fulfill({
          body: `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>t</title><script type="module" src="widget/widget.js"></script></head><body><main>${body}</main></body></html>`,
          contentType: 'text/html; charset=utf-8',
        }),
      )
      await page.goto(`${env.site.url}more.html`)
      await page
        .locator('attention-playground')
        .evaluateAll((els) => Promise.all(els.map((e) => (e as unknown as { ready: Promise<void> }).ready)))
      await settled(page)
      await expectFolded(page.locator('#a'), lang)
      await expectOpen(page.locator('#b'))
      await openMoreOptions(page.locator('#a'))
      await expectOpen(page.locator('#a'))
      expect(errors).toEqual([])
    })
})

describe('the lesson’s 一般注意力 and the page’s cross attention', () => {
  for (const { device, lang } of CASES)
    it(`the cross mode's hint links the two names and says where they differ (${device}, ${lang})`, async () => {
      const { page, errors } = await pages.open(`${env.site.url}?lang=${lang}&mode=cross`, onDevice(device))
      const hint = (await page.locator('.controls .segmented + p.hint').textContent())!
      expect(hint).toBe(MESSAGES[lang].modeCrossHint)
      for (const w of lang === 'zh'
        ? ['交叉注意力', '一般注意力', '规则 1、2', '缩放点积']
        : ['Cross attention', '一般注意力', 'rules 1–2', 'scaled dot product'])
        expect(hint, w).toContain(w)
      expect(errors).toEqual([])
    })
})
