// The model view in real Chromium, on files python/export_attention.py wrote from real PyTorch models
// (tests/fixtures/gen_model_files.py): opened by the file picker, by ?src= and by the widget's src. For
// every layer and head the weights on screen equal torch's (read without the exporter, in
// tests/fixtures/models/reference.json), and our engine's recomputation from the file's Q, K and V equals
// them within 1e-5. Bad files show their message as text and the page keeps working.
import { beforeAll, describe, expect, it } from 'vitest'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { ROOT } from './harness.mjs'
import { env, useEnv } from './env'
import { usePages, type Opened } from './page-fixture'
import { badModelFiles } from './bad-files'
import { writeSafetensors } from '../../dist/index.js'
import type { PlaygroundHandle } from '../../web/playground'

declare global {
  interface Window {
    __apPlayground?: PlaygroundHandle
  }
}
/** The element as these tests use it (web/widget.ts). */
type Widget = HTMLElement & {
  ready: Promise<void>
  model: ReturnType<PlaygroundHandle['model']>
  selectModelHead(l: number, h: number): void
}
type Axe = { run(el: Element | null, o: object): Promise<{ violations: Array<{ id: string }> }> }

const MODELS = join(ROOT, 'tests/fixtures/models')
const ref = JSON.parse(readFileSync(join(MODELS, 'reference.json'), 'utf8'))
type RefLayer = { shape: number[]; data: number[] }

useEnv()
const pages = usePages()
beforeAll(() => {
  for (const f of ['site/index.html', 'dist/widget/widget.js']) {
    if (!existsSync(join(ROOT, f))) throw new Error(`${f} is missing: run node scripts/build.mjs --site`)
  }
})

/** A path of the repository root's server (the built page is under /site/). */
function open(path: string): Promise<Opened> {
  return pages.open(env.widgets.url + path, { viewport: { width: 1300, height: 1000 } })
}

// What the page shows for one layer and head: the file's weights, the engine's, and the diff line.
interface Shown {
  file: number[]
  engine: number[] | null
  maxDiff: number | null
  diffText: string
  table: number[][]
}

/** Selects a head through `sel` (the page's handle or the widget) and reads what is on screen. */
async function showHead(page: Page, layer: number, head: number, widget = false): Promise<Shown> {
  const got = await page.evaluate(
    async ([l, hd, w]) => {
      const el = document.querySelector('attention-playground') as Widget
      const handle = w
        ? { selectModelHead: (a: number, b: number) => el.selectModelHead(a, b), model: () => el.model }
        : window.__apPlayground!
      handle.selectModelHead(l, hd)
      const root: ParentNode = w ? el.shadowRoot! : document
      const m = handle.model()!
      const lay = m.file.layers[l]
      const [, nq, nk] = lay.weights.shape
      const big = root.querySelector('.model-big details.hm-alt') as HTMLDetailsElement
      // The table (the heatmap's text alternative) is built when its <details> opens (a toggle event, a task later).
      big.open = true
      for (let i = 0; i < 100 && big.querySelectorAll('tbody tr').length !== nq; i++)
        await new Promise((r) => setTimeout(r, 10))
      const table = Array.from(big.querySelectorAll('tbody tr')).map((tr) =>
        Array.from(tr.querySelectorAll('td')).map((td) => Number((td.textContent ?? '').trim().replace(/^−/, '-'))),
      )
      const diff = root.querySelector('[data-step="model"] .model-diff') as HTMLElement
      return {
        file: Array.from(lay.weights.data.slice(hd * nq * nk, (hd + 1) * nq * nk) as Float32Array),
        engine: m.recomputed ? Array.from(m.recomputed.weights.data as Float32Array) : null,
        maxDiff: m.recomputed ? m.recomputed.maxDiff : null,
        diffText: diff.hidden ? '' : (diff.textContent ?? ''),
        table,
      }
    },
    [layer, head, widget] as const,
  )
  return got as Shown
}

function maxAbs(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length)
  let m = 0
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]))
  return m
}

/** Every layer and head against torch: the file's weights (to `tol`), the table on screen, the engine's recomputation. */
async function checkAll(page: Page, key: 'encoder' | 'seq2seq', tol: number, widget = false): Promise<number> {
  let worst = 0
  const layers = ref[key].layers as RefLayer[]
  for (let l = 0; l < layers.length; l++) {
    const [heads, nq, nk] = layers[l].shape
    for (let hd = 0; hd < heads; hd++) {
      const torch = layers[l].data.slice(hd * nq * nk, (hd + 1) * nq * nk)
      const s = await showHead(page, l, hd, widget)
      expect(maxAbs(s.file, torch), `layer ${l} head ${hd}: file vs torch`).toBeLessThanOrEqual(tol)
      expect(
        maxAbs(s.table.flat(), torch),
        `layer ${l} head ${hd}: the table on screen (4 decimals)`,
      ).toBeLessThanOrEqual(5.01e-5)
      expect(s.engine, `layer ${l}: the file has Q, K, V`).not.toBeNull()
      expect(maxAbs(s.engine!, torch), `layer ${l} head ${hd}: engine vs torch`).toBeLessThanOrEqual(
        Math.max(tol, 1e-5),
      )
      expect(s.maxDiff!).toBeLessThanOrEqual(Math.max(tol, 1e-5))
      expect(s.diffText).toMatch(/\d\.\d\de[-+]\d+$/)
      worst = Math.max(worst, s.maxDiff!)
    }
  }
  return worst
}

/** Waits for a model file to be shown (`name`: that one; the page's ?view=model opens its sample first). */
async function waitModel(page: Page, widget = false, name?: string): Promise<void> {
  await page.waitForFunction(
    ([w, n]) => {
      if (w) return !!(document.querySelector('attention-playground') as Widget | null)?.model
      const m = window.__apPlayground?.model()
      return !!m && (!n || m.name === n)
    },
    [widget, name] as const,
    { timeout: 30_000 },
  )
}

describe('the model view in Chromium', () => {
  it("file picker: a 2-layer nn.TransformerEncoder (4 heads) — weights equal torch's, the engine's recomputation within 1e-5", async () => {
    const { page, errors } = await open('/site/?view=model&lang=en')
    await page.waitForFunction(() => !!window.__apPlayground!)
    const panel = page.locator('[data-step="model"]')
    await expect.poll(() => panel.isVisible()).toBe(true)
    await panel.locator('input[name="modelFile"]').setInputFiles(join(MODELS, 'encoder.safetensors'))
    await waitModel(page, false, 'encoder.safetensors')
    expect(await page.locator('.model-thumb').count()).toBe(8)
    expect(await panel.locator('.model-info').textContent()).toContain(
      'encoder.safetensors · 2 layers · 4 heads · 11 tokens',
    )
    const worst = await checkAll(page, 'encoder', 0)
    console.log(`model view, encoder: largest |engine − file| over 8 heads = ${worst.toExponential(2)}`)
    // The head view: token lines between the file's tokens.
    expect(await panel.locator('.model-lines .lines-tok').allTextContents()).toContain('animal')
    // The pipeline's steps with their shapes.
    expect(await panel.locator('[data-model-step="Q"] .shape').textContent()).toBe('(11,4)')
    expect(await panel.locator('[data-model-step="scores"] .shape').textContent()).toBe('(11,11)')
    // A float16 file: the same layers, to float16's precision.
    await panel.locator('input[name="modelFile"]').setInputFiles(join(MODELS, 'encoder-f16.safetensors'))
    await page.waitForFunction(() => window.__apPlayground!.model()!.name === 'encoder-f16.safetensors')
    const s = await showHead(page, 1, 3)
    expect(maxAbs(s.file, (ref.encoder.layers[1].data as number[]).slice(3 * 121, 4 * 121))).toBeLessThan(5e-4)
    expect(errors).toEqual([])
  })

  it('?src=: an encoder–decoder with causal self-attention and cross attention, in Chinese', async () => {
    const { page, errors } = await open('/site/?src=/tests/fixtures/models/seq2seq.safetensors&lang=zh')
    await waitModel(page)
    // The link opens the model view by itself.
    expect(await page.locator('[role="tab"][data-view="model"]').getAttribute('aria-selected')).toBe('true')
    const m = await page.evaluate(() => {
      const f = window.__apPlayground!.model()!.file
      return {
        tokens: f.tokens,
        source: f.sourceTokens,
        kinds: f.layers.map((l) => l.kind),
        q: f.layers[2].queryTokens,
        k: f.layers[2].keyTokens,
      }
    })
    expect(m.kinds).toEqual(['self', 'self', 'cross', 'self', 'cross'])
    // Cross attention: queries from the target, keys from the source.
    expect(m.q).toEqual(['<s>', 'I', 'love', 'China'])
    expect(m.k).toEqual(['我', '爱', '中国'])
    await checkAll(page, 'seq2seq', 0)
    const panel = page.locator('[data-step="model"]')
    await page.evaluate(() => window.__apPlayground!.selectModelHead(2, 1))
    expect(await panel.locator('h3').allTextContents()).toContain(
      '层 3 · 头 2 · 交叉注意力 — decoder.layers.0.multihead_attn',
    )
    // The causal layer shows its mask step; the cross layer has none.
    await page.evaluate(() => window.__apPlayground!.selectModelHead(1, 0))
    expect(await panel.locator('[data-model-step="maskedScores"]').isVisible()).toBe(true)
    expect(await panel.locator('[data-model-step="maskedScores"] h4').textContent()).toBe('掩码后')
    // The view passes axe's WCAG 2.1 AA and best-practice rules, with the heatmap's table opened above.
    await page.addScriptTag({ content: readFileSync(join(ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8') })
    const violations = await page.evaluate(async () =>
      (
        (
          await (window as unknown as { axe: Axe }).axe.run(document.querySelector('[data-step="model"]'), {
            runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'],
          })
        ).violations as Array<{ id: string }>
      ).map((v) => v.id),
    )
    expect(violations).toEqual([])
    expect(errors).toEqual([])
  })

  it('the widget: src and view="model" on a course page', async () => {
    const { page, errors } = await open('/tests/e2e/pages/model.html')
    await page.locator('attention-playground').evaluate((el) => (el as Widget).ready)
    await waitModel(page, true)
    const worst = await checkAll(page, 'seq2seq', 0, true)
    expect(worst).toBeLessThanOrEqual(1e-5)
    expect(await page.locator('attention-playground').evaluate((el) => (el as Widget).model!.file.layers.length)).toBe(
      5,
    )
    expect(errors).toEqual([])
  })

  it('bad files: the message names the tensor, as text; the last good file stays; nothing freezes', async () => {
    const { page, errors } = await open('/site/?view=model&lang=en')
    await page.waitForFunction(() => !!window.__apPlayground!)
    const input = page.locator('input[name="modelFile"]')
    const err = page.locator('[data-step="model"] .model-error')
    await input.setInputFiles(join(MODELS, 'encoder.safetensors'))
    await waitModel(page, false, 'encoder.safetensors')
    const good = readFileSync(join(MODELS, 'encoder.safetensors'))
    const cases = badModelFiles(good, /attention\.1\.v: data_offsets \[\d+, \d+\] run past the end of the data/)
    for (const [name, buffer, msg] of cases) {
      // A bad file ends in its error, never a hang: the poll fails the test after 10 s.
      await input.setInputFiles({ name, mimeType: 'application/octet-stream', buffer })
      await expect.poll(() => err.textContent(), { timeout: 10_000 }).toMatch(msg)
      expect(await err.isVisible()).toBe(true)
      // The previous file is still shown.
      expect(await page.evaluate(() => window.__apPlayground!.model()!.name)).toBe('encoder.safetensors')
    }
    expect(await page.locator('[data-step="model"] img').count()).toBe(0)
    // A URL that is not there.
    await page.evaluate(() => window.__apPlayground!.setState({ src: '/tests/fixtures/models/missing.safetensors' }))
    await expect.poll(() => err.textContent()).toMatch(/src: HTTP 404 .*missing\.safetensors/)
    // The page still works: a good file opens.
    await input.setInputFiles(join(MODELS, 'seq2seq.safetensors'))
    await page.waitForFunction(() => window.__apPlayground!.model()!.name === 'seq2seq.safetensors')
    expect(await err.isHidden()).toBe(true)
    // No script error; the one console line is the browser's own for the missing URL asked for above.
    expect(errors).toEqual([expect.stringMatching(/^Failed to load resource: .*404.*\/missing\.safetensors\)$/)])
  })

  it('drag and drop: a file dropped on the view opens', async () => {
    const { page, errors } = await open('/site/?view=model&lang=en')
    await page.waitForFunction(() => !!window.__apPlayground!)
    await page.evaluate(async () => {
      const bytes = await (await fetch('/tests/fixtures/models/encoder.safetensors')).arrayBuffer()
      const dt = new DataTransfer()
      dt.items.add(new File([bytes], 'dropped.safetensors'))
      const target = document.querySelector('[data-step="model"]')!
      target.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }))
      target.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }))
    })
    await page.waitForFunction(() => window.__apPlayground!.model()?.name === 'dropped.safetensors')
    const s = await showHead(page, 0, 2)
    expect(maxAbs(s.file, (ref.encoder.layers[0].data as number[]).slice(2 * 121, 3 * 121))).toBe(0)
    expect(errors).toEqual([])
  })

  it('a long input (400 tokens) uses the long view', async () => {
    const n = 400
    const w = new Float32Array(n * n)
    for (let i = 0; i < n; i++) for (let j = 0; j <= i; j++) w[i * n + j] = 1 / (i + 1)
    const tokens = Array.from({ length: n }, (_, i) => `t${i}`)
    const bytes = writeSafetensors(
      { 'attention.0.weights': { data: w, shape: [1, n, n] } },
      { format: 'attention-playground/1', tokens: JSON.stringify(tokens) },
    )
    const { page, errors } = await open('/site/?view=model&lang=en')
    await page.waitForFunction(() => !!window.__apPlayground!)
    await page
      .locator('input[name="modelFile"]')
      .setInputFiles({ name: 'long.safetensors', mimeType: 'application/octet-stream', buffer: Buffer.from(bytes) })
    await waitModel(page, false, 'long.safetensors')
    const panel = page.locator('[data-step="model"]')
    await expect.poll(() => panel.locator('.model-long').isVisible()).toBe(true)
    expect(await panel.locator('.model-big').isHidden()).toBe(true)
    // No Q, K, V in this file: the pipeline says so instead of recomputing.
    expect(await page.evaluate(() => window.__apPlayground!.model()!.recomputed)).toBeNull()
    expect(errors).toEqual([])
  })
})
