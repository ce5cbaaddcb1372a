import { defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';

// Two cores: files run in two forks; browser tests start their own Chromium and server.
export default defineConfig({
  // The page's modules import the engine by its package name, as the page build does (vite.config.ts).
  resolve: {
    alias: [{ find: /^attention-playground$/, replacement: fileURLToPath(new URL('./dist/index.js', import.meta.url)) }],
  },
  test: {
    include: ['tests/js/**/*.test.ts', 'tests/e2e/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
