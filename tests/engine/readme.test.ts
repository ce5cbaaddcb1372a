// The README is read by people: short, its developer quick start runs as written (against the built package)
// and prints what its comments say, and every document it links to exists.
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../support/packed'
import { scratchDir } from '../support/scratch-dir'

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')

/** The first fenced block of `lang` after the heading `heading`. */
function block(heading: string, lang: string): string {
  const at = readme.indexOf(`\n## ${heading}`)
  expect(at, heading).toBeGreaterThan(0)
  const open = readme.indexOf('```' + lang + '\n', at)
  const start = open + lang.length + 4
  return readme.slice(start, readme.indexOf('\n```', start) + 1)
}

describe('README.md', () => {
  it('is at most 250 lines and keeps the two commands', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(250)
    expect(readme).toContain('npm start   #')
    expect(readme).toContain('npm test    #')
  })

  it("the developers' quick start runs and prints what its comments say", () => {
    const code = block('Quick start: developers', 'js')
    const dir = scratchDir('readme-')
    const file = join(dir, 'quick-start.mjs')
    const index = pathToFileURL(join(ROOT, 'dist/index.js')).href
    writeFileSync(file, code.replace("from 'attention-playground'", `from '${index}'`))
    const out = execFileSync(process.execPath, [file], { encoding: 'utf8' }).trim().split('\n')
    const promised = [...code.matchAll(/^console\.log\(.*\) \/\/ (.*)$/gm)].map((m) => m[1])
    expect(promised).toHaveLength(2)
    expect(out).toEqual(promised)
  })

  it('the notebook recipe is the first code cell of the notebook the e2e test runs (tests/e2e/notebook.test.ts)', () => {
    const nb = JSON.parse(readFileSync(join(ROOT, 'tests/e2e/fixtures/notebook/attention.ipynb'), 'utf8'))
    const cell = nb.cells.find((c: { cell_type: string }) => c.cell_type === 'code')
    const recipe = block('Quick start: course authors', 'python')
    expect(recipe).toBe((cell.source as string[]).join('') + '\n')
    expect(recipe.trim().split('\n').length).toBeLessThanOrEqual(6)
    expect(readme).toContain('](docs/notebook.png)')
  })

  it('links only to documents that exist', () => {
    const links = [...readme.matchAll(/\]\((docs\/[^)#]+)/g)].map((m) => m[1])
    expect(links.length).toBeGreaterThanOrEqual(6)
    for (const l of links) expect(existsSync(join(ROOT, l)), l).toBe(true)
  })
})
