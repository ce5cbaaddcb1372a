// docs/docs-sites.md's recipes for the generators that come from npm, Docusaurus and Astro Starlight: each built
// from the packed package (npm pack, installed into the course site) with the files exactly as the page shows
// them, by the generator installed into a cache folder outside the repository (tests/e2e/generators.ts), served as
// plain files and opened in Chromium, where the page's two widgets (en, zh) show the course's weights.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, it } from 'vitest'
import { launchChromium } from './harness.mjs'
import { installTarball, packTarball } from '../support/packed'
import { build, expectBuiltSite, writeRecipe } from './docs-sites'
import { generatorFolder, type GeneratorName } from './generators'
import { usePages } from './page-fixture'
import { RECIPE_FILES } from './recipes'

let browser: Browser
let closeBrowser: (() => Promise<void>) | undefined
let tarball: string
const scratch: string[] = []

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ap-docs-npm-'))
  scratch.push(dir)
  tarball = packTarball(dir)
  ;({ browser, close: closeBrowser } = await launchChromium())
}, 180_000)

afterAll(async () => {
  await closeBrowser?.()
  for (const d of scratch) rmSync(d, { recursive: true, force: true })
})

const pages = usePages(() => browser)

/**
 * A course site's folder inside the generator's cached folder (Node and the bundler find the generator above it),
 * with the packed package installed in its own node_modules.
 */
function site(name: GeneratorName, packageJson: Record<string, unknown> = {}): { dir: string; generator: string } {
  const generator = generatorFolder(name)
  const dir = mkdtempSync(join(generator, 'site-'))
  scratch.push(dir)
  installTarball(tarball, dir, packageJson)
  return { dir, generator }
}

describe('Docusaurus', () => {
  it('a client module loads the widget, the tags in an MDX page: built, served, en and zh', async () => {
    // no "type": "module", as Docusaurus's own template (its generated route modules use require.resolveWeak)
    const { dir, generator } = site('docusaurus', { type: undefined })
    writeRecipe(dir, RECIPE_FILES.docusaurus)
    build('node', [join(generator, 'node_modules/@docusaurus/core/bin/docusaurus.mjs'), 'build'], dir)
    await expectBuiltSite(pages, join(dir, 'build'), 'Self-attention')
  }, 900_000)
})

describe('Astro Starlight', () => {
  it('a component with the tag and its script, used in an MDX page: built, served, en and zh', async () => {
    const { dir, generator } = site('starlight')
    writeRecipe(dir, RECIPE_FILES.starlight)
    // Starlight's pages link /favicon.svg, which its template ships in public/ (not the recipe's part)
    mkdirSync(join(dir, 'public'))
    writeFileSync(join(dir, 'public/favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"/>')
    build('node', [join(generator, 'node_modules/astro/astro.js'), 'build'], dir)
    await expectBuiltSite(pages, join(dir, 'dist'), 'Self-attention')
  }, 900_000)
})
