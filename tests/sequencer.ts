// The order test files start in: longest first, across the tiers that run together (engine, integration, e2e), by
// the seconds each took in a whole run (tests/durations.json, written by scripts/test-durations.mjs). Two workers
// end together only when the long files start early. Vitest's own order runs tier after tier, larger files first
// (a clean clone has no timing cache), so the 78 s training run of tests/integration/poems-train.test.ts started
// last and ran alone on one core for its last 54 s (2026-12-05). A file missing from the table starts first (it may
// be long); a stale entry only moves a file in the order, never what runs.
import { readFileSync } from 'node:fs'
import { relative } from 'node:path'
import { BaseSequencer, type TestSpecification } from 'vitest/node'

const TABLE = new URL('./durations.json', import.meta.url)

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = JSON.parse(readFileSync(TABLE, 'utf8')) as Record<string, number>
    const root = this.ctx.config.root
    const expected = (f: TestSpecification) => seconds[relative(root, f.moduleId)] ?? Number.POSITIVE_INFINITY
    return files
      .map((f, i) => ({ f, i, s: expected(f) }))
      .sort((a, b) => (a.s === b.s ? a.i - b.i : b.s > a.s ? 1 : -1))
      .map(({ f }) => f)
  }
}
