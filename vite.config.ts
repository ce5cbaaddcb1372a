import { defineConfig } from 'vite'
import { fileURLToPath } from 'node:url'

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url))

// The page lives in web/ and builds into site/, a folder any static host serves (relative base, so
// it also works from a sub-path). The engine is the package built into dist/ by scripts/build.mjs.
export default defineConfig({
  root: here('./web'),
  base: './',
  publicDir: here('./public'),
  resolve: {
    alias: [{ find: /^attention-playground$/, replacement: here('./dist/index.js') }],
  },
  build: {
    outDir: here('./site'),
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 1200,
  },
  // The Train tab's worker imports the engine (an ES module with top-level await): ES workers.
  worker: { format: 'es' },
  server: { host: '127.0.0.1' },
})
