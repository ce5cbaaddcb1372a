import { defineConfig } from 'vitest/config';

// Two cores: files run in two forks; browser tests start their own Chromium and server.
export default defineConfig({
  test: {
    include: ['tests/js/**/*.test.ts', 'tests/e2e/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
