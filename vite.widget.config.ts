import { defineConfig, type Plugin } from 'vite'
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
// Emscripten's glue is the toolchain's: its patterns live with the other work-arounds.
import { glueWasmUrl } from './scripts/toolchain.mjs'

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url))

// The widget: dist/widget/widget.js, ONE ES module with everything bundled (engine glue, KaTeX, the
// playground), so a course page needs one <script type="module"> and no import map. The .wasm is
// NOT bundled: it is the package's own dist/attention.wasm, fetched at run time from beside the
// widget folder. Not library mode on purpose: lib mode inlines every `new URL(…, import.meta.url)`
// asset as base64, which would put the 300 KB wasm into the JS (and defeat streaming compilation).

/**
 * The engine package finds its wasm with literal `new URL('…attention.wasm', import.meta.url)`s (its loader
 * dist/loader.js, and Emscripten's glue dist/attention.js). Left literal, Vite copies the wasm into the bundle
 * and rewrites the URL. The widget passes its own locateFile, and the training worker (emitted beside widget.js)
 * must reach the same dist/attention.wasm one folder up: make the expressions non-literal so they are resolved
 * at run time. The widget is browser-only, so the package's Node branch (reading the file with node:fs; `isNode`
 * in dist/backendPolicy.js) is switched off and dropped instead of leaving a `node:` import in the bundle.
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
      if (path.endsWith('/dist/loader.js')) {
        // One literal per engine (attention.wasm, attention-relaxed.wasm) and per trainer module
        // (attention-train.wasm, attention-train-relaxed.wasm), each kept pointing at its own file.
        const out = rewrite(
          code,
          'dist/loader.js',
          /new URL\((['"])\.\/(attention(?:-[a-z]+)*\.wasm)\1,\s*import\.meta\.url\)/g,
          "new URL(['..', '$2'].join('/'), import.meta.url)",
          fail,
        )
        // The widget runs one thread (init({ threads: 1 })): leave the pthread engine's glue out of the bundle.
        return {
          code: rewrite(
            out,
            'dist/loader.js',
            /import\((['"])\.\/attention-threads\.js\1\)/,
            "Promise.reject(new Error('the widget runs one thread'))",
            fail,
          ),
          map: null,
        }
      }
      if (path.endsWith('/dist/backendPolicy.js')) {
        return {
          code: rewrite(code, 'dist/backendPolicy.js', /const isNode = [^;]+;/, 'const isNode = false;', fail),
          map: null,
        }
      }
      // Every engine's glue (attention.js, attention-relaxed.js, attention-train.js, …) names the file it was linked as.
      const glue = /\/dist\/(attention(?:-[a-z]+)*\.js)$/.exec(path)
      if (glue) {
        return {
          code: rewrite(code, `dist/${glue[1]}`, glueWasmUrl(), runtimeUrl, fail),
          map: null,
        }
      }
      return null
    },
  }
}

/**
 * Vite emits the training worker's URL as `new URL(new URL('train-worker-….js', import.meta.url).href, '' +
 * import.meta.url)`, which works as shipped but which a course author's bundler does not recognise as a worker:
 * Vite and webpack would copy the file as an opaque asset, unprocessed, so its own `../attention.wasm` would
 * point outside their output. Written as the plain `new Worker(new URL('./train-worker-….js', import.meta.url))`
 * they bundle the worker and its wasm like any other (and unbundled, it resolves to the same file).
 */
function plainWorkerUrl(): Plugin {
  return {
    name: 'ap-plain-worker-url',
    apply: 'build',
    generateBundle(_options, bundle) {
      const nested =
        /new URL\(new URL\((["'`])(train-worker-[\w-]+\.js)\1,\s*import\.meta\.url\)\.href,\s*(["'`])\3\s*\+\s*import\.meta\.url\)/g
      const widget = bundle['widget.js']
      if (!widget || widget.type !== 'chunk') return
      if (!nested.test(widget.code)) this.error(`widget.js no longer matches ${nested}; update vite.widget.config.ts`)
      widget.code = widget.code.replace(nested, (_m, _q, file: string) => `new URL("./${file}",import.meta.url)`)
      // The wasm URL is built from parts in the source so that this build leaves it alone; the minifier folds it
      // back into a literal, and it must be one in the output for those bundlers to emit the wasm.
      widget.code = widget.code.replace(
        /new URL\(\[\s*(["'`])\.\.\1,\s*(["'`])(attention(?:-[a-z]+)*\.wasm)\2\s*\]\.join\((["'`])\/\4\),\s*import\.meta\.url\)/g,
        (_m, _q1, _q2, file: string) => `new URL("../${file}",import.meta.url)`,
      )
      // Both engines' files (SIMD128 and relaxed SIMD): init() picks one at run time.
      for (const file of ['attention.wasm', 'attention-relaxed.wasm']) {
        if (
          !new RegExp(`new URL\\((["'\`])\\.\\./${file.replace('.', '\\.')}\\1,import\\.meta\\.url\\)`).test(
            widget.code,
          )
        ) {
          this.error(`widget.js has no literal new URL("../${file}", import.meta.url); update vite.widget.config.ts`)
        }
      }
    },
  }
}

/**
 * web/ imports its modules without extensions (Vite resolves them), and tsc copies those specifiers into the
 * declarations. A consumer on `moduleResolution: node16` (or nodenext) refuses extensionless relative imports
 * in an ES module package, so each one is written out as the file it resolves to (`./state.js`, `./x/index.js`).
 */
function withExtensions(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = join(dir, entry.name)
    if (entry.isDirectory()) {
      withExtensions(file)
      continue
    }
    if (!entry.name.endsWith('.d.ts')) continue
    const text = readFileSync(file, 'utf8')
    const out = text.replace(
      /(\bfrom\s*|\bimport\s*\(\s*)(['"])(\.{1,2}\/[^'"]*)\2/g,
      (m, lead: string, q: string, spec: string) => {
        if (/\.js$/.test(spec)) return m
        const target = join(dirname(file), spec)
        if (existsSync(`${target}.d.ts`)) return `${lead}${q}${spec}.js${q}`
        if (existsSync(join(target, 'index.d.ts'))) return `${lead}${q}${spec}/index.js${q}`
        throw new Error(`${file}: no declaration for ${spec}`)
      },
    )
    if (out !== text) writeFileSync(file, out)
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
      execFileSync(
        process.execPath,
        [here('./node_modules/typescript/bin/tsc'), '-p', here('./web/tsconfig.widget.json')],
        { stdio: 'inherit' },
      )
      withExtensions(here('./dist/widget'))
    },
  }
}

export default defineConfig({
  root: here('./web'),
  // Relative URLs for emitted files (the worker), so the widget works from any folder or CDN path.
  base: './',
  publicDir: false,
  resolve: {
    alias: [
      { find: /^attention-playground$/, replacement: here('./dist/index.js') },
      // The wasm-free entries (package.json exports).
      { find: /^attention-playground\/(constants|files)$/, replacement: here('./dist') + '/$1.js' },
    ],
  },
  plugins: [wasmBesideThePackage(), plainWorkerUrl(), widgetTypes()],
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
