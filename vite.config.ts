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
    // The engine's pthread worker must stay a same-origin file: a data: URL worker has an opaque origin and
    // cannot share the engine's memory (threads on a cross-origin isolated page).
    assetsInlineLimit: (file: string) => (file.endsWith('.worker.js') ? false : undefined),
  },
  // The Train tab's worker imports the engine (an ES module with top-level await): ES workers.
  worker: { format: 'es' },
  server: { host: '127.0.0.1' },
})
