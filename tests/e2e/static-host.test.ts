// A static host without COOP/COEP (GitHub Pages, most course platforms): the built site served as plain files
// (env.site, no headers) runs the page on one thread with no error, shows the course's numbers in zh and en,
// and says why in `backendInfo` (the page's handle and the widget's `backend`). There the page's head starts the
// engine's compilation before the page's modules run (web/early-engine.ts), and init({ backend, wasmModule }) takes it:
// the engine is fetched once. The isolated case (the headers sent) is tests/e2e/threads.test.ts. The site's `_headers`
// file (Netlify, Cloudflare Pages) applied as such a host applies it makes the page isolated and threaded, and the
// head then starts nothing (the threaded engine is another file).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { readPanel, serveStatic, SITE } from './harness.mjs'
import { env, useEnv } from './env'
import { traced, usePages } from './page-fixture'
import { courseWeights } from '../support/packed'
import type { PlaygroundHandle } from '../../web/playground'
import { RELAXED_PROBE } from '../../src/js/relaxedProbe'

type PageWindow = Window & { __apPlayground: PlaygroundHandle }

useEnv()
const pages = usePages()

describe('the built site on a host that sends no COOP/COEP', () => {
  for (const lang of ['zh', 'en'] as const) {
    it(`runs on one thread, says so and shows the course's weights (${lang})`, async () => {
      const { page, errors, failed } = await pages.open(`${env.site.url}?lang=${lang}`, { ready: traced })
      const got = await page.evaluate(() => ({
        isolated: crossOriginIsolated,
        info: (window as unknown as PageWindow).__apPlayground.backend(),
        lang: document.documentElement.lang,
      }))
      expect(got).toEqual({
        isolated: false,
        info: 'relaxed-simd, 1 thread: not cross-origin isolated',
        lang: lang === 'zh' ? 'zh-CN' : 'en',
      })
      // The engine was requested by the head's script, before the page's first module ran, and only then.
      await expectStartedByTheHead(page as Page)
      expect(await fetched(page as Page, '.wasm')).toEqual(['attention-relaxed'])
      expect(await fetched(page as Page, '.js')).toEqual(['attention-relaxed'])
      const expected = courseWeights()
      const shown = (await readPanel(page as Page, 'weights')).values.flat()
      expect(shown.length).toBe(16)
      shown.forEach((v, i) => expect(Math.abs(v - expected[i]), `weights[${i}]`).toBeLessThan(5e-3))
      expect(errors).toEqual([])
      expect(failed).toEqual([])
    }, 60_000)
  }
})

/** The engine was requested by the head's script, before the page's first module ran, and taken by it. */
async function expectStartedByTheHead(page: Page): Promise<void> {
  const early = await page.evaluate(() => ({
    left: '__apEarlyEngine' in window,
    wasmStart: performance.getEntriesByType('resource').find((e) => e.name.endsWith('.wasm'))?.startTime,
    moduleRan: performance.getEntriesByName('ap-init-start')[0].startTime,
  }))
  expect(early.left).toBe(false)
  expect(early.wasmStart).toBeLessThan(early.moduleRan)
}

/** The engines' files the page fetched, by name without the hash ('attention-relaxed', 'attention', …). */
function fetched(page: Page, ext: '.wasm' | '.js'): Promise<string[]> {
  return page.evaluate(
    (ext) =>
      performance
        .getEntriesByType('resource')
        .map((e) => e.name.replace(/^.*\/assets\//, ''))
        .filter((n) => n.startsWith('attention') && n.endsWith(ext))
        // Vite's content hash: 8 characters of base64url, '-' among them
        .map((n) => n.replace(/-[\w-]{8}\.(wasm|js)$/, '')),
    ext,
  )
}

describe('a browser without relaxed SIMD (Safari), on the same host', () => {
  it("the head starts the SIMD128 engine instead: fetched once, one thread, the course's weights", async () => {
    const { page, errors, failed } = await pages.open(undefined)
    // This Chromium validates relaxed SIMD; the page is made to see a runtime that rejects the probe module, as
    // Safari's does (src/js/relaxedProbe.ts), before any of its scripts runs.
    await page.addInitScript((probe: number[]) => {
      const validate = WebAssembly.validate.bind(WebAssembly)
      WebAssembly.validate = (bytes) => {
        const b = new Uint8Array(ArrayBuffer.isView(bytes) ? bytes.buffer : bytes)
        return !(b.length === probe.length && b.every((x, i) => x === probe[i])) && validate(bytes)
      }
    }, Array.from(RELAXED_PROBE))
    await page.goto(`${env.site.url}?lang=en`)
    await traced(page)
    expect(await page.evaluate(() => (window as unknown as PageWindow).__apPlayground.backend())).toBe(
      'simd128, 1 thread: not cross-origin isolated',
    )
    await expectStartedByTheHead(page)
    expect(await fetched(page, '.wasm')).toEqual(['attention'])
    expect(await fetched(page, '.js')).toEqual(['attention'])
    const expected = courseWeights()
    const shown = (await readPanel(page, 'weights')).values.flat()
    shown.forEach((v, i) => expect(Math.abs(v - expected[i]), `weights[${i}]`).toBeLessThan(5e-3))
    expect(errors).toEqual([])
    expect(failed).toEqual([])
  }, 60_000)
})

/** site/_headers (Netlify's format: a path pattern, then its headers indented), the headers for every path. */
function headersFile(): Record<string, string> {
  const lines = readFileSync(join(SITE, '_headers'), 'utf8').split('\n')
  const all = lines.findIndex((l) => l.trim() === '/*')
  const out: Record<string, string> = {}
  for (const l of lines.slice(all + 1)) {
    const m = /^\s+([\w-]+):\s*(.+?)\s*$/.exec(l)
    if (!m) break
    out[m[1]] = m[2]
  }
  return out
}

describe('site/_headers, applied as Netlify or Cloudflare Pages apply it', () => {
  it('names the two headers, and with them the page is cross-origin isolated and threaded', async () => {
    const headers = headersFile()
    expect(headers).toEqual({
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Embedder-Policy': 'require-corp',
    })
    const host = await serveStatic(SITE, headers)
    try {
      const { page, errors, failed } = await pages.open(`${host.url}?lang=en`, { ready: traced })
      const got = await page.evaluate(() => ({
        isolated: crossOriginIsolated,
        info: (window as unknown as PageWindow).__apPlayground.backend(),
      }))
      expect(got.isolated).toBe(true)
      expect(got.info).toMatch(/^relaxed-simd, [2-4] threads: cross-origin isolated$/)
      // The head's script left the one-thread engine alone: only the threaded one was fetched.
      expect(await fetched(page as Page, '.wasm')).toEqual(['attention-threads'])
      expect(errors).toEqual([])
      expect(failed).toEqual([])
    } finally {
      await host.close()
    }
  }, 60_000)
})

/** Polls the page (across its reload) until `check` holds in it; the page's own state is then returned. */
async function whenTrue(page: Page, check: () => boolean): Promise<void> {
  for (let i = 0; i < 600; i++) {
    try {
      if (await page.evaluate(check)) return
    } catch {
      // the page navigated (its reload) while evaluating: ask the new one
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  const body = await page.evaluate(() => document.body.innerText.slice(0, 300)).catch((e) => String(e))
  throw new Error(`the page never reached: ${check.toString()} (${page.url()}: ${body})`)
}

describe('?isolate=1: our service worker makes the page isolated on a host without the headers', () => {
  it('registers, reloads once through it, runs threads; ?isolate=0 removes it and the page is back on one thread', async () => {
    const { page, errors, failed } = await pages.open(`${env.site.url}?isolate=1&lang=en`)
    await whenTrue(page, () => crossOriginIsolated && !!(window as unknown as PageWindow).__apPlayground?.getTrace())
    const on = await page.evaluate(() => ({
      controlled: navigator.serviceWorker.controller?.scriptURL.endsWith('/isolate-sw.js'),
      info: (window as unknown as PageWindow).__apPlayground.backend(),
    }))
    expect(on.controlled).toBe(true)
    expect(on.info).toMatch(/^relaxed-simd, [2-4] threads: cross-origin isolated$/)
    const expected = courseWeights()
    const shown = (await readPanel(page, 'weights')).values.flat()
    shown.forEach((v, i) => expect(Math.abs(v - expected[i]), `weights[${i}]`).toBeLessThan(5e-3))

    await page.goto(`${env.site.url}?isolate=0&lang=en`)
    await whenTrue(page, () => !!(window as unknown as PageWindow).__apPlayground?.getTrace())
    expect(await page.evaluate(() => navigator.serviceWorker.getRegistrations().then((r) => r.length))).toBe(0)
    await page.goto(`${env.site.url}?lang=en`)
    await whenTrue(page, () => !!(window as unknown as PageWindow).__apPlayground?.getTrace())
    expect(
      await page.evaluate(() => ({
        isolated: crossOriginIsolated,
        info: (window as unknown as PageWindow).__apPlayground.backend(),
      })),
    ).toEqual({ isolated: false, info: 'relaxed-simd, 1 thread: not cross-origin isolated' })
    expect(errors).toEqual([])
    // a request still in flight when the page reloads itself (the icon) is cancelled: not a failure
    expect(failed.filter((f) => !f.startsWith('net::ERR_ABORTED '))).toEqual([])
  }, 90_000)
})

/** A blank page's module script (outside Vite's transform): init({ backend, wasmModule }) two ways, and init(). */
const WASM_MODULE_PAGE = `<!doctype html><meta charset="utf-8"><title>wasmModule</title><script type="module">
import { init } from '/dist/index.js'
const compile = (file) => WebAssembly.compileStreaming(fetch('/dist/' + file))
try {
  const given = await init({ backend: 'relaxed-simd', wasmModule: compile('attention-relaxed.wasm') })
  const own = await init()
  const other = await init({ backend: 'relaxed-simd', wasmModule: compile('attention.wasm') }).then(
    () => 'loaded',
    (e) => e.name + ': ' + e.message,
  )
  const a = given.run().output
  const b = own.run().output
  window.got = {
    info: given.backendInfo,
    same: a.data.length === b.data.length && a.data.every((x, i) => Object.is(x, b.data[i])),
    shapes: [a.shape, b.shape],
    other,
    afterwards: (await init()).run().output.shape,
  }
} catch (e) {
  window.got = { error: String(e && e.stack || e) }
}
</script>`

describe("init({ backend, wasmModule }) in Chromium, as the site's head uses it", () => {
  it("runs a module compiled by the page, with the same numbers as init(); the other engine's module is named", async () => {
    // A blank page beside the package's dist/ (the repository's server), on a plain host.
    const { page, errors } = await pages.open(undefined)
    const blank = `${env.widgets.url}/wasm-module.html`
    await page.route(blank, (r) => r.fulfill({ contentType: 'text/html', body: WASM_MODULE_PAGE }))
    await page.goto(blank)
    const got = await (await page.waitForFunction(() => (window as { got?: unknown }).got)).jsonValue()
    const { shapes, other, afterwards, ...rest } = got as Record<string, unknown>
    expect(rest).toEqual({ info: 'relaxed-simd, 1 thread: not cross-origin isolated', same: true })
    expect((shapes as number[][])[0]).toEqual((shapes as number[][])[1])
    expect(afterwards).toEqual((shapes as number[][])[0])
    // The other engine's module does not fit this engine's glue (each build's own bindings).
    expect(other).toMatch(
      /^AttentionError: init: wasmModule could not be instantiated as attention-relaxed\.wasm \(compile the module from that file\): /,
    )
    expect(errors).toEqual([])
  }, 60_000)
})
