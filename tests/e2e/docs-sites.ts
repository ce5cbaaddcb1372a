// What the docs-site tests share: docs/docs-sites.md's recipes written into a project as the page shows them,
// a generator's build run with its output in the error, and the check of a built page's two widgets (en, zh).
import { execFileSync, type ExecFileSyncOptions } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Locator, Page } from 'playwright-core'
import { expect } from 'vitest'
import { readPanel, serveStatic } from './harness.mjs'
import type { Pages } from './page-fixture'
import { courseWeights, docBlock } from '../support/packed'
import { init } from '../../dist/index.js'
import { translator } from '../../web/i18n'
import { RECIPES } from './recipes'

/**
 * Writes a recipe's files into `dir`.
 * @param files each file's path in the project → the marker its block in docs/docs-sites.md holds (its first line)
 */
export function writeRecipe(dir: string, files: Record<string, string>): void {
  for (const [path, marker] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true })
    writeFileSync(join(dir, path), docBlock(marker, RECIPES))
  }
}

/** Runs a command (a recipe's shell block, a generator's build); a failure throws with its output. */
export function build(command: string, args: string[], cwd: string, options: ExecFileSyncOptions = {}): void {
  try {
    execFileSync(command, args, { cwd, stdio: 'pipe', encoding: 'utf8', ...options })
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string }
    throw new Error(`${command} ${args.join(' ')} failed:\n${err.stdout}\n${err.stderr}`, { cause: e })
  }
}

/** Runs the shell block of docs/docs-sites.md that holds `marker` in `dir`, as the course author would. */
export function runRecipeShell(dir: string, marker: string): void {
  build('bash', ['-euo', 'pipefail', '-c', docBlock(marker, RECIPES)], dir)
}

interface WidgetEl extends HTMLElement {
  ready: Promise<void>
  trace: { weights: { data: Float32Array } }
  state: { lang: string }
  backend: string | null
}

/** The package's run() in Node: the course program (`this is my cat`, seed 123). */
async function nodeWeights(): Promise<number[]> {
  const ap = await init()
  return Array.from(ap.run({ text: 'this is my cat', seed: 123 }).weights.data)
}

function expectClose(values: number[], expected: number[], tol: number, what: string): void {
  expect(values.length, what).toBe(expected.length)
  values.forEach((v, i) => expect(Math.abs(v - expected[i]), `${what}[${i}]`).toBeLessThan(tol))
}

/**
 * The built page's widgets, in order: one in English, one in Chinese. Each is defined and ready, draws the
 * course's weights (its trace against PyTorch's numbers and the package's run() in Node; the numbers shown
 * in its weights panel to their 3 decimals), speaks its language, and runs on one thread.
 */
export async function expectCourseWidgets(tab: Page, langs: readonly ('en' | 'zh')[] = ['en', 'zh']): Promise<void> {
  const widgets = tab.locator('attention-playground')
  await widgets.first().waitFor({ state: 'attached', timeout: 30_000 })
  expect(await widgets.count()).toBe(langs.length)
  const pytorch = courseWeights()
  const node = await nodeWeights()
  for (const [i, lang] of langs.entries()) {
    const w: Locator = widgets.nth(i)
    await w.evaluate((el) => customElements.whenDefined(el.localName).then(() => (el as WidgetEl).ready))
    const got = await w.evaluate((el) => {
      const e = el as WidgetEl
      return { weights: Array.from(e.trace.weights.data), lang: e.state.lang, backend: e.backend }
    })
    expect({ lang: got.lang, backend: got.backend }).toEqual({
      lang,
      backend: 'relaxed-simd, 1 thread: init({ threads: 1 })',
    })
    expectClose(got.weights, pytorch, 1e-5, `${lang} widget's weights vs PyTorch`)
    expectClose(got.weights, node, 1e-6, `${lang} widget's weights vs run() in Node`)
    const summary = w.locator('[data-step="weights"] summary')
    expect(await summary.textContent()).toBe(translator(lang)('showNumbers'))
    const shown = (await readPanel(w as unknown as Page, 'weights')).values.flat()
    expectClose(shown, pytorch, 5e-4 + 1e-6, `${lang} widget's shown weights`)
  }
}

/**
 * Serves a built site as plain files (no COOP/COEP) and checks its front page: the two widgets with the course's
 * numbers, the generator's own heading, and nothing gone wrong (script or console errors, failed requests).
 */
export async function expectBuiltSite(pages: Pages, out: string, heading: string): Promise<void> {
  const server = await serveStatic(out)
  try {
    const { page: tab, errors, failed } = await pages.open(server.url)
    await expectCourseWidgets(tab)
    expect(await tab.locator('h1').first().textContent()).toContain(heading)
    // failed requests are listed by URL in `failed` (their console line has none)
    expect([...errors.filter((e) => !e.startsWith('Failed to load resource')), ...failed]).toEqual([])
  } finally {
    await server.close()
  }
}
