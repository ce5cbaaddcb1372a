#!/usr/bin/env node
// Builds what is stale, in order: the wasm module (emcmake), the npm package (tsc + copy), and on request the
// native tree (tests, benchmark) and the site (Vite). Usage: node scripts/build.mjs [--native] [--site] [--force]
import { execFileSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { gzipSync } from 'node:zlib'
import { EMCMAKE_FLAGS, plainEnv, plainPath, relaxedEnv, threadGlue } from './toolchain.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const args = new Set(process.argv.slice(2))
const force = args.has('--force')
const jobs = String(Math.max(1, Math.min(2, (await import('node:os')).cpus().length)))

function newest(paths) {
  let t = 0
  const walk = (p) => {
    if (!existsSync(p)) return
    const s = statSync(p)
    if (s.isDirectory()) for (const e of readdirSync(p)) walk(join(p, e))
    else t = Math.max(t, s.mtimeMs)
  }
  for (const p of paths) walk(join(root, p))
  return t
}
const mtime = (p) => (existsSync(join(root, p)) ? statSync(join(root, p)).mtimeMs : 0)
const stale = (output, inputs) => force || mtime(output) < newest(inputs)

function sh(cmd, argv, env = {}) {
  console.log(`$ ${cmd} ${argv.join(' ')}`)
  execFileSync(cmd, argv, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } })
}

// The Debian toolchain's work-arounds (environments, wrappers, the glue patch) are scripts/toolchain.mjs.
process.env.PATH = plainPath()
const coreInputs = ['CMakeLists.txt', 'cmake', 'src/core', 'src/kernels']

// Every engine is the same sources built with other flags; dist/ gets <name>.js + <name>.wasm of each, and the
// single-thread ones their trainer module (the target attention-train) as <trainer>.js + <trainer>.wasm.
const engines = [
  { name: 'attention', trainer: 'attention-train', dir: 'build/wasm', flags: [], env: plainEnv },
  {
    name: 'attention-relaxed',
    trainer: 'attention-train-relaxed',
    dir: 'build/wasm-relaxed',
    flags: ['-DAP_RELAXED_SIMD=ON'],
    env: relaxedEnv,
  },
  // Cross-origin isolated pages: the relaxed engine with a thread pool (plus its pthread worker script).
  {
    name: 'attention-threads',
    dir: 'build/wasm-threads',
    flags: ['-DAP_RELAXED_SIMD=ON', '-DAP_THREADS=ON'],
    env: relaxedEnv,
    worker: true,
  },
]

for (const e of engines) {
  const outputs = e.trainer ? ['attention', 'attention-train'] : ['attention']
  if (!outputs.some((o) => stale(`${e.dir}/${o}.wasm`, [...coreInputs, 'src/bindings']))) continue
  const env = e.env()
  sh('emcmake', ['cmake', '-S', '.', '-B', e.dir, '-DCMAKE_BUILD_TYPE=Release', ...EMCMAKE_FLAGS, ...e.flags], env)
  sh('cmake', ['--build', e.dir, '--target', ...outputs, '-j', jobs], env)
}

const distStale = engines.some(
  (e) =>
    mtime(`dist/${e.name}.wasm`) < mtime(`${e.dir}/attention.wasm`) ||
    (e.trainer && mtime(`dist/${e.trainer}.wasm`) < mtime(`${e.dir}/attention-train.wasm`)),
)
if (stale('dist/index.js', ['src/js', 'tsconfig.json']) || distStale) {
  mkdirSync(join(root, 'dist'), { recursive: true })
  for (const e of engines) {
    copyFileSync(join(root, e.dir, 'attention.wasm'), join(root, `dist/${e.name}.wasm`))
    // The glue fetches "attention.wasm" by default; loader.ts always passes the file it means.
    let glue = readFileSync(join(root, e.dir, 'attention.js'), 'utf8')
    if (e.worker) glue = threadGlue(glue, e.name)
    writeFileSync(join(root, `dist/${e.name}.js`), glue)
    copyFileSync(join(root, 'src/js/attention.d.ts'), join(root, `dist/${e.name}.d.ts`))
    if (e.worker) copyFileSync(join(root, e.dir, 'attention.worker.js'), join(root, `dist/${e.name}.worker.js`))
    if (e.trainer) {
      copyFileSync(join(root, e.dir, 'attention-train.wasm'), join(root, `dist/${e.trainer}.wasm`))
      writeFileSync(join(root, `dist/${e.trainer}.js`), readFileSync(join(root, e.dir, 'attention-train.js'), 'utf8'))
      copyFileSync(join(root, `src/js/${e.trainer}.d.ts`), join(root, `dist/${e.trainer}.d.ts`))
    }
  }
  // The page's engines within the gzip budget (scripts/bench-doc.mjs), each flavour: the trainers stay out.
  for (const e of engines) {
    const gz = gzipSync(readFileSync(join(root, `dist/${e.name}.wasm`)), { level: 9 }).length
    const train = e.trainer ? gzipSync(readFileSync(join(root, `dist/${e.trainer}.wasm`)), { level: 9 }).length : 0
    console.log(`build: dist/${e.name}.wasm gzip -9 ${gz} bytes${e.trainer ? `, dist/${e.trainer}.wasm ${train}` : ''}`)
  }
  sh('node', [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'])
}

// The "Write a poem" view's sample and the validation poems it measures heads on, shipped beside the widget
// (dist/samples/, web/widget.ts): a course page's widget writes at once, without the page's public/ folder.
const SAMPLES = [
  ['public/samples/poems.safetensors', 'dist/samples/poems.safetensors'],
  ['public/poems/validation.txt', 'dist/samples/poems-validation.txt'],
  ['public/poems/LICENSE', 'dist/samples/POEMS-LICENSE'],
]
for (const [from, to] of SAMPLES) {
  if (!stale(to, [from])) continue
  mkdirSync(join(root, 'dist/samples'), { recursive: true })
  copyFileSync(join(root, from), join(root, to))
}

if (
  existsSync(join(root, 'vite.widget.config.ts')) &&
  stale('dist/widget/widget.js', ['web', 'src/js', 'vite.widget.config.ts', 'dist/attention.wasm'])
) {
  sh('node', [join(root, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'vite.widget.config.ts'])
}

// The notebook helper (python/attention_playground) inlines the widget and the SIMD128 engine in each output:
// gzip'd copies of dist/widget/widget.js and dist/attention.wasm (git-ignored build outputs, shipped in the package).
const PY_ASSETS = 'python/attention_playground/assets'
if (stale(`${PY_ASSETS}/attributes.json`, ['dist/widget/widget.js', 'dist/attention.wasm'])) {
  mkdirSync(join(root, PY_ASSETS), { recursive: true })
  for (const [from, to] of [
    ['dist/attention.wasm', 'attention.wasm.gz'],
    ['dist/widget/widget.js', 'widget.js.gz'],
  ]) {
    writeFileSync(join(root, PY_ASSETS, to), gzipSync(readFileSync(join(root, from)), { level: 9 }))
  }
  // The attribute names show_run() accepts: the widget's own list (importing it in Node defines nothing).
  const widget = await import(pathToFileURL(join(root, 'dist/widget/widget.js')).href)
  const names = widget.AttentionPlaygroundElement.observedAttributes
  writeFileSync(join(root, PY_ASSETS, 'attributes.json'), JSON.stringify(names) + '\n')
  console.log(`build: wrote ${PY_ASSETS}/widget.js.gz, attention.wasm.gz, attributes.json`)
}

if (args.has('--native') && stale('build/native/.stamp', [...coreInputs, 'tests/native', 'bench/native_bench.cpp'])) {
  sh('cmake', ['-S', '.', '-B', 'build/native', '-DCMAKE_BUILD_TYPE=Release'])
  sh('cmake', ['--build', 'build/native', '-j', jobs])
  execFileSync('touch', [join(root, 'build/native/.stamp')])
}

if (
  args.has('--site') &&
  existsSync(join(root, 'vite.config.ts')) &&
  stale('site/index.html', [
    'web',
    'public',
    'src/js',
    'vite.config.ts',
    'dist/attention.wasm',
    'dist/widget/widget.js',
  ])
) {
  sh('node', [join(root, 'node_modules/vite/bin/vite.js'), 'build'])
}
console.log(`build: up to date (${relative(process.cwd(), root) || '.'})`)
