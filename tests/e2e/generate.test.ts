// The "Write a poem" view (issue 37 items 5, 7, 8) in real Chromium, page and widget, en and zh, desktop and a
// 390 × 844 phone: it opens on the committed sample and writes at once; `data-poem` holds the text written so far
// and equals what tests/support/lm-sampler.ts's reference sampler draws over the package's own logits in Node (the
// view's default first line, temperature, top-k, seed); every bar's probability, u and the heads' weights equal the
// package's generate; back / next / play step through it; the heads are labelled only from their measured scores
// (the sample: none specialises, said in a sentence); the residual stream's last lens is the prediction; no sideways
// scroll and no text under 12 px on a phone; axe finds nothing. A learner's own nanoGPT checkpoint (torch's, in
// tests/fixtures/lm) opens by the file input and gives torch's probabilities; bad files show the model view's
// messages as text and the sample stays; the Train tab's hook (openLanguageModel) opens bytes in the view.
import { beforeAll, describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Locator, Page } from 'playwright-core'
import { ROOT, axeViolations, settled } from './harness.mjs'
import { env, useEnv } from './env'
import { usePages } from './page-fixture'
import { badModelFiles } from './bad-files'
import { CASES, DEVICES } from './devices'
import { init, type Engine, type GenerateResult } from '../../dist/index.js'
import { referenceGenerate } from '../support/lm-sampler'
import { POEM_DEFAULTS } from '../../web/compute/generate'
import { POEM_PRESETS } from '../../web/i18n/generate'
import type { PlaygroundHandle } from '../../web/playground'

type Win = Window & { __apPlayground: PlaygroundHandle }

useEnv()
const pages = usePages()

const SAMPLE = readFileSync(join(ROOT, 'public/samples/poems.safetensors'))
const NANOGPT = join(ROOT, 'tests/fixtures/lm/nanogpt-raw.safetensors')
const nanoRef = JSON.parse(readFileSync(join(ROOT, 'tests/fixtures/lm/nanogpt-ref.json'), 'utf8')) as {
  text: string
  ids: number[]
  logits: { shape: number[]; data: number[] }
}
const PROMPT = POEM_PRESETS.genPresetJingyesi

let ap: Engine
/** What the package writes in Node with the view's defaults, and the reference sampler's ids over its logits. */
let pkg: GenerateResult
let reference: number[]
let vocab: string[]
beforeAll(async () => {
  ap = await init()
  const m = ap.loadLanguageModel(SAMPLE)
  vocab = m.vocab
  const { temperature, topK, topP, seed } = POEM_DEFAULTS
  pkg = m.generate({ prompt: PROMPT, temperature, topK, topP, seed, attention: true })
  const V = m.config.vocabSize
  const prompt = m.encode(PROMPT)
  reference = referenceGenerate(
    (ids) => ({ data: m.forward(ids).logits.data, vocab: V }),
    prompt,
    { maxTokens: m.config.context - prompt.length, temperature, topK, topP, seed, endId: 0 },
    m.config.context,
  )
  m.dispose()
})

/** The text the reference draws, as `data-poem` holds it: the first line, then the poem without its end mark. */
const referencePoem = () =>
  PROMPT +
  reference
    .map((id) => vocab[id])
    .join('')
    .replace(/\n$/, '')

/** The view's section (`root` is the page, or the widget's element). */
const view = (root: Page | Locator) => root.locator('[data-step="generate"]')

async function waitPoem(root: Page | Locator, timeout = 30_000): Promise<string> {
  const poem = view(root).locator('[data-poem]')
  await expect.poll(async () => (await poem.getAttribute('data-poem')) ?? '', { timeout }).not.toBe('')
  return (await poem.getAttribute('data-poem'))!
}

/** What one step shows: the bars' ids and probabilities (exact, data-p), u, the heads' weights. */
async function shown(root: Page | Locator) {
  return view(root).evaluate((el) => {
    const bars = (kind: string) =>
      [...el.querySelectorAll(`[data-bars="${kind}"] li`)].map((li) => ({
        id: Number((li as HTMLElement).dataset.id),
        p: Number((li as HTMLElement).dataset.p),
      }))
    const heads = [...el.querySelectorAll<HTMLElement>('.gen-head')].map((f) => ({
      layer: Number(f.dataset.layer),
      head: Number(f.dataset.head),
      label: f.dataset.label,
      w: [...f.querySelectorAll<HTMLElement>('[data-key]')].map((c) => Number(c.dataset.w)),
    }))
    return {
      poem: el.querySelector<HTMLElement>('[data-poem]')!.dataset.poem!,
      written: Number(el.querySelector<HTMLElement>('[data-poem]')!.dataset.written),
      before: bars('before'),
      after: bars('after'),
      u: Number(el.querySelector<HTMLElement>('[data-u]')!.dataset.u),
      heads,
    }
  })
}

/** The step on screen equals the package's step k (0-based). */
function expectStep(s: Awaited<ReturnType<typeof shown>>, k: number): void {
  const st = pkg.steps[k]
  expect(s.written).toBe(k + 1)
  expect(s.poem).toBe(
    PROMPT +
      pkg.ids
        .slice(0, k + 1)
        .map((id) => vocab[id])
        .join('')
        .replace(/\n$/, ''),
  )
  expect(s.u).toBe(st.u)
  expect(s.before.map((c) => c.id)).toEqual(st.before.map((c) => c.id))
  expect(s.after.map((c) => c.id)).toEqual(st.after.map((c) => c.id))
  // The page runs the engine Chromium picks (relaxed SIMD), Node the SIMD128 one: the same within float rounding.
  s.before.forEach((c, i) => expect(Math.abs(c.p - st.before[i].p)).toBeLessThan(1e-5))
  s.after.forEach((c, i) => expect(Math.abs(c.p - st.after[i].p)).toBeLessThan(1e-5))
  const [L, H, n] = st.attention!.shape
  expect(s.heads.length).toBe(L * H)
  for (const hd of s.heads) {
    const want = st.attention!.data.subarray((hd.layer * H + hd.head) * n, (hd.layer * H + hd.head + 1) * n)
    expect(hd.w.length).toBe(n)
    hd.w.forEach((w, j) => expect(Math.abs(w - want[j])).toBeLessThan(1e-5))
  }
}

/** No element of the view wider than the page, no visible text under 12 px (within `root`). */
async function phoneChecks(page: Page, root: Page | Locator): Promise<void> {
  const wide = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
  expect(wide, 'the page scrolls sideways').toBeLessThanOrEqual(0)
  const small = await view(root).evaluate((el) => {
    const out: string[] = []
    const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT)
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      const p = n.parentElement
      if (!p || !n.textContent?.trim() || !p.getClientRects().length || p.closest('[hidden]')) continue
      const size = parseFloat(getComputedStyle(p).fontSize)
      if (size < 12) out.push(`${size}px: ${n.textContent.trim().slice(0, 40)}`)
    }
    return out
  })
  expect(small).toEqual([])
}

describe('the generate view on the page', () => {
  for (const { device, lang } of CASES)
    it(`writes the reference sampler's poem at once (${device}, ${lang})`, async () => {
      const { page, errors, requests } = await pages.open(`${env.site.url}?view=generate&lang=${lang}`, DEVICES[device])
      expect(await waitPoem(page)).toBe(referencePoem())
      expect(pkg.ids).toEqual(reference)
      // fetched once, at boot beside the engine (web/main.ts), before the page's code: the view takes those bytes
      const model = requests.filter((r) => r.endsWith('/samples/poems.safetensors'))
      expect(model).toHaveLength(1)
      expect(requests.indexOf(model[0])).toBeLessThan(requests.findIndex((r) => /\/assets\/app-[\w-]+\.js$/.test(r)))
      expectStep(await shown(page), pkg.steps.length - 1)
      expect(await page.locator('[role="tab"][aria-selected="true"]').getAttribute('data-view')).toBe('generate')
      // what you need first: the views it builds on
      const needs = await page
        .locator('[data-panel="needs"] a')
        .evaluateAll((as) => as.map((a) => (a as HTMLElement).dataset.viewLink))
      expect(needs).toEqual(['pipeline', 'decode', 'positions'])
      if (device === 'phone') await phoneChecks(page, page)
      expect(await axeViolations(page)).toEqual([])
      expect(errors).toEqual([])
    })

  it('steps back, forward and plays; every step is the package’s; the residual’s last lens is the prediction', async () => {
    const { page, errors } = await pages.open(`${env.site.url}?view=generate&lang=en`, DEVICES.desktop)
    await waitPoem(page)
    const last = pkg.steps.length - 1
    const g = view(page)
    await g.locator('button[name="poemBack"]').click()
    await g.locator('button[name="poemBack"]').click()
    expectStep(await shown(page), last - 2)
    await g.locator('button[name="poemNext"]').click()
    expectStep(await shown(page), last - 1)
    // The residual stream at the query: after the last block, the lens's guesses are the bars before the cuts.
    const lens = await g.locator('[data-residual^="lens-"]').last().getAttribute('data-lens')
    const guesses = lens!.split(',').map((x) => x.split(':').map(Number))
    const before = pkg.steps[last - 1].before
    guesses.forEach(([id, p], i) => {
      expect(id).toBe(before[i].id)
      expect(Math.abs(p - before[i].p)).toBeLessThan(1e-5)
    })
    // A click on a character shows its residual stream.
    await g.locator('.gen-poem [data-position="2"]').click()
    expect(await g.locator('[data-generate="residual"] h3').innerText()).toMatch(
      /^The residual stream at 明 \(position 2\)/,
    )
    // Play starts over from the first character and moves on by itself.
    await g.locator('button[name="poemPlay"]').click()
    await expect.poll(async () => (await shown(page)).written, { timeout: 10_000 }).toBeGreaterThan(1)
    await g.locator('button[name="poemPlay"]').click()
    const k = (await shown(page)).written - 1
    expectStep(await shown(page), k)
    expect(errors).toEqual([])
  })

  it('labels heads only from their measured scores: the sample has none, and says so', async () => {
    const { page, errors } = await pages.open(`${env.site.url}?view=generate&lang=en`, DEVICES.desktop)
    await waitPoem(page)
    const scores = view(page).locator('[data-generate="scores"]')
    await expect.poll(() => scores.innerText(), { timeout: 120_000 }).toMatch(/^No head of this model specialises/)
    const m = ap.loadLanguageModel(SAMPLE)
    const poems = readFileSync(join(ROOT, 'public/poems/validation.txt'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((p) => p + '\n')
    const want = m.headScores(poems)
    m.dispose()
    expect(await scores.innerText()).toContain(`measured on ${poems.length} validation poems`)
    const labels = await view(page)
      .locator('.gen-head')
      .evaluateAll((fs) => fs.map((f) => (f as HTMLElement).dataset.label))
    expect(labels).toEqual(want.labels.flat().map((l) => l ?? 'none'))
    // Each caption states the head's largest score, as the package measured it (4 decimals).
    const captions = await view(page).locator('.gen-head figcaption').allInnerTexts()
    want.previousChar.flat().forEach((pc, i) => {
      const l = Math.floor(i / want.previousChar[0].length),
        hd = i % want.previousChar[0].length
      const best = Math.max(want.previousLine[l][hd], pc, want.lineEnd[l][hd])
      expect(captions[i]).toContain(best.toFixed(4))
    })
    expect(errors).toEqual([])
  }, 180_000)

  it('opens a nanoGPT checkpoint from disk with torch’s numbers; bad files say why and the model stays', async () => {
    const { page, errors } = await pages.open(`${env.site.url}?view=generate&lang=en`, DEVICES.desktop)
    await waitPoem(page)
    const g = view(page)
    await g.locator('input[name="poemModelFile"]').setInputFiles(NANOGPT)
    await expect
      .poll(() => g.locator('[data-generate="model"]').innerText())
      .toMatch(/^nanogpt-raw\.safetensors: 2 layers × 2 heads/)
    await waitPoem(page)
    // Back to the first character: its bars are softmax of torch's logits at the first line's last position.
    for (let i = 0; i < 20; i++)
      if (await g.locator('button[name="poemBack"]').isEnabled()) await g.locator('button[name="poemBack"]').click()
    const s = await shown(page)
    const [, V] = nanoRef.logits.shape
    const row = nanoRef.logits.data.slice(5 * V, 6 * V)
    const m = Math.max(...row)
    const z = row.reduce((a, v) => a + Math.exp(v - m), 0)
    const torch = row.map((v, id) => ({ id, p: Math.exp(v - m) / z })).sort((a, b) => b.p - a.p || a.id - b.id)
    expect(s.poem.startsWith(PROMPT)).toBe(true)
    s.before.forEach((c, i) => {
      expect(c.id).toBe(torch[i].id)
      expect(Math.abs(c.p - torch[i].p)).toBeLessThan(1e-5)
    })
    const err = g.locator('.model-error').first()
    const good = readFileSync(NANOGPT)
    const cases = badModelFiles(good, /.*run past the end of the data/)
    for (const [name, buffer, msg] of cases) {
      await g
        .locator('input[name="poemModelFile"]')
        .setInputFiles({ name, mimeType: 'application/octet-stream', buffer })
      await expect.poll(() => err.textContent(), { timeout: 10_000 }).toMatch(msg)
      expect(await g.locator('[data-generate="model"]').innerText()).toMatch(/^nanogpt-raw\.safetensors/)
    }
    expect(await g.locator('img').count()).toBe(0)
    // Back to the sample: its poem again.
    await g.locator('.model-load button').click()
    await expect.poll(() => g.locator('[data-poem]').getAttribute('data-poem')).toBe(referencePoem())
    expect(errors).toEqual([])
  })

  it('the Train tab’s hook opens safetensors bytes in the view; the KV cache links to the decoding view’s panel', async () => {
    const { page, errors } = await pages.open(`${env.site.url}?lang=zh`, DEVICES.desktop)
    await page.waitForFunction(() => !!(window as unknown as Win).__apPlayground)
    const bytes = [...readFileSync(NANOGPT)]
    await page.evaluate(
      (b) => (window as unknown as Win).__apPlayground.openLanguageModel(new Uint8Array(b), 'trained.safetensors'),
      bytes,
    )
    expect(await page.locator('[role="tab"][aria-selected="true"]').getAttribute('data-view')).toBe('generate')
    await expect
      .poll(() => view(page).locator('[data-generate="model"]').innerText())
      .toMatch(/^trained\.safetensors：2 层/)
    expect((await waitPoem(page)).startsWith(PROMPT)).toBe(true)
    await view(page).locator('[data-generate="kv-cache"] a').click()
    await settled(page)
    expect(await page.locator('[role="tab"][aria-selected="true"]').getAttribute('data-view')).toBe('decode')
    await expect
      .poll(() => page.locator('[data-step="kv-cache"]').evaluate((el) => el.getBoundingClientRect().top))
      .toBeLessThan(200)
    expect(errors).toEqual([])
  })
})

describe('the generate view in the widget', () => {
  for (const { device, lang } of CASES)
    it(`writes the same poem from the package’s own copy of the sample (${device}, ${lang})`, async () => {
      const { page, errors, requests } = await pages.open(
        `${env.widgets.url}/tests/e2e/pages/generate.html`,
        DEVICES[device],
      )
      const el = page.locator('attention-playground')
      if (lang === 'en') await el.evaluate((e) => e.setAttribute('lang', 'en'))
      expect(await waitPoem(el)).toBe(referencePoem())
      expectStep(await shown(el), pkg.steps.length - 1)
      expect(requests).toContain('/dist/samples/poems.safetensors')
      if (device === 'phone') await phoneChecks(page, el)
      expect(await axeViolations(page)).toEqual([])
      expect(errors).toEqual([])
    })
})
