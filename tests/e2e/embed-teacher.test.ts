// A teacher builds a course page on their own site (issue 39 item 2): the site runs as `npm start` serves it
// (scripts/serve.mjs with the header table, public/_headers), the Embed box's two snippets are copied with its Copy
// buttons and pasted unchanged into a page served from a second origin (another port). There the iframe and the
// widget draw the page's own numbers, the widget with `steps` shows just those panels, and no request fails. The
// tag's fallback text is what a learner sees when the script never loads; with only widget/ copied to the course
// site (no wasm beside it), the widget says in the page's language which URL it tried and what to serve there.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { serveStatic, settled, SITE } from './harness.mjs'
import { useEnv } from './env'
import { usePages, traced } from './page-fixture'
import { serve } from '../../scripts/serve.mjs'
import { MESSAGES } from '../../web/i18n'
import type { PlaygroundHandle } from '../../web/playground'
import type { AttentionPlaygroundElement as WidgetEl } from '../../web/widget'

type PageWindow = Window & { __apPlayground: PlaygroundHandle }

useEnv()
const pages = usePages()

let site: { url: string; close(): Promise<void> }
let tmp: string

beforeAll(async () => {
  // The site as `npm start` serves it: its headers come from public/_headers (the default of serve()).
  site = await serve({ root: SITE, cacheControl: 'no-store', requireIndex: true })
  tmp = mkdtempSync(join(tmpdir(), 'ap-course-'))
})

afterAll(async () => {
  await site?.close()
  if (tmp) rmSync(tmp, { recursive: true, force: true })
})

/** A course site: a folder with index.html (the page's HTML), served from its own origin. */
async function courseSite(name: string, lang: 'zh' | 'en', body: string, extra?: (dir: string) => void) {
  const dir = join(tmp, name)
  mkdirSync(dir, { recursive: true })
  const title = lang === 'zh' ? '第 3 课：注意力' : 'Lesson 3: attention'
  writeFileSync(
    join(dir, 'index.html'),
    `<!doctype html><html lang="${lang === 'zh' ? 'zh-CN' : 'en'}"><head><meta charset="utf-8"><title>${title}</title></head>` +
      `<body><main><h1>${title}</h1>\n${body}\n</main></body></html>`,
  )
  extra?.(dir)
  return serveStatic(dir)
}

/** The Embed box's two snippets for the page at `query`, copied with its Copy buttons (read from the clipboard). */
async function copySnippets(page: Page, steps: string[]): Promise<{ iframe: string; widget: string }> {
  await page.locator('header button[name="embed"]').click()
  for (const s of steps) await page.locator(`[data-embed] input[value="${s}"]`).check()
  const out = { iframe: '', widget: '' }
  for (const [key, name] of [
    ['iframe', 'Iframe'],
    ['widget', 'Widget'],
  ] as const) {
    const shown = await page.locator(`textarea[name="embed${name}"]`).inputValue()
    const button = page.locator(`[data-embed] button[name="copyEmbed${name}"]`)
    await button.click()
    out[key] = await page.evaluate(() => navigator.clipboard.readText())
    expect(out[key], `the ${key} Copy button copies the snippet shown`).toBe(shown)
    await expect.poll(() => button.textContent()).toMatch(/^✓/)
  }
  return out
}

const weightsOf = (page: Page) =>
  page.evaluate(() => Array.from((window as unknown as PageWindow).__apPlayground.getTrace()!.weights.data))

describe('the Embed box, pasted into a course page on another site', () => {
  for (const lang of ['zh', 'en'] as const) {
    it(`the iframe and the tag draw the page's numbers; the tag with steps shows just that panel (${lang})`, async () => {
      const query = `?lang=${lang}&text=${encodeURIComponent(lang === 'zh' ? '我 爱 中国' : 'the cat sat')}&mask=causal&temperature=2`
      const { page, context, errors, failed } = await pages.open(site.url + query, {
        viewport: { width: 1366, height: 768 },
        permissions: ['clipboard-read', 'clipboard-write'],
        ready: traced,
      })
      const want = await weightsOf(page)
      const { iframe, widget } = await copySnippets(page, ['weights'])
      expect(widget.split('\n')[0]).toBe(`<script type="module" src="${site.url}widget/widget.js"></script>`)

      const course = await courseSite(`course-${lang}`, lang, `${widget}\n${iframe}`)
      try {
        expect(new URL(course.url).origin).not.toBe(new URL(site.url).origin)
        const tab = await context.newPage()
        await tab.setViewportSize({ width: 1366, height: 768 })
        await tab.goto(course.url)
        const el = tab.locator('attention-playground')
        await el.evaluate((e) => (e as WidgetEl).ready)
        await settled(tab)
        // The widget: the page's numbers, exactly (the same engine on the same inputs).
        const got = await el.evaluate((e) => Array.from((e as WidgetEl).trace!.weights.data))
        expect(got).toEqual(want)
        // Once it runs, the fallback text inside the tag is not shown.
        await expect(el.locator('.ap-fallback').isVisible()).resolves.toBe(false)
        // steps="weights": that panel alone, no tabs, controls or tour button around it; the tag as tall as it, its
        // weights note (random or trained) and the footer line (before: 1,072 px around a 4 × 4 heatmap).
        const layout = await el.evaluate((e) => {
          const root = (e as HTMLElement).shadowRoot!
          const visible = (x: Element) => (x as HTMLElement).offsetParent !== null
          const panel = root.querySelector('[data-step="weights"]')!.getBoundingClientRect()
          return {
            steps: [...root.querySelectorAll<HTMLElement>('[data-step]')].filter(visible).map((x) => x.dataset.step),
            tabs: [...root.querySelectorAll('[role="tab"]')].filter(visible).length,
            controls: [...root.querySelectorAll('[data-panel="controls"]')].filter(visible).length,
            guided: [...root.querySelectorAll('button[name="guided"]')].filter(visible).length,
            height: (e as HTMLElement).getBoundingClientRect().height,
            panel: panel.height,
          }
        })
        expect(layout).toMatchObject({ steps: ['weights'], tabs: 0, controls: 0, guided: 0 })
        expect(layout.height, JSON.stringify(layout)).toBeLessThan(layout.panel + 200)
        // The iframe: the page in its embed layout, the same numbers.
        const frame = tab.frames().find((f) => f.url().startsWith(site.url))!
        await frame.waitForFunction(() => !!(window as unknown as PageWindow).__apPlayground?.getTrace())
        const framed = await frame.evaluate(() =>
          Array.from((window as unknown as PageWindow).__apPlayground.getTrace()!.weights.data),
        )
        expect(framed).toEqual(want)
        expect(errors).toEqual([])
        expect(failed).toEqual([])
      } finally {
        await course.close()
      }
    })
  }

  it("the tag of the Train tab trains there: its worker starts from the playground's site", async () => {
    const { page, errors, failed } = await pages.open(site.url + '?lang=en&view=train', {
      permissions: ['clipboard-read', 'clipboard-write'],
      ready: traced,
    })
    const { widget } = await copySnippets(page, [])
    expect(widget).toContain('view="train"')
    const course = await courseSite('train', 'en', widget)
    try {
      const tab = await page.context().newPage()
      await tab.goto(course.url)
      const el = tab.locator('attention-playground')
      await el.evaluate((e) => (e as WidgetEl).ready)
      // A worker's script must be the page's own origin: the panel starts it through a blob: module (spawn.ts).
      const status = el.locator('.tr-status')
      await expect.poll(() => status.innerText(), { timeout: 30_000 }).toMatch(/^step 0 /)
      await el.locator('button[name="step"]').click()
      await expect.poll(() => status.innerText(), { timeout: 30_000 }).toMatch(/^step 10 · loss \d/)
      await expect(el.locator('.tr-error').innerText()).resolves.toBe('')
      expect(errors).toEqual([])
      expect(failed).toEqual([])
    } finally {
      await course.close()
    }
  })

  it('the fallback text inside the tag is what a learner sees when the script never loads', async () => {
    const { page } = await pages.open(site.url + '?lang=zh', { ready: traced })
    await page.locator('header button[name="embed"]').click()
    const widget = await page.locator('textarea[name="embedWidget"]').inputValue()
    // The course site blocks the playground's site (or the learner is offline): the script never arrives.
    const course = await courseSite('offline', 'zh', widget)
    try {
      const tab = await page.context().newPage()
      await tab.route(`${site.url}**`, (r) => r.abort('internetdisconnected'))
      await tab.goto(course.url)
      const fallback = tab.locator('attention-playground .ap-fallback')
      await expect.poll(() => fallback.isVisible()).toBe(true)
      const text = await fallback.innerText()
      expect(text).toContain(MESSAGES.zh.embedFallback)
      // Its link opens the same view on the playground's own page.
      const href = await fallback.locator('a').getAttribute('href')
      expect(new URL(href!).origin + '/').toBe(site.url)
      expect(new URL(href!).searchParams.get('lang')).toBe('zh')
    } finally {
      await course.close()
    }
  })

  for (const lang of ['zh', 'en'] as const) {
    it(`with only widget/ copied to the course site, the widget names the wasm URL it tried and what to serve (${lang})`, async () => {
      const { page } = await pages.open(site.url + `?lang=${lang}`, { ready: traced })
      await page.locator('header button[name="embed"]').click()
      const widget = await page.locator('textarea[name="embedWidget"]').inputValue()
      // The teacher copies widget/ beside the course page and points the script at it; the engines stay behind.
      const local = widget.replace(`${site.url}widget/widget.js`, 'widget/widget.js')
      const course = await courseSite(`widget-only-${lang}`, lang, local, (dir) =>
        cpSync(join(SITE, 'widget'), join(dir, 'widget'), { recursive: true }),
      )
      try {
        const { page: tab, scriptErrors } = await pages.open(course.url)
        const el = tab.locator('attention-playground')
        const alert = el.locator('[role="alert"]')
        await expect.poll(() => alert.isVisible(), { timeout: 20_000 }).toBe(true)
        const text = await alert.innerText()
        const tried = new URL('attention-relaxed.wasm', course.url).href
        expect(text).toContain(tried)
        expect(text).toContain('404')
        expect(text).toContain('application/wasm')
        expect(text).toContain(MESSAGES[lang].wasmServeHint.slice(0, 12))
        if (lang === 'zh') expect(text).toMatch(/[\u4e00-\u9fff]{4}/)
        expect(text).not.toMatch(/Aborted|ASSERTIONS/)
        // The ready promise rejects with the same words; nothing is thrown at the page.
        const reason = await el.evaluate((e) =>
          (e as WidgetEl).ready.then(
            () => '',
            (x: Error) => x.message,
          ),
        )
        expect(reason).toContain(tried)
        expect(scriptErrors).toEqual([])
      } finally {
        await course.close()
      }
    })
  }
})
