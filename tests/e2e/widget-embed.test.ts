import { STEP_NAMES } from '../../dist/index.js'
// The widget as a course author uses it: plain HTML pages (tests/e2e/pages/) load the built
// dist/widget/widget.js in real headless Chromium. Two instances with different text, language and
// mask show the engine's numbers (run in Node on the same options); attributes update them; hostile
// attributes show literally and run nothing; the exported PyTorch program, run with real torch,
// prints the numbers on screen; removal frees everything; a shared page URL restores its numbers,
// also inside an <iframe>.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Locator, Page } from 'playwright-core'
import { ROOT, artifact } from './harness.mjs'
import { env, useEnv } from './env'
import { usePages, type Opened, type Pages } from './page-fixture'
import { requireTorch } from '../support/tools'
import { init, type RunOptions, type StepName, type Trace } from '../../dist/index.js'
import { translator } from '../../web/i18n'
import type { AttentionPlaygroundElement as WidgetEl } from '../../web/widget'

type Tensor = { data: Float32Array; shape: number[] }
type Engine = Awaited<ReturnType<typeof init>>

const WIDGET = join(ROOT, 'dist/widget/widget.js')
const STEPS = STEP_NAMES

let engine: Engine
let tmp: string

// The repository root (env.widgets): the pages load /dist/widget/widget.js, which fetches /dist/attention.wasm.
useEnv()
const pages = usePages()

beforeAll(async () => {
  if (!existsSync(WIDGET))
    throw new Error(
      `${WIDGET} is missing: run node scripts/build.mjs (it builds the widget with vite.widget.config.ts)`,
    )
  engine = await init()
  tmp = mkdtempSync(join(tmpdir(), 'ap-widget-'))
})

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true })
})

/** A path of the repository root's server, at 1300 × 1000 (locale en-US unless given). */
function open(path: string, opts: { locale?: string } = {}, opener: Pages = pages): Promise<Opened> {
  return opener.open(env.widgets.url + path, { viewport: { width: 1300, height: 1000 }, ...opts })
}

/** Waits for the element's first render (its `ready` promise). */
async function ready(page: Page, sel: string): Promise<void> {
  await page.locator(sel).evaluate((el) => (el as WidgetEl).ready)
}

/** Waits until the element rendered again after a change made by `act`. */
async function rerender(page: Page, sel: string, act: () => Promise<unknown>): Promise<void> {
  const before = await page.locator(sel).evaluate((el) => (el as WidgetEl).renderCount)
  await act()
  await page.waitForFunction(
    ([s, n]) => {
      const el = document.querySelector(s as string) as WidgetEl | null
      return el && el.renderCount > (n as number)
    },
    [sel, before] as const,
  )
}

/** A step's numbers as displayed: its text alternative (the table), opened like a learner would. */
async function shown(widget: Locator, step: string): Promise<{ rows: string[]; cols: string[]; values: number[][] }> {
  const panel = widget.locator(`[data-step="${step}"]`)
  const details = panel.locator('details.hm-alt')
  if (!(await details.evaluate((d) => (d as HTMLDetailsElement).open))) await details.locator('summary').click()
  return panel.locator('table').evaluate((table) => {
    const parse = (s: string) => {
      const t = s.trim().replace(/^−/, '-')
      return t === '-∞' ? -Infinity : Number(t)
    }
    return {
      cols: Array.from(table.querySelectorAll('thead th'))
        .slice(1)
        .map((th) => th.textContent ?? ''),
      rows: Array.from(table.querySelectorAll('tbody tr')).map((tr) => tr.querySelector('th')?.textContent ?? ''),
      values: Array.from(table.querySelectorAll('tbody tr')).map((tr) =>
        Array.from(tr.querySelectorAll('td')).map((td) => parse(td.textContent ?? '')),
      ),
    }
  })
}

function rowsOf(t: Tensor, head = 0): number[][] {
  const [r, c] = t.shape.length === 3 ? t.shape.slice(1) : t.shape
  const off = t.shape.length === 3 ? head * r * c : 0
  return Array.from({ length: r }, (_, i) => Array.from(t.data.subarray(off + i * c, off + (i + 1) * c)))
}

/** Shown with 4 decimals (or 3 significant digits in exponent form): equal within that rounding. */
function expectShownEquals(got: number[][], want: number[][], what: string): void {
  expect(got.length, `${what}: rows`).toBe(want.length)
  for (let i = 0; i < want.length; i++) {
    expect(got[i].length, `${what}: row ${i} length`).toBe(want[i].length)
    for (let j = 0; j < want[i].length; j++) {
      const a = got[i][j],
        b = want[i][j]
      if (b === -Infinity || a === -Infinity) {
        expect(a, `${what}[${i}][${j}]`).toBe(b)
        continue
      }
      const tol = Math.max(5.01e-5, Math.abs(b) * 5.01e-3 * (Math.abs(b) < 1e-4 ? 1 : 0))
      expect(Math.abs(a - b), `${what}[${i}][${j}]: shown ${a}, engine ${b}`).toBeLessThanOrEqual(tol)
    }
  }
}

async function expectWidgetShows(widget: Locator, tr: Trace, steps: readonly string[] = STEPS): Promise<void> {
  for (const step of steps) expectShownEquals((await shown(widget, step)).values, rowsOf(tr[step as StepName]), step)
}

/** The element's own trace (the exact float32s), as plain arrays. */
async function widgetTrace(
  widget: Locator,
): Promise<Record<string, { data: number[]; shape: number[] }> & { tokens: string[] }> {
  return widget.evaluate((el: WidgetEl) => {
    const t = el.trace!
    const out: Record<string, unknown> = { tokens: t.tokens, maskedRows: t.maskedRows }
    for (const [k, v] of Object.entries(t)) {
      if (v && typeof v === 'object' && 'data' in v && 'shape' in v)
        out[k] = { data: Array.from((v as Tensor).data), shape: (v as Tensor).shape }
    }
    return out as Record<string, { data: number[]; shape: number[] }> & { tokens: string[] }
  })
}

function expectSameNumbers(got: { data: number[] }, want: Tensor, what: string): void {
  expect(got.data.length, what).toBe(want.data.length)
  // Same wasm, same inputs: the browser's numbers are the Node run's, bit for bit.
  expect(Float32Array.from(got.data), what).toEqual(want.data)
}

const EN = { text: 'the animal was too tired', score: 'additive', seed: 7 } as const
const ZH = { text: '我爱中国', tokenizer: 'char', mask: 'causal', dq: 8, dk: 8, dv: 12 } as const

/** The data-step of every panel of a widget that is laid out (not hidden), in order. */
function shownSteps(widget: Locator, selector: string): Promise<(string | undefined)[]> {
  return widget.evaluate(
    (el, sel) =>
      Array.from(el.shadowRoot!.querySelectorAll<HTMLElement>(sel))
        .filter((p) => p.offsetParent !== null)
        .map((p) => p.dataset.step),
    selector,
  )
}

describe('the built module', () => {
  it('is one ES module with no bare imports, no inlined wasm, and finds ../attention.wasm at run time', () => {
    const js = readFileSync(WIDGET, 'utf8')
    const specifiers = [
      ...js.matchAll(/(?:^|[;\s}])import\s*(?:[\w$*{][^'"`;]*?from\s*)?['"`]([^'"`]+)['"`]/g),
      ...js.matchAll(/\bimport\(\s*['"`]([^'"`]+)['"`]/g),
      ...js.matchAll(/\bexport\s*[^;]*?from\s*['"`]([^'"`]+)['"`]/g),
    ].map((m) => m[1])
    expect(specifiers, 'static or dynamic imports left in widget.js').toEqual([])
    expect(js).not.toMatch(/AGFzbQ/) // base64 of "\0asm": the wasm was inlined
    expect(js).not.toMatch(/data:application\/wasm/)
    expect(js).toContain('../attention.wasm')
    expect(js).toMatch(
      /customElements\.define\(\s*`attention-playground`|customElements\.define\("attention-playground"/,
    )
    expect(existsSync(join(ROOT, 'dist/widget/widget.d.ts'))).toBe(true)
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
    expect(pkg.exports['./widget'].import).toBe('./dist/widget/widget.js')
  })
})

describe('two widgets on one plain page', () => {
  let page: Page
  let errors: string[]
  let requests: string[]

  const shared = usePages(undefined, 'suite')

  beforeAll(async () => {
    ;({ page, errors, requests } = await open('/tests/e2e/pages/two.html', {}, shared))
    await ready(page, '#en')
    await ready(page, '#zh')
  })

  it('each shows its own numbers, equal to the engine run in Node on the same options', async () => {
    const en = page.locator('#en'),
      zh = page.locator('#zh')
    const trEn = engine.run({ ...EN }) as Trace
    const trZh = engine.run({ ...ZH }) as Trace
    await expectWidgetShows(en, trEn)
    await expectWidgetShows(zh, trZh)
    const [wEn, wZh] = [await widgetTrace(en), await widgetTrace(zh)]
    expect(wEn.tokens).toEqual(['the', 'animal', 'was', 'too', 'tired'])
    expect(wZh.tokens).toEqual(['我', '爱', '中', '国'])
    for (const step of STEPS) {
      expectSameNumbers(wEn[step], trEn[step], `en ${step}`)
      expectSameNumbers(wZh[step], trZh[step], `zh ${step}`)
    }
    // causal in the zh widget only: -∞ above the diagonal there, none in the en widget
    expect((await shown(zh, 'maskedScores')).values[0].slice(1)).toEqual([-Infinity, -Infinity, -Infinity])
    expect((await shown(en, 'maskedScores')).values.flat().includes(-Infinity)).toBe(false)
    expect(errors).toEqual([])
    await page.screenshot({ path: artifact('widget-two-instances.png'), fullPage: true })
  })

  it("speaks each widget's language (zh and en), in panel titles, tables and export buttons", async () => {
    const zhT = translator('zh'),
      enT = translator('en')
    const en = page.locator('#en'),
      zh = page.locator('#zh')
    await expect(zh.locator('[data-step="weights"] summary').textContent()).resolves.toBe(zhT('showNumbers'))
    await expect(en.locator('[data-step="weights"] summary').textContent()).resolves.toBe(enT('showNumbers'))
    expect(zhT('showNumbers')).not.toBe(enT('showNumbers'))
    await expect(zh.locator('button[data-export="pytorch"]').textContent()).resolves.toBe('复制为 PyTorch 代码')
    await expect(en.locator('button[data-export="pytorch"]').textContent()).resolves.toBe('Copy as PyTorch code')
    const zhTitle = await zh.locator('[data-step="weights"] h3').textContent()
    expect(zhTitle).toMatch(/[\u4e00-\u9fff]/)
    expect(await en.locator('[data-step="weights"] h3').textContent()).not.toMatch(/[\u4e00-\u9fff]/)
  })

  it('loads the wasm once, from beside the widget folder (/dist/attention-relaxed.wasm)', () => {
    const wasm = requests.filter((p) => p.endsWith('.wasm'))
    // Chromium runs relaxed SIMD: init() picks that engine's file.
    expect(wasm).toEqual(['/dist/attention-relaxed.wasm'])
    expect(requests).toContain('/dist/widget/widget.js')
  })

  it('changing attributes updates only that widget', async () => {
    const en = page.locator('#en')
    const zhBefore = await widgetTrace(page.locator('#zh'))
    await rerender(page, '#en', () =>
      en.evaluate((el) => {
        el.setAttribute('mask', 'causal')
        el.setAttribute('text', 'it was too wide')
      }),
    )
    const tr = engine.run({ ...EN, text: 'it was too wide', mask: 'causal' }) as Trace
    await expectWidgetShows(en, tr, ['scores', 'maskedScores', 'weights', 'output'])
    expectSameNumbers((await widgetTrace(en)).weights, tr.weights, 'en weights after the change')
    const zhAfter = await widgetTrace(page.locator('#zh'))
    expect(zhAfter.weights.data).toEqual(zhBefore.weights.data)

    await rerender(page, '#en', () =>
      en.evaluate((el) => {
        el.setAttribute('heads', '2')
        el.setAttribute('score', 'general')
      }),
    )
    const tr2 = engine.run({ ...EN, text: 'it was too wide', mask: 'causal', heads: 2, score: 'general' }) as Trace
    expectSameNumbers((await widgetTrace(en)).weights, tr2.weights, 'en weights with 2 heads, general')
    await expectWidgetShows(en, tr2, ['output'])

    // the optional attributes beyond the required list: dmodel (HTML lower-cases it), temperature
    await rerender(page, '#en', () =>
      en.evaluate((el) => {
        el.setAttribute('dmodel', '8')
        el.setAttribute('temperature', '0.5')
      }),
    )
    const tr2b = engine.run({
      ...EN,
      text: 'it was too wide',
      mask: 'causal',
      heads: 2,
      score: 'general',
      dModel: 8,
      temperature: 0.5,
    }) as Trace
    expectSameNumbers((await widgetTrace(en)).output, tr2b.output, 'en output with dModel 8, temperature 0.5')
    await rerender(page, '#en', () =>
      en.evaluate((el) => {
        el.removeAttribute('dmodel')
        el.removeAttribute('temperature')
      }),
    )

    // back to the default when an attribute is removed
    await rerender(page, '#en', () =>
      en.evaluate((el) => {
        el.removeAttribute('score')
        el.removeAttribute('heads')
      }),
    )
    const tr3 = engine.run({ text: 'it was too wide', mask: 'causal', seed: 7 }) as Trace
    expectSameNumbers((await widgetTrace(en)).output, tr3.output, 'en output after removing score and heads')

    // steps= set on a live element: only those panels (teachers.test.ts checks the tag the Embed box gives)
    await rerender(page, '#en', () => en.evaluate((el) => el.setAttribute('steps', 'weights,output')))
    expect(await shownSteps(en, '[data-step]')).toEqual(['weights', 'output'])
    expectSameNumbers((await widgetTrace(en)).weights, tr3.weights, 'en weights after steps')
    await rerender(page, '#en', () => en.evaluate((el) => el.removeAttribute('steps')))

    // language switch by attribute
    await rerender(page, '#en', () => en.evaluate((el) => el.setAttribute('lang', 'zh')))
    await expect(en.locator('[data-step="weights"] summary').textContent()).resolves.toBe(
      translator('zh')('showNumbers'),
    )
    await expect(en.locator('button[data-export="png"]').first().getAttribute('aria-label')).resolves.toBe(
      '将此面板下载为 PNG 图片',
    )
  })

  it('guided starts the tour at the given step', async () => {
    const zh = page.locator('#zh')
    await rerender(page, '#zh', () => zh.evaluate((el) => el.setAttribute('guided', '3')))
    const guided = zh.locator('[data-panel="guided"]')
    expect(await guided.isVisible()).toBe(true)
    expect(await guided.locator('.guided-count').textContent()).toContain('3')
    expect(await zh.evaluate((el: WidgetEl) => el.state!.guided)).toBe(3)
    await rerender(page, '#zh', () => zh.evaluate((el) => el.removeAttribute('guided')))
    expect(await guided.isVisible()).toBe(false)
  })

  it("exports a panel as PNG (the heatmap's own pixels) and a matrix as CSV", async () => {
    const res = await page.locator('#zh').evaluate(async (el: WidgetEl) => {
      // The panel canvas as it is when the export copies it (png() draws it synchronously): a resize
      // redraw after that would otherwise compare the PNG with a different picture.
      const src = el.shadowRoot!.querySelector('[data-step="weights"] canvas.hm-canvas') as HTMLCanvasElement
      const srcData = src.getContext('2d')!.getImageData(0, 0, src.width, src.height).data
      const srcSize = { width: src.width, height: src.height, clientWidth: src.clientWidth }
      const blob: Blob = await el.png('weights')
      const bmp = await createImageBitmap(blob)
      const c = new OffscreenCanvas(bmp.width, bmp.height)
      const g = c.getContext('2d')!
      g.drawImage(bmp, 0, 0)
      // Find the heatmap inside the PNG: its pixels must equal the panel canvas's, at some offset below the title.
      const png = g.getImageData(0, 0, c.width, c.height).data
      const pad = Math.round(12 * (srcSize.width / srcSize.clientWidth))
      let match = -1
      for (let y0 = 0; y0 + srcSize.height <= c.height && match < 0; y0++) {
        let ok = true
        for (let k = 0; k < 200 && ok; k++) {
          const x = Math.floor((k * 7919) % srcSize.width),
            y = Math.floor((k * 104729) % srcSize.height)
          const a = (y * srcSize.width + x) * 4,
            b = ((y + y0) * c.width + x + pad) * 4
          if (srcData[a + 3] !== 255) continue // transparent label area: white in the PNG
          for (let ch = 0; ch < 3; ch++) if (Math.abs(srcData[a + ch] - png[b + ch]) > 2) ok = false
        }
        if (ok) match = y0
      }
      const csv: string = el.csv('weights')
      return {
        type: blob.type,
        size: blob.size,
        w: bmp.width,
        h: bmp.height,
        srcW: srcSize.width,
        srcH: srcSize.height,
        match,
        csv,
      }
    })
    expect(res.type).toBe('image/png')
    expect(res.w).toBeGreaterThanOrEqual(res.srcW)
    expect(res.h).toBeGreaterThan(res.srcH)
    expect(
      res.match,
      `the heatmap pixels appear in the PNG below its title (${JSON.stringify({ ...res, csv: undefined })})`,
    ).toBeGreaterThan(0)
    const lines = res.csv.trim().split('\r\n')
    expect(lines[0]).toBe(',我,爱,中,国')
    const w = (engine.run({ ...ZH }) as Trace).weights as Tensor
    expect(Float32Array.from(lines.slice(1).flatMap((l) => l.split(',').slice(1).map(Number)))).toEqual(w.data)
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual(['我', '爱', '中', '国'])
  })

  it('removal frees everything: the shadow tree, and the engine memory it used', async () => {
    const res = await page.evaluate(async () => {
      const Ctor = customElements.get('attention-playground') as unknown as typeof WidgetEl
      const before = Ctor.memoryStats()
      for (let i = 0; i < 12; i++) {
        const el = document.createElement('attention-playground')
        el.setAttribute('text', `sentence number ${i} with some words`)
        el.setAttribute('mask', i % 2 ? 'causal' : 'none')
        document.body.append(el)
        await el.ready
        el.remove()
        if (el.shadowRoot!.childNodes.length !== 0) return { leftover: i }
      }
      return { before, after: Ctor.memoryStats(), widgets: document.querySelectorAll('attention-playground').length }
    })
    expect(res).not.toHaveProperty('leftover')
    expect(res.widgets).toBe(2)
    expect(res.after!.allocatedBytes).toBe(res.before!.allocatedBytes)
    expect(errors).toEqual([])
  })
})

describe('in a narrow lesson column', () => {
  it("stacks its controls above the panels by its own width, not the window's", async () => {
    const { page, errors } = await open('/tests/e2e/pages/column.html')
    await ready(page, '#col')
    const col = page.locator('#col')
    const host = (await col.boundingBox())!
    const controls = (await col.locator('[data-panel="controls"]').boundingBox())!
    const weights = (await col.locator('[data-step="weights"]').boundingBox())!
    expect(host.width).toBeLessThanOrEqual(680)
    expect(controls.y + controls.height).toBeLessThanOrEqual(weights.y)
    expect(weights.x + weights.width).toBeLessThanOrEqual(host.x + host.width + 1)
    expectSameNumbers(
      (await widgetTrace(col)).weights,
      (engine.run({ text: "the animal didn't cross the street because it was too tired" }) as Trace).weights,
      'column weights',
    )
    expect(errors).toEqual([])
    await page.screenshot({ path: artifact('widget-column.png'), fullPage: true })
  })
})

describe('guided in a course page', () => {
  it('does not scroll the host page on load; Next brings the step into view', async () => {
    const { page, errors } = await open('/tests/e2e/pages/guided-scroll.html', { locale: 'zh-CN' })
    await ready(page, '#g')
    // Smooth scrolling would take a few frames to show: wait well past them.
    await page.waitForTimeout(600)
    expect(await page.evaluate(() => window.scrollY), 'the course page stays at its top').toBe(0)
    const g = page.locator('#g')
    expect(await g.locator('[data-panel="guided"] .guided-count').textContent()).toContain('3')
    expect(await g.locator('[data-step="maskedScores"]').getAttribute('class')).toContain('tour-focus')
    // The learner moves on: the tour's panel (weights) is scrolled into the window.
    await g.locator('[data-panel="guided"] button[name="next"]').click()
    await page.waitForFunction(
      () => {
        const el = document
          .querySelector('#g')!
          .shadowRoot!.querySelector('[data-step="weights"]')!
          .getBoundingClientRect()
        return el.top >= 0 && el.bottom <= innerHeight + 1
      },
      null,
      { timeout: 5000 },
    )
    expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(0)
    expect(errors).toEqual([])
  })
})

describe('a long text in the widget', () => {
  it("switches to the long view; the read-out cell is the engine's weight", async () => {
    const { page, errors } = await open('/tests/e2e/pages/two.html')
    const text = '我爱中国的长城和黄河，春天来了花开了。'.repeat(40) // 760 characters = 760 tokens
    await page.evaluate((text) => {
      const el = document.createElement('attention-playground')
      el.id = 'long'
      el.setAttribute('text', text)
      el.setAttribute('tokenizer', 'char')
      el.setAttribute('steps', 'weights,output')
      document.body.append(el)
    }, text)
    await ready(page, '#long')
    const w = page.locator('#long')
    await w.locator('[data-panel="long"]').waitFor({ state: 'visible' })
    const visible = await w.evaluate((el) =>
      Array.from(el.shadowRoot!.querySelectorAll<HTMLElement>('section[data-step], section[data-panel="long"]'))
        .filter((p) => p.offsetParent !== null)
        .map((p) => p.dataset.step ?? p.dataset.panel),
    )
    expect(visible).toEqual(['long', 'output'])
    await w.locator('[data-panel="long"] canvas').focus()
    for (const k of ['ArrowDown', 'ArrowDown', 'ArrowDown', 'ArrowRight', 'ArrowRight']) await page.keyboard.press(k)
    const r = await w
      .locator('[data-panel="long"] .long-readout')
      .evaluate(
        (el) => ({ ...(el as HTMLElement).dataset, text: el.textContent }) as Record<string, string | undefined>,
      )
    expect([r.i, r.j]).toEqual(['3', '2'])
    const tr = engine.run({ text, tokenizer: 'char' }) as Trace
    const n = tr.tokens.length
    expect(n).toBe(760)
    const want = tr.weights.data[3 * n + 2]
    expect(Math.abs(Number(r.value) - want), `weights[3, 2]: widget ${r.value}, engine ${want}`).toBeLessThanOrEqual(
      1e-6 * Math.max(want, 1e-3),
    )
    expect(r.text).toContain('国 → 中')
    expect(errors).toEqual([])
  })
})

describe('hostile attributes', () => {
  it('show literally, run nothing, and fall back to defaults with a visible notice', async () => {
    const { page, errors } = await open('/tests/e2e/pages/inject.html')
    await ready(page, '#bad')
    const bad = page.locator('#bad')
    const tokens = await bad.locator('[data-panel="tokens"] .tok-text').allTextContents()
    expect(tokens).toEqual(['<img', 'src=x', 'onerror=window.__pwned=1>'])
    const t = await widgetTrace(bad)
    expect(t.tokens).toEqual(['<img', 'src=x', 'onerror=window.__pwned=1>'])
    const found = await bad.evaluate((el) => el.shadowRoot!.querySelectorAll('img, svg[onload], b, script').length)
    expect(found).toBe(0)
    // invalid heads / score / step names: defaults used, and a notice says so, as text
    const notice = (await bad.locator('.apw-notice').textContent()) ?? ''
    expect(notice).toContain('heads = “<b>3</b>”')
    expect(notice).toContain('score = “nope”')
    expect(notice).toContain('steps = “<svg onload=window.__pwned=2>”')
    expect(await bad.evaluate((el: WidgetEl) => [el.state!.heads, el.state!.score])).toEqual([1, 'scaled-dot'])
    // an attribute set later by script is text too
    await rerender(page, '#bad', () =>
      bad.evaluate((el) => el.setAttribute('text', '<script>window.__pwned=3</script> "x" & y')),
    )
    expect((await widgetTrace(bad)).tokens).toContain('<script>window.__pwned=3</script>')
    await page.waitForTimeout(200)
    expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined()
    expect(await bad.evaluate((el) => el.shadowRoot!.querySelectorAll('img, script').length)).toBe(0)
    // values valid one by one that clash: the same fallback and notice, never a blank widget
    await ready(page, '#clash')
    const clash = page.locator('#clash')
    const clashNotice = (await clash.locator('.apw-notice').textContent()) ?? ''
    expect(clashNotice).toContain('dk = “24 (dot needs dk = dq = 8)”')
    expect(clashNotice).toContain('heads = “5 (must divide dq = 8, dk = 8, dv = 28)”')
    expectSameNumbers(
      (await widgetTrace(clash)).output,
      (engine.run({ text: 'a b c', score: 'dot', dq: 8, dk: 8 }) as Trace).output,
      'clash output',
    )
    expect(errors).toEqual([])
    await page.screenshot({ path: artifact('widget-injection.png') })
  })
})

describe('"copy as PyTorch code" from the widget, run with real torch', () => {
  it('prints the numbers the widget shows (to 1e-5), after editing a cell and the temperature', async () => {
    const PY = requireTorch()
    const { page, errors } = await open('/tests/e2e/pages/two.html')
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.widgets.url })
    await ready(page, '#zh')
    const zh = page.locator('#zh')
    // edit W_q[0][1] by keyboard, as a learner does
    await zh.locator('[data-step="Wq"] canvas').focus()
    await page.keyboard.press('ArrowRight')
    await rerender(page, '#zh', async () => {
      await page.keyboard.press('Enter')
      const editor = zh.locator('[data-step="Wq"] input.hm-editor')
      await editor.fill('-2.75')
      await editor.press('Enter')
    })
    await rerender(page, '#zh', () =>
      zh
        .locator('input[type="range"]')
        .first()
        .evaluate((el) => {
          ;(el as HTMLInputElement).value = String(Math.log10(0.6))
          el.dispatchEvent(new Event('input', { bubbles: true }))
        }),
    )
    const state = await zh.evaluate((el: WidgetEl) => el.state)
    expect(state!.edits).toEqual([{ t: 'Wq', r: 0, c: 1, v: -2.75 }])
    expect(state!.temperature).not.toBe(1)

    await zh.locator('button[data-export="pytorch"]').click()
    await expect.poll(() => zh.locator('.ap-status').textContent()).toContain('已复制')
    const code = await page.evaluate(() => navigator.clipboard.readText())
    expect(code).toBe(await zh.evaluate((el: WidgetEl) => el.pytorchCode()))
    const file = join(tmp, 'zh.py')
    writeFileSync(file, code)
    // Strict JSON: masked scores come as the string "-inf", never a bare -Infinity.
    const printed = JSON.parse(execFileSync(PY, [file, '--json'], { encoding: 'utf8', timeout: 120_000 }))
    const wt = await widgetTrace(zh)
    for (const step of STEPS) {
      const py = (printed[step] as unknown[]).flat(2).map((v) => (v === '-inf' ? -Infinity : (v as number)))
      const mine = wt[step].data
      expect(py.length, step).toBe(mine.length)
      for (let i = 0; i < mine.length; i++) {
        if (mine[i] === -Infinity) {
          expect(py[i], `${step}[${i}]`).toBe(-Infinity)
          continue
        }
        expect(
          Math.abs(py[i] - mine[i]) / Math.max(1, Math.abs(mine[i])),
          `${step}[${i}]: torch ${py[i]} widget ${mine[i]}`,
        ).toBeLessThanOrEqual(1e-5)
      }
      // and what is on screen is those numbers, rounded for display
      const [r, c] = wt[step].shape.length === 3 ? wt[step].shape.slice(1) : wt[step].shape
      expectShownEquals(
        (await shown(zh, step)).values,
        Array.from({ length: r }, (_, i) => py.slice(i * c, (i + 1) * c)),
        `torch vs screen ${step}`,
      )
    }
    // the human-readable form runs too
    const human = execFileSync(PY, [file], { encoding: 'utf8', timeout: 120_000 })
    expect(human).toContain('weights (4, 4)')
    expect(errors).toEqual([])
  })
})

describe('the training panel inside the widget (steps includes train)', () => {
  it("loads lazily, takes the page's language, trains in its worker on the shared wasm, and goes away on removal", async () => {
    const { page, errors, requests } = await open('/tests/e2e/pages/train.html')
    await ready(page, '#tr')
    const tr = page.locator('#tr')
    const panel = tr.locator('[data-panel="train"]')
    await panel.waitFor()
    // The worker has loaded the engine when it proposes its sample sentence.
    await expect.poll(() => panel.locator('.tr-sentence').inputValue(), { timeout: 30_000 }).not.toBe('')
    expect(await tr.evaluate((el: WidgetEl) => el.state!.lang)).toBe('zh') // from <html lang="zh-CN">
    expect(await panel.locator('h2').textContent()).toMatch(/[\u4e00-\u9fff]/)
    const before = await panel.locator('.tr-status').textContent()
    await panel.locator('button[name="step"]').click()
    await expect.poll(() => panel.locator('.tr-status').textContent(), { timeout: 30_000 }).not.toBe(before)
    expect(await panel.locator('.tr-error').textContent()).toBe('')
    expect(requests.some((p) => /^\/dist\/widget\/train-worker-[\w-]+\.js$/.test(p))).toBe(true)
    // the page's engine and, for the worker, the trainer module beside it (issue 38: not in the page's engine)
    const wasm = requests.filter((p) => p.endsWith('.wasm'))
    expect(new Set(wasm)).toEqual(new Set(['/dist/attention-relaxed.wasm', '/dist/attention-train-relaxed.wasm']))
    // only the listed step panels besides the training panel
    const visible = await shownSteps(tr, 'section[data-step]')
    expect(visible).toEqual(['weights', 'train'])
    expect(
      await tr.evaluate((el) => {
        el.remove()
        return el.shadowRoot!.childNodes.length
      }),
    ).toBe(0)
    await page.waitForTimeout(300)
    expect(errors).toEqual([])
  })
})

describe('shared URL state (the page) and the iframe embed', () => {
  const query =
    '?text=' +
    encodeURIComponent('the cat sat on the mat') +
    '&score=general&mask=causal&seed=5&heads=2&temperature=0.8&lang=zh'
  const opts: RunOptions = {
    text: 'the cat sat on the mat',
    score: 'general',
    mask: 'causal',
    seed: 5,
    heads: 2,
    temperature: 0.8,
  }

  it('a link restores the same numbers after a reload, equal to the engine', async () => {
    if (!existsSync(join(ROOT, 'site/index.html')))
      throw new Error('site/index.html is missing: node scripts/build.mjs --site')
    const { page, errors } = await open('/site/' + query)
    await page.waitForSelector('[data-step="weights"] canvas')
    const app = page.locator('body')
    const first = await shown(app, 'output')
    const tr = engine.run(opts) as Trace
    expectShownEquals(first.values, rowsOf(tr.output), 'output from the link')
    await page.reload()
    await page.waitForSelector('[data-step="weights"] canvas')
    expect(await shown(app, 'output')).toEqual(first)
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('zh-CN')
    expect(errors).toEqual([])
  })

  it('the same URL in an <iframe> shows the same numbers', async () => {
    const { page, errors } = await open('/tests/e2e/pages/iframe.html')
    await page.locator('#frame').evaluate((f, src) => {
      ;(f as HTMLIFrameElement).src = src
    }, '/site/' + query)
    const frame = page.frameLocator('#frame')
    await frame.locator('[data-step="weights"] canvas').waitFor()
    const tr = engine.run(opts) as Trace
    const inFrame = frame.locator('body')
    expectShownEquals(
      (await shown(inFrame as unknown as Locator, 'output')).values,
      rowsOf(tr.output),
      'output in the iframe',
    )
    expectShownEquals(
      (await shown(inFrame as unknown as Locator, 'weights')).values,
      rowsOf(tr.weights, 0),
      'weights (head 0) in the iframe',
    )
    expect(errors).toEqual([])
  })
})
