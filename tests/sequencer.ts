// The order test files start in: tier by tier as Vitest runs them (engine and kernels, then integration, then e2e),
// longest first within each tier, by the seconds each took in a whole run (tests/durations.json, written by
// scripts/test-durations.mjs). Two workers end together only when the long files start early: Vitest's own order
// (larger files first, a clean clone having no timing cache) left e2e's 50-s files to the end, one running alone.
// Longest first across all tiers paired the heaviest browser files with each other and the 76-s training run of
// tests/integration/poems-train.test.ts with them (95–100 s beside them). Whether that made the tier slower, two
// clean clones could not tell: the machine itself ran 10–20 % slower over those runs (docs/building.md, 2026-12-05).
// Tier by tier, the Node-only files run beside each other first. A file missing from the table starts first in its
// tier (it may be long); a stale entry only moves a file in the order, never what runs.
import { readFileSync } from 'node:fs'
import { relative } from 'node:path'
import { BaseSequencer, type TestSpecification } from 'vitest/node'

const TABLE = new URL('./durations.json', import.meta.url)
/** Each tier's place in the order Vitest's projects run them (vitest.config.ts); a file of no tier here goes last. */
const TIER: Record<string, number> = { engine: 0, kernels: 0, integration: 1, e2e: 2 }
const tierOf = (path: string) => TIER[path.split(/[\\/]/)[1] ?? ''] ?? 3

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = JSON.parse(readFileSync(TABLE, 'utf8')) as Record<string, number>
    const root = this.ctx.config.root
    return files
      .map((f, i) => {
        const path = relative(root, f.moduleId)
        return { f, i, tier: tierOf(path), s: seconds[path] ?? Number.POSITIVE_INFINITY }
      })
      .sort((a, b) => a.tier - b.tier || (a.s === b.s ? a.i - b.i : b.s > a.s ? 1 : -1))
      .map(({ f }) => f)
  }
}
