// Printing / saving as PDF: Chromium's page.pdf() of the page and of the widget holds every number of every
// step (as text: the tables each heatmap builds before printing; a canvas prints only as a picture), with
// every heatmap drawn (also those never scrolled into view) and no controls on paper. The PDF's text is
// read with pdftotext (Debian's poppler-utils; scripts/ensure-deps.sh --test installs it).
import { describe, expect, it } from 'vitest'
import { execFileSync, spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import type { Locator, Page } from 'playwright-core'
import { artifact, openLessonWidgets } from './harness.mjs'
import { env, useEnv } from './env'
import { RENDERED, usePages } from './page-fixture'
import { fmt } from '../../web/format'
import type { PlaygroundHandle } from '../../web/playground'
import type { AttentionPlaygroundElement as WidgetEl } from '../../web/widget'

type PageWindow = Window & { __apPlayground: PlaygroundHandle }

type Tensor = { data: Float32Array | number[]; shape: number[] }

useEnv(() => {
  const probe = spawnSync('pdftotext', ['-v'], { encoding: 'utf8' })
  if (probe.error)
    throw new Error('pdftotext is missing: apt-get install -y poppler-utils (or bash scripts/ensure-deps.sh --test)')
})
const pages = usePages()

function pdfText(pdf: Buffer, name: string): string {
  const file = artifact(name)
  writeFileSync(file, pdf)
  return execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8', maxBuffer: 64 << 20 })
}

/** Every number of a step's matrix (head 0), as the page writes them (the course's matrices are small). */
function allNumbers(t: Tensor): string[] {
  const [rows, cols] = t.shape.slice(-2)
  return Array.from(t.data)
    .slice(0, rows * cols)
    .map((v) => fmt(v, 4))
}

/** Every step panel that is shown. */
async function shownSteps(root: Locator | Page): Promise<string[]> {
  const names = await root
    .locator('[data-step]')
    .evaluateAll((els) =>
      els.filter((e) => (e as HTMLElement).offsetParent !== null).map((e) => (e as HTMLElement).dataset.step ?? ''),
    )
  expect(names.length).toBeGreaterThanOrEqual(12)
  return names
}

/** The trace's tensors as plain arrays, of the page (no id) or of the widget with that id. */
async function traceOf(page: Page, widgetId: string | null = null): Promise<Record<string, Tensor>> {
  return page.evaluate((id) => {
    const t = id
      ? (document.getElementById(id) as WidgetEl).trace
      : (window as unknown as PageWindow).__apPlayground.getTrace()
    const out: Record<string, { data: number[]; shape: number[] }> = {}
    for (const [k, v] of Object.entries(t ?? {}))
      if (v && (v as Tensor).data instanceof Float32Array)
        out[k] = { data: Array.from((v as Tensor).data), shape: (v as Tensor).shape }
    return out
  }, widgetId)
}

async function expectPrinted(text: string, steps: string[], trace: Record<string, Tensor>, what: string) {
  // pdftotext keeps the minus sign as U+2212 and the cells apart by spaces.
  for (const step of steps) {
    const t = trace[step]
    expect(t, `${what}: the trace has ${step}`).toBeTruthy()
    for (const n of allNumbers(t).filter((s) => s !== '−∞')) {
      expect(text.includes(n), `${what}: ${step}'s ${n} is in the PDF`).toBe(true)
    }
  }
}

/** Canvases that were never drawn are blank: every heatmap canvas of the page must have pixels. */
async function allDrawn(root: Locator | Page): Promise<string[]> {
  return root.locator('[data-step] canvas.hm-canvas').evaluateAll((cs) =>
    cs
      .filter((c) => {
        const cv = c as HTMLCanvasElement
        if (cv.offsetParent === null) return false
        const px = cv.getContext('2d')!.getImageData(0, 0, cv.width, cv.height).data
        for (let i = 3; i < px.length; i += 4) if (px[i] !== 0) return false
        return true
      })
      .map((c) => c.closest<HTMLElement>('[data-step]')!.dataset.step ?? ''),
  )
}

describe('printing', () => {
  it("the page's PDF holds every step's numbers, every heatmap drawn, no controls", async () => {
    // A short window: most panels are far below the fold and were never drawn on screen.
    const { page } = await pages.open(env.site.url + '?lang=en&mask=causal', {
      viewport: { width: 1100, height: 600 },
      ready: RENDERED,
    })
    expect((await allDrawn(page)).length, 'some panels wait below the fold before printing').toBeGreaterThan(0)
    const trace = await traceOf(page)
    const pdf = await page.pdf({ format: 'A4', printBackground: true })
    const text = pdfText(pdf, 'page-print.pdf')
    await expectPrinted(text, await shownSteps(page), trace, 'page')
    // Drawn for print, and no controls on paper.
    expect(await allDrawn(page)).toEqual([])
    expect(text).not.toContain('Start the guided tour')
    expect(text).not.toContain('Copy as PyTorch code')
    expect(text).toContain('Attention Playground')
  }, 240_000)

  it("the widget's PDF holds every step's numbers", async () => {
    const { page } = await pages.open(undefined, { viewport: { width: 1000, height: 600 } })
    await openLessonWidgets(page, env.widgets.url)
    const w = page.locator('#zh')
    const trace = await traceOf(page, 'zh')
    const text = pdfText(await page.pdf({ format: 'A4', printBackground: true }), 'widget-print.pdf')
    await expectPrinted(text, await shownSteps(w), trace, 'widget')
    expect(await allDrawn(w)).toEqual([])
  }, 240_000)
})
