// Safe embedding, in real headless Chromium:
// - the widget on a page with a strict Content-Security-Policy (sent as a real header: no inline
//   script, no eval, 'wasm-unsafe-eval' only) computes the engine's numbers bit for bit, with no CSP
//   violation of its own — the page's deliberate inline script is blocked, proving the policy is on;
// - which style-src the widget needs: with `style-src 'self'` (no 'unsafe-inline') it still computes
//   and shows its numbers; the test records which of its styles the browser blocked;
// - shadow DOM both ways (the one test of it): hostile host CSS aimed at the widget's own class names does not
//   reach it, its own stylesheet does, and its CSS does not reach host elements that use the same class names;
// - the widget-side rows of docs/bad-input.md: bad attributes and bad page URL parameters show a
//   visible message as text, run nothing, and the element keeps working afterwards.
import { existsSync } from 'node:fs'
import { extname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { ROOT, artifact } from './harness.mjs'
import { TYPES, serve } from '../../scripts/serve.mjs'
import { useEnv } from './env'
import { usePages, type Pages } from './page-fixture'
import { init, type RunOptions, type StepName } from '../../dist/index.js'
import type { AttentionPlaygroundElement as WidgetEl } from '../../web/widget'

const WIDGET = join(ROOT, 'dist/widget/widget.js')
const STRICT =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; object-src 'none'; base-uri 'none'"
const STRICTEST =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; object-src 'none'; base-uri 'none'"

// Hostile host CSS: aimed at the widget's internal class names and at every common element.
const HOST_CSS = `
.apw, .apw-notice, .ap-main, [data-step], section, table, td, th, button, canvas, summary, details {
  background: rgb(255, 0, 0) !important; color: rgb(0, 255, 0) !important; display: none !important;
  font-size: 40px !important; border: 9px solid blue !important;
}
`
const page = (body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>strict CSP</title>
<script type="module" src="/dist/widget/widget.js"></script>
</head><body>
${body}
<script>window.__inlineRan = true</script>
</body></html>`

const PAGES: Record<string, { csp: string; html: string }> = {
  '/strict.html': {
    csp: STRICT,
    html: page('<attention-playground id="w" text="this is my cat"></attention-playground>'),
  },
  '/strictest.html': {
    csp: STRICTEST,
    html: page('<attention-playground id="w" text="我爱中国" tokenizer="char" mask="causal"></attention-playground>'),
  },
  '/hostile.html': {
    csp: STRICT,
    html: page(
      '<link rel="stylesheet" href="/__host.css"><div class="apw" id="hostdiv">host content with the widget\'s class name</div>' +
        '<attention-playground id="w" text="the animal was too tired" score="additive"></attention-playground>',
    ),
  },
  '/plain.html': {
    csp: STRICT,
    html: page(
      '<h1 class="apw" id="hostdiv">a host heading with the widget\'s class name</h1>' +
        '<attention-playground id="w" text="the animal was too tired" score="additive"></attention-playground>',
    ),
  },
}

let server: Awaited<ReturnType<typeof serve>> | undefined
let base: string
let engine: Awaited<ReturnType<typeof init>>

useEnv()
const pages = usePages()

beforeAll(async () => {
  if (!existsSync(WIDGET)) throw new Error(`${WIDGET} is missing: run node scripts/build.mjs`)
  // The test pages under their policies; the repository's files (the built page too, for the URL-parameter rows)
  // with the strict policy on HTML.
  server = await serve({
    root: ROOT,
    headers: (path): Record<string, string> =>
      extname(path) === '.html' || path.endsWith('/') ? { 'content-security-policy': STRICT } : {},
    cacheControl: 'no-store',
    handle(_, res, path) {
      const p = PAGES[path]
      if (p)
        res
          .writeHead(200, {
            'content-type': TYPES['.html'],
            'content-security-policy': p.csp,
            'cache-control': 'no-store',
          })
          .end(p.html)
      else if (path === '/__host.css') res.writeHead(200, { 'content-type': TYPES['.css'] }).end(HOST_CSS)
      return !!p || path === '/__host.css'
    },
  })
  base = server.url.replace(/\/$/, '')
  engine = await init()
})

afterAll(async () => {
  await server?.close()
})

/**
 * Opens a path of this file's server, watching the page's CSP violations from before its first script. Its
 * pages' policy blocks their own inline script on purpose, which the console logs: the tests assert on
 * `scriptErrors`, and on `failed` requests.
 */
async function open(path: string, opener: Pages = pages) {
  const opened = await opener.open(undefined, { viewport: { width: 1300, height: 1000 } })
  // Init scripts are injected by the browser itself, outside the page's CSP: they can watch it.
  await opened.page.addInitScript(() => {
    const w = window as unknown as { __violations: unknown[] }
    w.__violations = []
    document.addEventListener(
      'securitypolicyviolation',
      (e) => {
        w.__violations.push({
          directive: e.violatedDirective,
          blocked: e.blockedURI,
          source: e.sourceFile,
          line: e.lineNumber,
        })
      },
      true,
    )
  })
  await opened.page.goto(base + path)
  return opened
}

const violations = (page: Page) =>
  page.evaluate(
    () =>
      (window as unknown as { __violations: unknown }).__violations as {
        directive: string
        blocked: string
        source: string
        line: number
      }[],
  )

async function ready(page: Page, sel = '#w') {
  await page.locator(sel).evaluate((el: WidgetEl) => el.ready)
}

/** The element's trace as plain arrays (the exact float32s). */
async function widgetTrace(page: Page, sel = '#w') {
  return page.locator(sel).evaluate((el: WidgetEl) => {
    const t = el.trace!
    const out: Record<string, unknown> = { tokens: t.tokens }
    for (const k of ['embeddings', 'Q', 'K', 'V', 'scores', 'weights', 'output'] as const)
      out[k] = Array.from(t[k].data)
    return out
  })
}

async function expectEngineNumbers(page: Page, opts: Record<string, unknown>, sel = '#w') {
  const got = await widgetTrace(page, sel)
  const want = engine.run(opts as RunOptions)
  expect(got.tokens).toEqual(want.tokens)
  for (const k of ['embeddings', 'Q', 'K', 'V', 'scores', 'weights', 'output']) {
    expect(Float32Array.from(got[k] as number[]), k).toEqual(want[k as StepName].data)
  }
}

describe('under a strict Content-Security-Policy', () => {
  it("computes the engine's numbers with no violation of its own (no eval, no inline script, wasm-unsafe-eval only)", async () => {
    const { page, scriptErrors: errors, failed } = await open('/strict.html')
    await ready(page)
    await expectEngineNumbers(page, { text: 'this is my cat' })
    // The policy is really on: the page's own inline script was blocked...
    expect(await page.evaluate(() => (window as unknown as { __inlineRan?: unknown }).__inlineRan)).toBeUndefined()
    const v = await violations(page)
    expect(
      v.filter((x) => x.directive.startsWith('script-src') && x.blocked === 'inline' && /strict\.html$/.test(x.source)),
    ).toHaveLength(1)
    // ...and nothing else was: no eval / new Function, no blob: or data: worker, no inline style element blocked.
    expect(v.filter((x) => !(x.blocked === 'inline' && /strict\.html$/.test(x.source)))).toEqual([])
    expect(errors).toEqual([])
    expect(failed).toEqual([])
    // The panels render (the heatmap canvases and the numbers table are in the shadow tree).
    await expect(page.locator('#w [data-step="weights"] canvas').count()).resolves.toBeGreaterThan(0)
    await page.screenshot({ path: artifact('hardening-strict-csp.png'), fullPage: true })
  })

  it("with style-src 'self' (no 'unsafe-inline') it computes, shows its numbers and is styled: nothing blocked", async () => {
    const { page, scriptErrors: errors } = await open('/strictest.html')
    await ready(page)
    await expectEngineNumbers(page, { text: '我爱中国', tokenizer: 'char', mask: 'causal' })
    const blocked = (await violations(page)).filter((x) => x.directive.startsWith('style-src'))
    // Every style of the widget, the playground and the train panel comes from adopted constructed
    // stylesheets (web/dom.ts adoptStyles), which a policy without 'unsafe-inline' allows.
    expect(blocked.map((b) => `${b.directive} at ${b.source.replace(base, '')}:${b.line}`)).toEqual([])
    // ...and they apply: the playground's root is laid out by its own CSS, not the browser default.
    const display = await page.evaluate(() => {
      const el = document.querySelector('attention-playground')?.shadowRoot?.querySelector('.ap-root')
      return el ? getComputedStyle(el).fontFamily : null
    })
    expect(display).toMatch(/system-ui/)
    expect(errors).toEqual([])
  })
})

describe('shadow DOM isolation', () => {
  it("hostile host CSS aimed at the widget's class names does not reach inside, and the widget's CSS does not leak out", async () => {
    const plain = await open('/plain.html')
    await ready(plain.page)
    const hostile = await open('/hostile.html')
    await ready(hostile.page)
    const probe = (p: Page) =>
      p.locator('#w').evaluate((el: WidgetEl) => {
        const root = el.shadowRoot as ShadowRoot
        const pick = (s: string) => {
          const n = root.querySelector(s) as HTMLElement
          const cs = getComputedStyle(n)
          return {
            display: cs.display,
            background: cs.backgroundColor,
            color: cs.color,
            fontSize: cs.fontSize,
            border: cs.borderTopWidth,
          }
        }
        return {
          frame: pick('.apw'),
          step: pick('[data-step="weights"]'),
          summary: pick('[data-step="weights"] summary'),
          canvas: pick('[data-step="weights"] canvas'),
        }
      })
    expect(await probe(hostile.page)).toEqual(await probe(plain.page))
    // The widget's own stylesheet applies inside its open shadow root, hostile host or not: cards, the two columns.
    const own = await hostile.page.locator('#w').evaluate((el) => {
      const root = el.shadowRoot!
      const card = getComputedStyle(root.querySelector('[data-step="weights"]')!)
      return {
        mode: root.mode,
        border: card.borderTopStyle,
        radius: card.borderTopLeftRadius,
        bg: card.backgroundColor,
        layout: getComputedStyle(root.querySelector('.ap-layout')!).display,
      }
    })
    expect(own).toEqual({ mode: 'open', border: 'solid', radius: '10px', bg: 'rgb(255, 255, 255)', layout: 'grid' })
    // Nor does the widget's CSS reach out: on the plain page, a host h1 with the widget's class name keeps the
    // browser's defaults (no .apw background, no h1 rule of the widget's).
    const plainHost = await plain.page.locator('#hostdiv').evaluate((n) => {
      const cs = getComputedStyle(n)
      return { background: cs.backgroundColor, fontSize: cs.fontSize }
    })
    expect(plainHost).toEqual({ background: 'rgba(0, 0, 0, 0)', fontSize: '32px' })
    // The host's own element with the widget's class name keeps the host's styling (the hostile sheet),
    // not the widget's light grey frame.
    const host = await hostile.page.locator('#hostdiv').evaluate((n) => getComputedStyle(n).backgroundColor)
    expect(host).toBe('rgb(255, 0, 0)')
    await expectEngineNumbers(hostile.page, { text: 'the animal was too tired', score: 'additive' })
    expect(hostile.scriptErrors).toEqual([])
  })
})

// The widget-side rows of docs/bad-input.md: [row id, attribute, value, what the user sees].
// 'notice': the attribute is ignored (its default used) and a notice names it, as text.
// 'refused': the engine refused the input; an alert shows the engine's message and the last good
// result stays on screen.
const ATTRIBUTE_ROWS: [string, string, string, 'notice' | 'refused', RegExp][] = [
  ['E1', 'text', '', 'refused', /text: is empty \(or only whitespace\)/],
  ['E2', 'text', ' \u3000\t', 'refused', /text: is empty \(or only whitespace\)/],
  ['E3', 'text', ',,,', 'refused', /text: has no words once commas are removed/],
  ['L1', 'text', 'a '.repeat(5000), 'notice', /text = “a a a/],
  ['D1', 'dk', '0', 'notice', /dk = “0”/],
  // Values valid one by one that clash fall back with a notice too (the widget checks before the engine).
  ['D2', 'dk', '16', 'notice', /dk = “16 \(scaled-dot needs dk = dq = 24\)”/],
  ['H1', 'heads', '5', 'notice', /heads = “5 \(must divide dq = 24, dk = 24, dv = 28\)”/],
  ['H2', 'heads', '0', 'notice', /heads = “0”/],
  ['K1', 'tokenizer', 'sentencepiece', 'notice', /tokenizer = “sentencepiece”/],
  ['K2', 'score', 'cosine', 'notice', /score = “cosine”/],
  ['K3', 'mask', 'upper', 'notice', /mask = “upper”/],
  ['N2', 'temperature', 'NaN', 'notice', /temperature = “NaN”/],
  ['N3', 'temperature', '0', 'notice', /temperature = “0”/],
  ['L4', 'dmodel', '5000', 'notice', /dModel = “5000”/],
  ['K5', 'seed', '<b>1</b>', 'notice', /seed = “<b>1<\/b>”/],
  // A model file that is not what it claims: the model view's alert names the tensor.
  [
    'F4',
    'src',
    '/tests/fixtures/models/bad-shape.safetensors',
    'refused',
    /attention\.0\.weights: shape \[1, 3, 3\] does not match the tokens: expected \[heads, 4, 4\]/,
  ],
]

describe('bad attributes on the widget (docs/bad-input.md, widget side)', () => {
  let page: Page
  let errors: string[]
  const shared = usePages(undefined, 'suite')
  beforeAll(async () => {
    ;({ page, scriptErrors: errors } = await open('/strict.html', shared))
    await ready(page)
  })

  for (const [id, attr, value, kind, message] of ATTRIBUTE_ROWS) {
    it(`${id}: ${attr}=${JSON.stringify(value.length > 20 ? value.slice(0, 20) + '…' : value)} → ${kind}, then the element still works`, async () => {
      const seen = await page.locator('#w').evaluate(
        async (el: WidgetEl, [a, v]) => {
          const settle = () =>
            new Promise((r) => setTimeout(r, 50)).then(
              () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))),
            )
          el.setAttribute(a, v)
          await settle()
          const root = el.shadowRoot as ShadowRoot
          const text = (s: string) =>
            Array.from(root.querySelectorAll(s))
              .map((n) => (n.textContent ?? '').trim())
              .filter(Boolean)
              .join(' | ')
          // A src is fetched first: give it up to 2 s to say something.
          for (let i = 0; i < 40 && !text('.apw-notice') && !text('[role=alert]'); i++)
            await new Promise((r) => setTimeout(r, 50))
          // Anything the value could inject shows as text: no element was created from it.
          const injected = root.querySelectorAll('b, img, script, svg[onload]').length
          return { notice: text('.apw-notice'), alert: text('[role=alert]'), injected }
        },
        [attr, value] as const,
      )
      if (kind === 'notice') expect(seen.notice).toMatch(message)
      else expect(seen.alert).toMatch(message)
      expect(seen.injected).toBe(0)
      // Back to a good value: the element renders the engine's numbers again.
      await page.locator('#w').evaluate(async (el: WidgetEl, a) => {
        el.removeAttribute(a)
        el.setAttribute('text', 'the cat sat')
        await new Promise((r) => setTimeout(r, 50))
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))
      }, attr)
      await expectEngineNumbers(page, { text: 'the cat sat' })
      await page.locator('#w').evaluate((el: WidgetEl) => el.setAttribute('text', 'this is my cat'))
      expect(errors).toEqual([])
    })
  }
})

describe('bad URL parameters on the page (docs/bad-input.md, page side)', () => {
  const URL_ROWS: [string, string, RegExp][] = [
    ['H2', 'heads=0', /heads = “0”/],
    ['D1', 'dk=0', /dk = “0”/],
    ['K1', 'tokenizer=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E', /tokenizer = “<img src=x onerror=alert\(1\)>”/],
    ['N2', 'temperature=Infinity', /temperature = “Infinity”/],
  ]
  for (const [id, query, message] of URL_ROWS) {
    it(`${id}: ?${query} → a notice as text, the defaults computed`, async () => {
      if (!existsSync(join(ROOT, 'site/index.html')))
        throw new Error('site/index.html is missing: build the page (node scripts/build.mjs --site)')
      const { page, scriptErrors: errors } = await open('/site/index.html?' + query)
      const notice = page.locator('.notice[role=status]')
      await notice.waitFor({ state: 'visible' })
      expect((await notice.textContent()) ?? '').toMatch(message)
      expect(await page.locator('img[src=x]').count()).toBe(0)
      expect(await page.evaluate(() => (window as unknown as { __inlineRan?: unknown }).__inlineRan)).toBeUndefined()
      const v = (await violations(page)).filter((x) => !(x.blocked === 'inline' && /index\.html/.test(x.source)))
      expect(v, 'CSP violations by the page itself').toEqual([])
      expect(errors).toEqual([])
    })
  }
})
