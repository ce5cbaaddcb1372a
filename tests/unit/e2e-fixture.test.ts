// The real-browser tests open their pages one way: through tests/e2e/page-fixture.ts (usePages), which
// collects each page's errors and closes every page after its test, also when the test failed. A file that
// opens a browser context or page by itself, or closes one, would leak its page when a test fails before
// the close; this check names the file and the line.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const DIR = join(import.meta.dirname, '../e2e')
const FIXTURE = 'page-fixture.ts'
const files = readdirSync(DIR).filter((f) => /\.(ts|mjs)$/.test(f) && f !== FIXTURE)

/** Opening or closing a page or a context by hand (a browser, a server or the environment may be closed). */
const BY_HAND = [
  /\.newContext\(/,
  /\bbrowser(\(\))?\.newPage\(/,
  /\b\w*(page|Page|tab|Tab|ctx|context|Context)\w*(\(\))?\.close\(/,
]

describe('e2e files open their pages through the page fixture', () => {
  it('finds the fixture and the test files', () => {
    expect(readdirSync(DIR)).toContain(FIXTURE)
    expect(files.filter((f) => f.endsWith('.test.ts')).length).toBeGreaterThan(10)
  })

  it('every test file calls usePages()', () => {
    const without = files.filter((f) => f.endsWith('.test.ts') && !/\busePages\(/.test(read(f)))
    expect(without).toEqual([])
  })

  it('no file opens or closes a page or a browser context by hand', () => {
    const found = files.flatMap((f) =>
      read(f)
        .split('\n')
        .flatMap((line, i) => (BY_HAND.some((re) => re.test(line)) ? [`${f}:${i + 1}: ${line.trim()}`] : [])),
    )
    expect(found).toEqual([])
  })
})

function read(f: string): string {
  return readFileSync(join(DIR, f), 'utf8')
}
