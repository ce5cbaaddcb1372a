import { defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';

// Two cores: files run in two forks; browser tests start their own Chromium and server.
// Two projects: every suite on the engine Node picks by itself (SIMD128: Node 20 has no relaxed SIMD without a
// flag), and the engine suites again on the relaxed-SIMD engine, in Node with the flag that enables it.
const ENGINE_SUITES = ['tests/js/engine-*.test.ts', 'tests/js/hardening-bad-input.test.ts'];

export default defineConfig({
  // The page's modules import the engine by its package name, as the page build does (vite.config.ts).
  resolve: {
    alias: [{ find: /^attention-playground$/, replacement: fileURLToPath(new URL('./dist/index.js', import.meta.url)) }],
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
          include: ['tests/js/**/*.test.ts', 'tests/e2e/**/*.test.ts'],
          exclude: ['tests/js/backends-relaxed.test.ts'],
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
});
