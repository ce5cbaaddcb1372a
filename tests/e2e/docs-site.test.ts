// The docs-site recipes of docs/docs-sites.md, as a course author follows them: VitePress (markdown, bundled),
// Sphinx and MkDocs (the package's dist/ copied into the static files), each built from the packed package with
// the files exactly as the page shows them, served as plain files and opened in Chromium, where a page's two
// widgets (en, zh) show the course's weights; and the plain-HTML recipe, the page in an <iframe> of a markdown
// page, from another origin.
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { readPanel, serveStatic, SITE } from './harness.mjs'
import { courseWeights, ROOT } from '../support/packed'
import { build, expectBuiltSite, expectCourseWidgets, runRecipeShell, writeRecipe } from './docs-sites'
import { browser, usePackedProject, work } from './scratch'
import { usePages } from './page-fixture'
import { RECIPE_FILES, RECIPE_SHELL } from './recipes'

const VITEPRESS = join(ROOT, 'node_modules/vitepress/bin/vitepress.js')

usePackedProject('ap-docs-', {
  require: () => {
    if (!existsSync(VITEPRESS)) throw new Error('vitepress is missing; install with: npm install -D -E vitepress@1.6.4')
  },
  prepare: (dir) => {
    // vitepress comes from the repository's devDependencies, as the course project would have its own.
    symlinkSync(join(ROOT, 'node_modules/vitepress'), join(dir, 'node_modules/vitepress'))
    writeRecipe(dir, RECIPE_FILES.vitepress)
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
  it('a markdown page with the widgets: built, served, the course numbers on screen in en and zh', async () => {
    build('node', [VITEPRESS, 'build', 'docs'], work)
    const server = await serveStatic(join(work, 'docs/.vitepress/dist'))
    const { tab, problems } = await openTab(server.url)
    try {
      await expectCourseWidgets(tab)
      // the page around it is VitePress's own, hydrated (its title and the markdown's heading)
      expect(await tab.locator('h1').first().textContent()).toContain('Self-attention')
      expect(problems()).toEqual([])
    } finally {
      await server.close()
    }
  }, 600_000)
})

/** A generator's own project folder under the scratch project, resolving the installed package from it. */
function siteProject(name: string): string {
  const dir = join(work, name)
  mkdirSync(dir, { recursive: true })
  symlinkSync(join(work, 'node_modules'), join(dir, 'node_modules'))
  return dir
}

describe("Sphinx (Debian's python3-sphinx)", () => {
  it('the dist/ folder in _static, the module in conf.py, the tags in raw HTML: built, served, en and zh', async () => {
    const dir = siteProject('sphinx')
    writeRecipe(dir, RECIPE_FILES.sphinx)
    runRecipeShell(dir, RECIPE_SHELL.sphinx)
    build('sphinx-build', ['-q', '-b', 'html', 'docs', 'docs/_build/html'], dir)
    await expectBuiltSite(pages, join(dir, 'docs/_build/html'), 'Self-attention')
  }, 300_000)
})

describe("MkDocs with Material (Debian's mkdocs, mkdocs-material)", () => {
  it('the dist/ folder in docs/, the module in the theme override, the tags in markdown: built, served, en and zh', async () => {
    const dir = siteProject('mkdocs')
    writeRecipe(dir, RECIPE_FILES.mkdocs)
    runRecipeShell(dir, RECIPE_SHELL.mkdocs)
    build('mkdocs', ['build', '--quiet'], dir)
    await expectBuiltSite(pages, join(dir, 'site'), 'Self-attention')
  }, 300_000)
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
