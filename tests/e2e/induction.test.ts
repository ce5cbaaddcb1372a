// Issue 26 in real Chromium, on the built site:
// - the Train tab's induction task (seed 0, default settings) trains in its worker until the heads are
//   labelled: an induction head in layer 2 and, in layer 1, the previous-token head that serves it; the
//   loss curve marks the phase change; both layers' attention maps are drawn;
// - ?view=model with no file opens the sample (public/samples/induction.safetensors) with its note, and
//   its grid shows every layer × head; the file picker is still there.
import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from './harness.mjs'
import { env, useEnv } from './env'
import { usePages } from './page-fixture'
import { readAttentionFile } from '../../dist/index.js'
import type { PlaygroundHandle } from '../../web/playground'

declare global {
  interface Window {
    __apPlayground?: PlaygroundHandle
  }
}

useEnv()
const pages = usePages()

describe('induction heads in the Train tab', () => {
  it('seed 0, default settings: a layer-1 previous-token head and a layer-2 induction head get their labels', async () => {
    const { page, errors } = await pages.open(`${env.site.url}?view=train&lang=en`, {
      viewport: { width: 1400, height: 1000 },
    })
    const panel = page.locator('section.ap-train')
    await panel.waitFor({ timeout: 60_000 })
    await expect.poll(() => panel.locator('.tr-sentence').inputValue(), { timeout: 60_000 }).not.toBe('')
    await panel.locator('select[name="task"]').selectOption('induction')
    expect(await panel.locator('select[name="heads"]').inputValue()).toBe('2')
    await expect
      .poll(() => panel.locator('.tr-sentence').inputValue(), { timeout: 60_000 })
      .toBe('rain bird moon kite lamp sun owl tree kite lamp sun owl tree queen jam')
    const induction = panel.locator('[data-train-view="induction"]')
    expect(await induction.isVisible()).toBe(true)
    expect(await induction.locator('.tr-intro').textContent()).toMatch(/induction head/)
    // both layers' maps, two heads each, drawn from the start
    await expect.poll(() => induction.locator('[data-train-view="layers"] figure').count()).toBe(4)
    await panel.locator('button[name="play"]').click()
    await page.waitForFunction(
      () =>
        document.querySelector('[data-train-view="roles"] li[data-head^="1."][data-head-role="induction"]') !== null &&
        document.querySelector('[data-train-view="roles"] li[data-head^="0."][data-head-role="previousToken"]') !==
          null,
      null,
      { timeout: 420_000, polling: 1000 },
    )
    await panel.locator('button[name="play"]').click() // pause
    const status = (await panel.locator('.tr-status').textContent()) ?? ''
    expect(status).toMatch(/held-out accuracy on copyable words [\d.]+ %/)
    const roles = await induction.locator('[data-train-view="roles"] li').allTextContents()
    console.log(`induction, seed 0 in Chromium: ${status}\n  ${roles.join('\n  ')}`)
    expect(roles.some((r) => /^layer 2 head \d: induction head/.test(r))).toBe(true)
    expect(roles.some((r) => /^layer 1 head \d: previous-token head/.test(r))).toBe(true)
    // the loss curve names the step where the induction score rose
    expect(await panel.locator('[data-train-view="curves"] canvas').getAttribute('aria-label')).toMatch(
      /induction score rises \d+/,
    )
    expect(errors).toEqual([])
  }, 480_000)
})

describe('the model view opens a sample on a first visit', () => {
  it('?view=model with no file: the induction sample, its note, every layer × head; "open your own" is there', async () => {
    const { page, errors } = await pages.open(`${env.site.url}?view=model&lang=en`, {
      viewport: { width: 1300, height: 1000 },
    })
    await page.waitForFunction(() => window.__apPlayground?.model()?.name === 'induction.safetensors', null, {
      timeout: 60_000,
    })
    const view = page.locator('[data-step="model"]')
    expect(await view.locator('.model-sample-note').isVisible()).toBe(true)
    expect(await view.locator('.model-sample-note').textContent()).toMatch(/induction/)
    expect(await view.locator('input[name="modelFile"]').count()).toBe(1)
    const file = readAttentionFile(readFileSync(join(ROOT, 'public/samples/induction.safetensors')))
    const cells = file.layers.reduce((n, l) => n + l.heads, 0)
    expect(cells).toBe(4)
    expect(await view.locator('.model-thumb').count()).toBe(cells)
    // every thumbnail is drawn (not a blank canvas) and matches its layer and head
    const drawn = await page.evaluate(() =>
      Array.from(document.querySelectorAll<HTMLButtonElement>('.model-thumb')).map((b) => {
        const c = b.querySelector('canvas')!
        const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data
        let lit = 0
        for (let i = 0; i < d.length; i += 4) lit += d[i] + d[i + 1] + d[i + 2] > 0 ? 1 : 0
        return `${b.dataset.layer}.${b.dataset.head}:${lit > 0}`
      }),
    )
    expect(drawn).toEqual(['0.0:true', '0.1:true', '1.0:true', '1.1:true'])
    // opening your own file replaces the sample and its note
    await view.locator('input[name="modelFile"]').setInputFiles(join(ROOT, 'tests/fixtures/models/encoder.safetensors'))
    await page.waitForFunction(() => window.__apPlayground?.model()?.name === 'encoder.safetensors')
    expect(await view.locator('.model-sample-note').isHidden()).toBe(true)
    expect(errors).toEqual([])
  }, 120_000)
})
