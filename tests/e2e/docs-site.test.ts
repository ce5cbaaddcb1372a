// The docs-site recipe of docs/embedding.md, as a course author follows it: a VitePress site (markdown) with the
// widget in a page, built with `vitepress build` against the packed package, served and opened in Chromium;
// and the plain-HTML recipe, the page in an <iframe> of a markdown page, from another origin.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { readPanel, serveStatic, SITE } from './harness.mjs'
import { courseWeights, docBlock, ROOT } from '../js/packed'
import { browser, usePackedProject, work } from './scratch'
import { usePages } from './page-fixture'

const VITEPRESS = join(ROOT, 'node_modules/vitepress/bin/vitepress.js')

// docs/embedding.md's VitePress recipe, file by file.
const FILES: Record<string, string> = {
  '.vitepress/config.mjs': docBlock('// docs/.vitepress/config.mjs'),
  '.vitepress/theme/index.js': docBlock('// docs/.vitepress/theme/index.js'),
  'index.md': docBlock('<!-- any page, e.g. docs/index.md -->'),
}

usePackedProject('ap-docs-', {
  require: () => {
    if (!existsSync(VITEPRESS)) throw new Error('vitepress is missing; install with: npm install -D -E vitepress@1.6.4')
  },
  prepare: (dir) => {
    // vitepress comes from the repository's devDependencies, as the course project would have its own.
    symlinkSync(join(ROOT, 'node_modules/vitepress'), join(dir, 'node_modules/vitepress'))
    for (const [f, text] of Object.entries(FILES)) {
      mkdirSync(join(dir, 'docs', f, '..'), { recursive: true })
      writeFileSync(join(dir, 'docs', f), text)
    }
  },
})

const pages = usePages(() => browser)

/** Opens a tab; `problems()` lists what went wrong on it: script errors, console errors, failed requests. */
async function openTab(url: string) {
  const { page: tab, errors, failed } = await pages.open(url)
  // failed requests are listed by URL in `failed` (their console line has none)
  const problems = () => [...errors.filter((e) => !e.startsWith('Failed to load resource')), ...failed]
  return { tab, problems }
}

function expectCourse(values: number[], tol: number, what: string) {
  const expected = courseWeights()
  expect(values.length, what).toBe(16)
  values.forEach((v, i) => expect(Math.abs(v - expected[i]), `${what}[${i}]`).toBeLessThan(tol))
}

describe('VitePress', () => {
  it('a markdown page with the widget: built, served, the course numbers on screen', async () => {
    try {
      execFileSync('node', [VITEPRESS, 'build', 'docs'], { cwd: work, stdio: 'pipe', encoding: 'utf8' })
    } catch (e) {
      const err = e as { stdout?: string; stderr?: string }
      throw new Error(`vitepress build failed:\n${err.stdout}\n${err.stderr}`, { cause: e })
    }
    const server = await serveStatic(join(work, 'docs/.vitepress/dist'))
    const { tab, problems } = await openTab(server.url)
    try {
      const widget = tab.locator('attention-playground')
      await widget.evaluate((el) =>
        customElements.whenDefined(el.localName).then(() => (el as unknown as { ready: Promise<void> }).ready),
      )
      const trace = await widget.evaluate((el) =>
        Array.from((el as unknown as { trace: { weights: { data: Float32Array } } }).trace.weights.data),
      )
      expectCourse(trace, 1e-5, 'widget trace weights')
      expectCourse((await readPanel(tab as Page, 'weights')).values.flat(), 5e-3, 'shown weights')
      // the page around it is VitePress's own, hydrated (its title and the markdown's heading)
      expect(await tab.locator('h1').first().textContent()).toContain('Self-attention')
      expect(problems()).toEqual([])
    } finally {
      await server.close()
    }
  }, 600_000)
})

describe('plain HTML: the page in an <iframe>', () => {
  it('an iframe of the hosted page, from another origin, shows the numbers of its URL', async () => {
    // The playground hosted on one origin (the built site), the course page on another.
    const playground = await serveStatic(SITE)
    const host = join(work, 'plain')
    mkdirSync(host, { recursive: true })
    writeFileSync(
      join(host, 'index.html'),
      `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>A course page</title><link rel="icon" href="data:,"></head>
<body>
<iframe src="${playground.url}?text=this+is+my+cat&lang=en" title="Attention Playground" width="100%" height="900"
        style="border:0" loading="lazy"></iframe>
</body></html>
`,
    )
    const course = await serveStatic(host)
    const { tab, problems } = await openTab(course.url)
    try {
      const frame = tab.frameLocator('iframe')
      await frame.locator('[data-step="weights"] canvas').waitFor({ timeout: 30_000 })
      expectCourse((await readPanel(frame as unknown as Page, 'weights')).values.flat(), 5e-3, 'weights in the iframe')
      expect(problems()).toEqual([])
    } finally {
      await course.close()
      await playground.close()
    }
  }, 120_000)
})
