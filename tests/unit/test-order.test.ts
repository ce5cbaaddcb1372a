// The order the engine, integration and e2e files start in (tests/sequencer.ts: tier by tier, longest first, from
// tests/durations.json). A table whose paths name no file orders nothing: every file then starts in Vitest's order
// and the long ones may start last (a table written from a clean clone's report, keyed `../../tmp/cc22/tests/…`,
// did that for three runs of `npm test`).
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import type { TestSpecification, Vitest } from 'vitest/node'
import LongestFirst from '../sequencer'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const table = JSON.parse(readFileSync(join(ROOT, 'tests/durations.json'), 'utf8')) as Record<string, number>

describe('tests/durations.json', () => {
  it('names test files of the tiers that run together, each with its seconds', () => {
    const paths = Object.keys(table)
    expect(paths.length).toBeGreaterThan(50)
    for (const [path, s] of Object.entries(table)) {
      expect(path, path).toMatch(/^tests\/(engine|kernels|integration|e2e)\/[^/]+\.test\.ts$/)
      expect(existsSync(join(ROOT, path)), `${path} is not a file: node scripts/test-durations.mjs REPORT.json`).toBe(
        true,
      )
      expect(s, path).toBeGreaterThan(0)
    }
  })

  it('runs tier by tier (engine, integration, e2e), each one longest first, a file missing from it first', async () => {
    /** The tier's files in the table, longest first. */
    const longest = (tier: string) =>
      Object.entries(table)
        .filter(([p]) => p.startsWith(`tests/${tier}/`))
        .sort((a, b) => b[1] - a[1])
        .map(([p]) => p)
    const e2e = longest('e2e')
    const [e2eLong, e2eShort] = [e2e[0], e2e[e2e.length - 1]]
    const [integration] = longest('integration')
    const [engine] = longest('engine')
    const given = [e2eShort, 'tests/e2e/not-in-the-table.test.ts', e2eLong, integration, engine]
    const files = given.map((p) => ({ moduleId: join(ROOT, p) }) as unknown as TestSpecification)
    const sequencer = new LongestFirst({ config: { root: ROOT } } as unknown as Vitest)
    const order = (await sequencer.sort(files)).map((f) => f.moduleId.slice(ROOT.length))
    expect(order).toEqual([engine, integration, 'tests/e2e/not-in-the-table.test.ts', e2eLong, e2eShort])
  })
})
