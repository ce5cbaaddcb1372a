// The Train panel in real headless Chromium: Vite builds a bare page that mounts web/train/panel.ts
// (with its Web Worker) against the built package in dist/; the test plays (it pauses once at its goal),
// plays on, pauses and checks that
// training happened in the worker, that "it" ends up attending to the right noun for the tired and the
// wide sentence, that zh works, and that typed text is shown as text, never run.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium } from '../e2e/harness.mjs'
import { serve } from '../../scripts/serve.mjs'

const repo = fileURLToPath(new URL('../../', import.meta.url))

let dir = ''
let server: Awaited<ReturnType<typeof serve>> | undefined
let base = ''
let browser: Browser

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ap-train-panel-'))
  writeFileSync(
    join(dir, 'index.html'),
    '<!doctype html><html><head><meta charset="utf-8"></head><body><div id="app"></div><script type="module" src="./main.ts"></script></body></html>',
  )
  writeFileSync(
    join(dir, 'main.ts'),
    `
import { mountTrainPanel } from ${JSON.stringify(join(repo, 'web/train/panel.ts'))}
const lang = new URLSearchParams(location.search).get('lang') === 'zh' ? 'zh' : 'en'
;(window as any).__panel = mountTrainPanel(document.getElementById('app')!, { lang })
`,
  )
  const { build } = await import('vite')
  await build({
    root: dir,
    base: './',
    logLevel: 'error',
    configFile: false,
    resolve: { alias: [{ find: /^attention-playground$/, replacement: join(repo, 'dist/index.js') }] },
    build: { outDir: join(dir, 'out'), emptyOutDir: true, target: 'es2022' },
    worker: { format: 'es' },
  })
  const out = join(dir, 'out')
  server = await serve({ root: out, headers: {} })
  base = `${server.url}index.html`
  browser = (await launchChromium()).browser
}, 180_000)

afterAll(async () => {
  await browser?.close()
  await server?.close()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

const status = (page: Page) => page.textContent('.tr-status')
const stepOf = async (page: Page) => Number(/(\d+)/.exec((await status(page)) ?? '')?.[1] ?? -1)

describe('Train panel in Chromium', () => {
  it('trains in its worker and "it" learns to point at the right noun', async () => {
    const page = await browser.newPage()
    const errors: string[] = []
    page.on('pageerror', (e: Error) => errors.push(e.message))
    await page.goto(base)
    await page.waitForFunction(() => /step \d/.test(document.querySelector('.tr-status')?.textContent ?? ''), null, {
      timeout: 60_000,
    })
    expect(await stepOf(page)).toBe(0)
    expect(await page.getAttribute('section.ap-train', 'data-step')).toBe('train')
    await page.click('button[name=play]')
    // It pauses once when the held-out accuracy reaches 95 % and says so; Play goes on from there.
    await page.waitForFunction(() => (document.querySelector('[data-goal]')?.textContent ?? '') !== '', null, {
      timeout: 120_000,
    })
    expect(await page.textContent('[data-goal]')).toMatch(/^Goal reached at step \d+: held-out accuracy (9[5-9]|100)/)
    await page.waitForFunction(
      () => document.querySelector('button[name=play]')?.getAttribute('aria-pressed') === 'false',
    )
    await page.click('button[name=play]')
    await page.waitForFunction(
      () => Number(/step (\d+)/.exec(document.querySelector('.tr-status')?.textContent ?? '')?.[1] ?? 0) >= 300,
      null,
      { timeout: 120_000 },
    )
    await page.click('button[name=play]') // pause
    await page.waitForFunction(
      () => document.querySelector('button[name=play]')?.getAttribute('aria-pressed') === 'false',
    )
    const text = (await status(page)) ?? ''
    const held = Number(/held-out accuracy ([\d.]+) %/.exec(text)?.[1])
    expect(held, text).toBeGreaterThan(90)
    // the schedule's lr after ≥ 300 steps: below the 0.01 peak, not below the 0.0005 floor
    const lrShown = Number(/learning rate in use ([\d.e-]+)/.exec(text)?.[1])
    expect(lrShown, text).toBeGreaterThanOrEqual(0.0005)
    expect(lrShown, text).toBeLessThan(0.01)
    expect(await page.getAttribute('[data-train-view=attention] canvas', 'aria-label')).toMatch(/it → animal/)
    await page.fill('input[name=sentence]', "the animal didn't cross the street because it was too wide")
    await page.waitForFunction(
      () =>
        /it → street/.test(
          document.querySelector('[data-train-view=attention] canvas')?.getAttribute('aria-label') ?? '',
        ),
      null,
      { timeout: 30_000 },
    )
    // the step button runs 10 more steps
    const before = await stepOf(page)
    await page.click('button[name=step]')
    await page.waitForFunction(
      (b: number) =>
        Number(/step (\d+)/.exec(document.querySelector('.tr-status')?.textContent ?? '')?.[1] ?? 0) === b + 10,
      before,
      { timeout: 30_000 },
    )
    expect(errors).toEqual([])
    await page.close()
  }, 240_000)

  it('speaks Chinese and shows typed markup as text without running it', async () => {
    const page = await browser.newPage()
    await page.goto(`${base}?lang=zh`)
    await page.waitForFunction(() => /第 \d+ 步/.test(document.querySelector('.tr-status')?.textContent ?? ''), null, {
      timeout: 60_000,
    })
    expect(await page.textContent('.tr-status')).toMatch(/当前学习率 0\.000200/) // step 0: the first warm-up step, 0.01/50
    expect(await page.textContent('.ap-train h2')).toBe('训练注意力')
    const attack = '<img src=x onerror="window.__pwned=1">'
    await page.fill('input[name=sentence]', attack)
    // the unknown word named in Chinese (punctuation stripped, as the task's tokenizer does)
    await page.waitForFunction(
      () => /“img”不在这个任务的词表里/.test(document.querySelector('.tr-error')?.textContent ?? ''),
      null,
      {
        timeout: 30_000,
      },
    )
    expect(await page.inputValue('input[name=sentence]')).toBe(attack)
    expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined()
    expect(await page.locator('.ap-train img').count()).toBe(0)
    await page.close()
  }, 120_000)
})
