import { defineConfig, type Plugin } from 'vite'
import { copyFileSync, existsSync, mkdirSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { RELAXED_PROBE } from './src/js/relaxedProbe'
import { earlyEngineScript } from './web/early-engine'

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url))

/**
 * The engine started from the page's head (web/early-engine.ts): an inline script, right after the charset, that
 * names the build's hashed files of both one-thread engines (each .wasm and its glue's chunk). A build without them is
 * an error, not a page that quietly starts later.
 */
function startTheEngineEarly(): Plugin {
  return {
    name: 'ap-early-engine',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html, ctx) {
        const files = Object.values(ctx.bundle ?? {})
        const engine = (name: string) => {
          const wasm = files.find((f) => f.type === 'asset' && f.names.includes(`${name}.wasm`))
          const glue = files.find((f) => f.type === 'chunk' && (f.facadeModuleId ?? '').endsWith(`/dist/${name}.js`))
          if (!wasm || !glue)
            throw new Error(`ap-early-engine: the bundle has no ${name}.wasm asset or ${name}.js chunk`)
          return { wasm: `./${wasm.fileName}`, glue: `./${glue.fileName}` }
        }
        const charset = '<meta charset="utf-8">'
        if (!html.includes(charset)) throw new Error(`ap-early-engine: web/index.html has no ${charset}`)
        const script = earlyEngineScript(RELAXED_PROBE, engine('attention-relaxed'), engine('attention'))
        return html.replace(charset, `${charset}\n  <script>${script}</script>`)
      },
    },
  }
}

/**
 * The widget served by the site itself, so that the Embed box's <attention-playground> snippet works as given:
 * the npm package's dist/widget/*.js into site/widget/ and its engines (attention.wasm, attention-relaxed.wasm, and
 * their trainer modules attention-train.wasm, attention-train-relaxed.wasm)
 * into site/, one folder above the widget, where it fetches them (scripts/build.mjs builds the widget first).
 */
function serveTheWidget(): Plugin {
  return {
    name: 'ap-site-widget',
    apply: 'build',
    closeBundle() {
      const from = here('./dist/widget')
      if (!existsSync(join(from, 'widget.js'))) this.error('dist/widget/widget.js is missing: build the widget first')
      mkdirSync(here('./site/widget'), { recursive: true })
      for (const f of readdirSync(from)) if (f.endsWith('.js')) copyFileSync(join(from, f), here(`./site/widget/${f}`))
      for (const f of [
        'attention.wasm',
        'attention-relaxed.wasm',
        'attention-train.wasm',
        'attention-train-relaxed.wasm',
      ])
        copyFileSync(here(`./dist/${f}`), here(`./site/${f}`))
    },
  }
}

// The page lives in web/ and builds into site/, a folder any static host serves (relative base, so
// it also works from a sub-path). The engine is the package built into dist/ by scripts/build.mjs.
export default defineConfig({
  root: here('./web'),
  base: './',
  publicDir: here('./public'),
  plugins: [startTheEngineEarly(), serveTheWidget()],
  resolve: {
    alias: [
      { find: /^attention-playground$/, replacement: here('./dist/index.js') },
      // The wasm-free entries (package.json exports).
      { find: /^attention-playground\/(constants|files)$/, replacement: here('./dist') + '/$1.js' },
    ],
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
