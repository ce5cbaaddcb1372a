import { defineConfig } from 'vitest/config'
import { fileURLToPath } from 'node:url'

// Two cores: files run in two forks; browser tests start their own Chromium and server.
// Projects: every Node suite on the engine Node picks by itself (SIMD128: Node 20 has no relaxed SIMD without a
// flag); the engine suites again on the relaxed-SIMD engine, in Node with the flag that enables it; the browser
// suites with that flag too (see below).
const ENGINE_SUITES = ['tests/js/engine-*.test.ts', 'tests/js/hardening-bad-input.test.ts']

export default defineConfig({
  // The page's modules import the engine by its package name, as the page build does (vite.config.ts).
  resolve: {
    alias: [
      { find: /^attention-playground$/, replacement: fileURLToPath(new URL('./dist/index.js', import.meta.url)) },
    ],
  },
  test: {
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'simd128',
          include: ['tests/js/**/*.test.ts'],
          exclude: ['tests/js/backends-relaxed.test.ts'],
        },
      },
      {
        // Chromium runs the relaxed-SIMD engine; the browser tests compare its numbers with the engine in this
        // Node process bit for bit, so Node runs the same engine (FMA in both).
        extends: true,
        test: {
          name: 'e2e',
          include: ['tests/e2e/**/*.test.ts'],
          execArgv: ['--experimental-wasm-relaxed-simd'],
        },
      },
      {
        extends: true,
        test: {
          name: 'relaxed-simd',
          include: [...ENGINE_SUITES, 'tests/js/backends-relaxed.test.ts'],
          execArgv: ['--experimental-wasm-relaxed-simd'],
          env: { AP_TEST_BACKEND: 'relaxed-simd' },
        },
      },
    ],
  },
})
