// docs/docs-sites.md is what the docs-site tests build (tests/e2e/docs-site.test.ts, docs-site-npm.test.ts): each
// of its fenced blocks is a file or a shell step they write or run, found by its marker (tests/e2e/recipes.ts),
// so no block of the page goes untested and no test reads a block the page no longer has.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { docBlock, ROOT } from '../support/packed'
import { RECIPE_FILES, RECIPE_SHELL, RECIPES } from '../e2e/recipes'

/** Every fenced block of the page, its text without the fences. */
function blocks(): string[] {
  const doc = readFileSync(join(ROOT, RECIPES), 'utf8')
  return [...doc.matchAll(/^```[^\n]*\n([\s\S]*?)^```$/gm)].map((m) => m[1])
}

const markers = [
  ...Object.values(RECIPE_FILES).flatMap((files) => Object.values(files) as string[]),
  ...Object.values(RECIPE_SHELL),
]

describe('docs/docs-sites.md', () => {
  it('each fenced block holds exactly one marker the tests build from, and each marker is in one block', () => {
    const all = blocks()
    expect(all.length).toBe(markers.length)
    for (const b of all)
      expect(
        markers.filter((m) => b.includes(m)),
        b.slice(0, 80),
      ).toHaveLength(1)
    for (const m of markers) {
      expect(
        all.filter((b) => b.includes(m)),
        m,
      ).toHaveLength(1)
      // the block the tests take for a marker is that block
      expect(all).toContain(docBlock(m, RECIPES))
    }
  })
})

describe('README.md', () => {
  it('its docs-site recipes are blocks of docs/docs-sites.md, as the tests build them', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
    const at = readme.indexOf('Docs sites: copy or import the package')
    expect(at).toBeGreaterThan(0)
    const section = readme.slice(at, readme.indexOf('\n## ', at))
    const shown = [...section.matchAll(/^```[^\n]*\n([\s\S]*?)^```$/gm)].map((m) => m[1])
    expect(shown).toHaveLength(4)
    for (const b of shown) expect(blocks(), b.slice(0, 80)).toContain(b)
  })
})
