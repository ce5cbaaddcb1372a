// A long text in the page, in real headless Chromium: 2,100 pasted words switch the
// page to the long view, where no n×n matrix is built; the weights canvas zooms and pans, and the
// value the page reads out for a cell equals the engine's full run (in Node) for that cell.
import { beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { artifact, openMoreOptions, readPanel, settled } from './harness.mjs'
import { env, useEnv } from './env'
import { RENDERED, usePages } from './page-fixture'
import { init } from '../../dist/index.js'

const WORDS = (
  'the animal did not cross the street because it was too tired , a cat sat on the mat and the dog ran ' +
  'fast over a lazy fox while birds sang in the old tree by the river that flowed under the stone bridge'
).split(' ')
const N = 2100
const TEXT = Array.from({ length: N }, (_, i) => WORDS[(i * 7 + (i >> 4)) % WORDS.length]).join(' ')

let engine: Awaited<ReturnType<typeof init>>
let page: Page
let errors: string[]

/** The readout under the canvas: which cell, and its exact value. */
async function readout(p: Page): Promise<{ i: number; j: number; value: number; text: string }> {
  return p.locator('[data-panel="long"] .long-readout').evaluate((el) => ({
    i: Number((el as HTMLElement).dataset.i),
    j: Number((el as HTMLElement).dataset.j),
    value: Number((el as HTMLElement).dataset.value),
    text: el.textContent ?? '',
  }))
}

const zoomText = (p: Page) => p.locator('[data-panel="long"] .long-zoom').textContent()

/** The long view draws on the next frames: wait until its zoom line shows the current view. */
async function drawn(p: Page): Promise<void> {
  await settled(p)
  await settled(p)
}

useEnv()
// One page for the file: its tests go on from where the previous one left it.
const pages = usePages(undefined, 'suite')

beforeAll(async () => {
  engine = await init()
  ;({ page, errors } = await pages.open(env.site.url + '?tokenizer=word', {
    viewport: { width: 1400, height: 1000 },
    ready: (p) => p.waitForSelector(RENDERED, { state: 'attached' }),
  }))
  // Pasting: the whole text arrives in one input event.
  await page.locator('textarea[name="text"]').fill(TEXT)
  await page.locator('[data-panel="long"]').waitFor({ state: 'visible', timeout: 60_000 })
  await drawn(page)
})

describe('a 2,100-token text in the page', () => {
  const full = () =>
    engine.run({ text: TEXT, tokenizer: 'word' }) as unknown as Record<
      string,
      { data: Float32Array; shape: number[] }
    > & { tokens: string[] }

  it("switches to the long view: no n×n matrix, Q and the output equal the engine's", async () => {
    const tr = full()
    expect(tr.tokens.length).toBe(N)
    const shown = await page.evaluate(() => {
      const t = (
        window as unknown as {
          __apPlayground: { getTrace(): Record<string, { data: Float32Array; shape: number[] }> & { tokens: string[] } }
        }
      ).__apPlayground.getTrace()
      return {
        n: t.tokens.length,
        weights: t.weights.data.length,
        scores: t.scores.data.length,
        Q: Array.from(t.Q.data),
        output: Array.from(t.output.data),
      }
    })
    expect(shown.n).toBe(N)
    // What makes the page responsive: the n×n steps were never computed for it.
    expect(shown.weights).toBe(0)
    expect(shown.scores).toBe(0)
    expect(Float32Array.from(shown.Q)).toEqual(tr.Q.data) // the split runs give the very same Q
    // The fused kernel sums 2,100 keys in another order than the full run: measured up to 1.3e-5
    // relative here (float32 rounding), so 3e-5.
    shown.output.forEach((v, k) =>
      expect(Math.abs(v - tr.output.data[k]), `output[${k}]`).toBeLessThanOrEqual(
        3e-5 * Math.max(1, Math.abs(tr.output.data[k])),
      ),
    )
    // the score and weight panels make way for the long view; the output panel shows the engine's numbers
    await expect(page.locator('[data-step="weights"]').isVisible()).resolves.toBe(false)
    await expect(page.locator('.long-note').isVisible()).resolves.toBe(true)
    const out = await readPanel(page, 'output')
    expect(out.rows.length).toBe(200) // the text alternative's cap
    out.values.forEach((row, i) =>
      row.forEach((v, j) => {
        const e = tr.output.data[i * 28 + j]
        expect(Math.abs(v - e), `output[${i}][${j}]`).toBeLessThanOrEqual(5.1e-5 + 3e-5 * Math.max(1, Math.abs(e)))
      }),
    )
    expect(await page.locator('[data-panel="tokens"] .tok').count()).toBe(160)
    expect(await page.locator('[data-panel="tokens"] .tok-more').textContent()).toContain(String(N - 160))
    // exports: the n-row matrices as CSV; the n×n ones are refused with a message that says why
    const csv = await page.evaluate(() => {
      const pg = (window as unknown as { __apPlayground: { csv(s: string): string } }).__apPlayground
      let refused = ''
      try {
        pg.csv('weights')
      } catch (e) {
        refused = (e as Error).message
      }
      return { q: pg.csv('Q').trimEnd().split('\r\n').length, refused }
    })
    expect(csv.q).toBe(N + 1)
    expect(csv.refused).toMatch(/"weights" is never built for a text of 2100 tokens/)
    await page.locator('[data-panel="long"]').screenshot({ path: artifact('long-view.png') })
  })

  it("the keyboard cursor reads out a cell equal to the engine's weight; zoom and pan move the view", async () => {
    const tr = full()
    const canvas = page.locator('[data-panel="long"] canvas.long-canvas')
    await canvas.focus()
    for (let k = 0; k < 5; k++) await page.keyboard.press('Shift+ArrowDown') // row 50
    for (let k = 0; k < 3; k++) await page.keyboard.press('ArrowRight') // column 3
    let r = await readout(page)
    expect([r.i, r.j]).toEqual([50, 3])
    expect(r.text).toContain('weights[50, 3]')
    const want = tr.weights.data[50 * N + 3]
    expect(Math.abs(r.value - want), `weights[50, 3]: page ${r.value}, engine ${want}`).toBeLessThanOrEqual(
      1e-6 * Math.max(want, 1e-3),
    )

    const before = await zoomText(page)
    await page.locator('[data-panel="long"] button[name="zoomIn"]').click()
    await page.locator('[data-panel="long"] button[name="zoomIn"]').click()
    await page.locator('[data-panel="long"] button[name="zoomIn"]').click()
    await drawn(page)
    const zoomed = (await zoomText(page))!
    expect(zoomed).not.toBe(before)
    const rowsShown = (z: string) => {
      const m = /(\d+)–(\d+)/.exec(z)!
      return [Number(m[1]), Number(m[2])]
    }
    const [a0, a1] = rowsShown(zoomed)
    expect(a1 - a0).toBeLessThan(N / 4) // zoomed in: a fraction of the rows on screen
    // drag up-left: the view moves down the matrix
    const box = (await canvas.boundingBox())!
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2)
    await page.mouse.down()
    await page.mouse.move(box.x + box.width / 2 - 150, box.y + box.height / 2 - 200, { steps: 5 })
    await page.mouse.up()
    await drawn(page)
    const [b0] = rowsShown((await zoomText(page))!)
    expect(b0).toBeGreaterThan(a0)
    // hover a cell: its read-out value is the engine's
    await page.mouse.move(box.x + box.width * 0.6, box.y + box.height * 0.55)
    await drawn(page)
    r = await readout(page)
    expect(r.i).toBeGreaterThanOrEqual(b0)
    const w = tr.weights.data[r.i * N + r.j]
    expect(Math.abs(r.value - w), `weights[${r.i}, ${r.j}]: page ${r.value}, engine ${w}`).toBeLessThanOrEqual(
      1e-6 * Math.max(w, 1e-3),
    )
    // scores too
    await page.locator('[data-panel="long"] select[name="longKind"]').selectOption('scores')
    await page.mouse.move(box.x + box.width * 0.6 + 1, box.y + box.height * 0.55)
    await drawn(page)
    r = await readout(page)
    expect(r.text).toContain('scores[')
    const sc = tr.scores.data[r.i * N + r.j]
    expect(Math.abs(r.value - sc), `scores[${r.i}, ${r.j}]`).toBeLessThanOrEqual(1e-5 * Math.max(1, Math.abs(sc)))
    await page.locator('[data-panel="long"] select[name="longKind"]').selectOption('weights')
    await page.locator('[data-panel="long"]').screenshot({ path: artifact('long-view-zoomed.png') })
  })

  it('a causal mask and two heads: the read-out cells follow the engine', async () => {
    await page.locator('select[name="mask"]').selectOption('causal')
    await openMoreOptions(page)
    await page.locator('select[name="heads"]').selectOption('2')
    await settled(page)
    await page.locator('select[name="head"]').selectOption('1')
    await drawn(page)
    const tr = engine.run({ text: TEXT, tokenizer: 'word', mask: 'causal', heads: 2 }) as unknown as Record<
      string,
      { data: Float32Array }
    >
    const canvas = page.locator('[data-panel="long"] canvas.long-canvas')
    await page.locator('[data-panel="long"] button[name="zoomFit"]').click()
    await canvas.focus()
    await page.keyboard.press('0')
    await page.keyboard.press('ArrowLeft') // cursor stays a cell on screen; move it to (7, 2) and (7, 9)
    for (let k = 0; k < 7; k++) await page.keyboard.press('ArrowDown')
    const at = async (j: number) => {
      const cur = await readout(page)
      for (let k = cur.j; k < j; k++) await page.keyboard.press('ArrowRight')
      for (let k = cur.j; k > j; k--) await page.keyboard.press('ArrowLeft')
      return readout(page)
    }
    const below = await at(2)
    expect([below.i, below.j]).toEqual([57, 2])
    const want = tr.weights.data[N * N + 57 * N + 2] // head 1
    expect(
      Math.abs(below.value - want),
      `head 1 weights[57, 2]: page ${below.value}, engine ${want}`,
    ).toBeLessThanOrEqual(1e-6 * Math.max(want, 1e-3))
    const above = await at(90)
    expect(above.value).toBe(0) // no peeking ahead
    expect(tr.weights.data[N * N + 57 * N + 90]).toBe(0)
    expect(errors).toEqual([])
  })
})
