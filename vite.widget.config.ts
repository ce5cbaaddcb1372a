import { defineConfig, type Plugin } from 'vite'
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url))

// The widget: dist/widget/widget.js, ONE ES module with everything bundled (engine glue, KaTeX, the
// playground), so a course page needs one <script type="module"> and no import map. The .wasm is
// NOT bundled: it is the package's own dist/attention.wasm, fetched at run time from beside the
// widget folder. Not library mode on purpose: lib mode inlines every `new URL(…, import.meta.url)`
// asset as base64, which would put the 300 KB wasm into the JS (and defeat streaming compilation).

/**
 * The engine package finds its wasm with literal `new URL('…attention.wasm', import.meta.url)`s (dist/index.js
 * and Emscripten's glue dist/attention.js). Left literal, Vite copies the wasm into the bundle and rewrites
 * the URL. The widget passes its own locateFile, and the training worker (emitted beside widget.js) must
 * reach the same dist/attention.wasm one folder up: make the expressions non-literal so they are resolved
 * at run time. The widget is browser-only, so the package's Node branch (reading the file with node:fs)
 * is switched off and dropped instead of leaving a `node:` import in the bundle.
 */
function wasmBesideThePackage(): Plugin {
  const rewrite = (code: string, file: string, pattern: RegExp, by: string, fail: (m: string) => never) => {
    if (!pattern.test(code)) fail(`${file} no longer matches ${pattern}; update vite.widget.config.ts`)
    return code.replace(pattern, by)
  }
  return {
    name: 'ap-wasm-beside-the-package',
    enforce: 'pre',
    transform(code, id) {
      const path = id.replace(/\\/g, '/').split('?')[0]
      const fail = (m: string): never => this.error(m)
      const runtimeUrl = "new URL(['..', 'attention.wasm'].join('/'), import.meta.url)"
      if (path.endsWith('/dist/index.js')) {
        let out = rewrite(code, 'dist/index.js', /new URL\((['"])\.\/attention\.wasm\1,\s*import\.meta\.url\)/g, runtimeUrl, fail)
        out = rewrite(out, 'dist/index.js', /const isNode = [^;]+;/, 'const isNode = false;', fail)
        return { code: out, map: null }
      }
      if (path.endsWith('/dist/attention.js')) {
        return { code: rewrite(code, 'dist/attention.js', /new URL\((['"])attention\.wasm\1,\s*import\.meta\.url\)/g, runtimeUrl, fail), map: null }
      }
      return null
    },
  }
}

/**
 * The types of `attention-playground/widget` (package.json exports → dist/widget/widget.d.ts), generated
 * by tsc from web/widget.ts and the modules it imports (web/tsconfig.widget.json), after the bundle is written.
 */
function widgetTypes(): Plugin {
  return {
    name: 'ap-widget-dts',
    apply: 'build',
    closeBundle() {
      execFileSync(process.execPath, [here('./node_modules/typescript/bin/tsc'), '-p', here('./web/tsconfig.widget.json')], { stdio: 'inherit' })
    },
  }
}

export default defineConfig({
  root: here('./web'),
  // Relative URLs for emitted files (the worker), so the widget works from any folder or CDN path.
  base: './',
  publicDir: false,
  resolve: {
    alias: [{ find: /^attention-playground$/, replacement: here('./dist/index.js') }],
  },
  plugins: [wasmBesideThePackage(), widgetTypes()],
  // The training panel's worker also imports the engine: same rewrite there.
  worker: {
    format: 'es',
    plugins: () => [wasmBesideThePackage()],
    rolldownOptions: { output: { entryFileNames: 'train-worker-[hash].js' } },
  },
  build: {
    outDir: here('./dist/widget'),
    emptyOutDir: true,
    target: 'es2022',
    // Emitted files (the training worker) sit beside widget.js, so '../attention.wasm' is right for both.
    assetsDir: '',
    assetsInlineLimit: 0,
    copyPublicDir: false,
    modulePreload: false,
    minify: true,
    chunkSizeWarningLimit: 2000,
    rolldownOptions: {
      input: here('./web/widget.ts'),
      preserveEntrySignatures: 'exports-only',
      output: {
        format: 'es',
        entryFileNames: 'widget.js',
        // One file: the lazily loaded training panel is inlined (it is only *run* when steps asks for it).
        codeSplitting: false,
      },
    },
  },
})
