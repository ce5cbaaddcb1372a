import { defineConfig } from 'vitest/config'
import { readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import LongestFirst from './tests/sequencer.ts'

// The test tiers (docs/building.md, "Tests"), each a folder of tests/ and a Vitest project:
//   unit         tests/unit/         Node alone: no wasm, no dist/, no browser, no Python (`npm run test:unit`)
//   engine       tests/engine/       the built engine (dist/*.wasm) on the engine Node picks (SIMD128), once
//                tests/kernels/      the same, and again on the relaxed-SIMD engine (kernel-dependent numbers)
//   integration  tests/integration/  outside tools: PyTorch, pip, npm pack, long soaks and training runs
//   e2e          tests/e2e/          the page and the widget in Chromium
// A test file outside these folders would run in no project: the config refuses to load instead.
const TIERS = ['unit', 'engine', 'kernels', 'integration', 'e2e']
const stray = readdirSync(fileURLToPath(new URL('./tests', import.meta.url)), {
  recursive: true,
  encoding: 'utf8',
}).filter((f) => /\.test\.ts$/.test(f) && !TIERS.includes(f.split(/[\\/]/)[0]))
if (stray.length > 0)
  throw new Error(
    `test files in no tier: ${stray.map((f) => `tests/${f}`).join(', ')}; move each into tests/{${TIERS.join(',')}}/ (docs/building.md, "Tests")`,
  )

const RELAXED = ['--experimental-wasm-relaxed-simd']

/**
 * `attention-playground` and its wasm-free entries, as the page build resolves them (vite.config.ts): from dist/, or
 * for the unit tier (no build) the wasm-free entries from their sources. One tier uses one copy of each module, so
 * `instanceof AttentionError` holds across the package and the page's readers.
 */
const here = (p: string) => fileURLToPath(new URL(p, import.meta.url))
const packageFrom = (built: boolean) => ({
  alias: [
    { find: /^attention-playground$/, replacement: here('./dist/index.js') },
    {
      find: /^attention-playground\/(constants|files)$/,
      replacement: built ? here('./dist') + '/$1.js' : here('./src/js') + '/$1.ts',
    },
  ],
})

export default defineConfig({
  resolve: packageFrom(true),
  test: {
    // Two cores: files run in two forks.
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
    // Longest files first, across the tiers of one run (tests/sequencer.ts, tests/durations.json).
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        extends: true,
        resolve: packageFrom(false),
        // A hung unit test fails in seconds.
        test: { name: 'unit', include: ['tests/unit/**/*.test.ts'], testTimeout: 5_000, hookTimeout: 10_000 },
      },
      {
        extends: true,
        test: {
          name: 'engine',
          // Files share their worker's modules (the engine loaded once per worker, not per file; a test file itself
          // runs afresh): both engine projects took 52–55 s and 102–106 CPU-s instead of 64–67 s and 123–130.
          isolate: false,
          include: ['tests/engine/**/*.test.ts', 'tests/kernels/**/*.test.ts'],
          exclude: ['**/*.relaxed.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        // The kernel-dependent suites again on the relaxed-SIMD engine (FMA), in Node with the flag that enables it.
        extends: true,
        test: {
          name: 'engine-relaxed',
          isolate: false,
          include: ['tests/kernels/**/*.test.ts'],
          execArgv: RELAXED,
          env: { AP_TEST_BACKEND: 'relaxed-simd' },
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['tests/integration/**/*.test.ts'],
          testTimeout: 300_000,
          hookTimeout: 300_000,
        },
      },
      {
        // Chromium runs the relaxed-SIMD engine; the browser tests compare its numbers with the engine in this
        // Node process bit for bit, so Node runs the same engine (FMA in both).
        extends: true,
        test: {
          name: 'e2e',
          // Files share their worker's modules (Playwright, the page's strings …): 8 short files took 150–155
          // CPU-s instead of 177. The page fixture closes its idle pages after each file's tests.
          isolate: false,
          include: ['tests/e2e/**/*.test.ts'],
          // One Chromium for the tier; each file connects to it (tests/e2e/chromium.setup.ts).
          globalSetup: ['tests/e2e/chromium.setup.ts'],
          execArgv: RELAXED,
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
})
