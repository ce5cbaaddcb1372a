#!/usr/bin/env node
// Builds what is stale, in order: the wasm module (emcmake), the npm package (tsc + copy), and on request the
// native tree (tests, benchmark) and the site (Vite). Usage: node scripts/build.mjs [--native] [--site] [--force]
import { execFileSync } from 'node:child_process'
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

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

// npm scripts put node_modules/.bin on PATH, where the npm binaryen's wasm-opt (for the relaxed engines, through
// the wrappers below) would shadow Debian's for the plain build: Emscripten 3.1.6 cannot read its import renames.
process.env.PATH = (process.env.PATH ?? '')
  .split(':')
  .filter((p) => !p.endsWith('/node_modules/.bin'))
  .join(':')
const emEnv = { NODE_PATH: process.env.NODE_PATH ?? '/usr/share/nodejs' }
const coreInputs = ['CMakeLists.txt', 'src/core', 'src/kernels']

// The relaxed-SIMD engine needs what Emscripten 3.1.6 does not bring: clang >= 16 (the final relaxed
// opcodes) and a wasm-opt that parses them. emcc runs binaryen's tools by name from the PATH, so a
// directory of wrappers for npm's binaryen (its tools are wasm programs run by node) goes first on it.
function relaxedEnv() {
  for (const tool of ['clang-16', 'wasm-ld-16']) {
    try {
      execFileSync(tool, ['--version'], { stdio: 'ignore' })
    } catch {
      throw new Error(
        `build: ${tool} is missing (the relaxed-SIMD engine needs it): apt-get install -y clang-16 lld-16`,
      )
    }
  }
  const npmBin = join(root, 'node_modules/binaryen/bin')
  if (!existsSync(join(npmBin, 'wasm-opt'))) throw new Error('build: node_modules/binaryen is missing: npm ci')
  const wrappers = join(root, 'build/tools/binaryen/bin')
  mkdirSync(wrappers, { recursive: true })
  // The node wrapper is CommonJS, whatever the package.json above says.
  writeFileSync(join(wrappers, 'package.json'), '{ "type": "commonjs" }\n')
  for (const tool of readdirSync(npmBin)) {
    if (tool.includes('.')) continue // package.json
    const file = join(wrappers, tool)
    writeFileSync(
      file,
      tool === 'wasm-opt'
        ? wasmOptWrapper(join(npmBin, tool))
        : `#!/bin/sh\nexec "${process.execPath}" "${join(npmBin, tool)}" "$@"\n`,
    )
    chmodSync(file, 0o755)
  }
  return {
    ...emEnv,
    PATH: `${wrappers}:${process.env.PATH}`,
    EM_LLVM_ADD_VERSION: '16',
    EM_CLANG_ADD_VERSION: '16',
    // Metadata read by emcc itself: Debian's wasm-emscripten-finalize (binaryen 108) cannot parse relaxed opcodes.
    EMCC_READ_METADATA: 'python',
  }
}

// emcc 3.1.6 minifies the wasm's import and export names with wasm-opt --minify-imports-and-exports* and reads
// the renaming from its output as "old => new" lines; binaryen 132 prints it as JSON instead
// ({ imports: [[module, base, new]], exports: [[old, new]] }). Unconverted, the glue keeps the long names and
// the module fails to link, so the wrapper prints the old format.
function wasmOptWrapper(npmWasmOpt) {
  return `#!${process.execPath}
const { spawnSync } = require('node:child_process');
const args = process.argv.slice(2);
const r = spawnSync(process.execPath, [${JSON.stringify(npmWasmOpt)}, ...args], { stdio: ['inherit', 'pipe', 'inherit'], maxBuffer: 1 << 28 });
let out = r.stdout.toString();
if (r.status === 0 && args.some((a) => a.startsWith('--minify-imports'))) {
  const m = JSON.parse(out.slice(out.indexOf('{')));
  out = [...(m.imports ?? []).map(([, base, name]) => base + ' => ' + name), ...(m.exports ?? []).map(([old, name]) => old + ' => ' + name)].join('\\n') + '\\n';
}
process.stdout.write(out);
process.exit(r.status ?? 1);
`
}

// Every engine is the same sources built with other flags; dist/ gets <name>.js + <name>.wasm of each.
const engines = [
  { name: 'attention', dir: 'build/wasm', flags: [], env: () => emEnv },
  { name: 'attention-relaxed', dir: 'build/wasm-relaxed', flags: ['-DAP_RELAXED_SIMD=ON'], env: relaxedEnv },
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
  if (!stale(`${e.dir}/attention.wasm`, [...coreInputs, 'src/bindings'])) continue
  const env = e.env()
  sh(
    'emcmake',
    [
      'cmake',
      '-S',
      '.',
      '-B',
      e.dir,
      '-DCMAKE_BUILD_TYPE=Release',
      '-DCMAKE_FIND_ROOT_PATH_MODE_PACKAGE=BOTH',
      ...e.flags,
    ],
    env,
  )
  sh('cmake', ['--build', e.dir, '--target', 'attention', '-j', jobs], env)
}

const distStale = engines.some((e) => mtime(`dist/${e.name}.wasm`) < mtime(`${e.dir}/attention.wasm`))
if (stale('dist/index.js', ['src/js', 'tsconfig.json']) || distStale) {
  mkdirSync(join(root, 'dist'), { recursive: true })
  for (const e of engines) {
    copyFileSync(join(root, e.dir, 'attention.wasm'), join(root, `dist/${e.name}.wasm`))
    // The glue fetches "attention.wasm" by default; index.ts always passes the file it means.
    let glue = readFileSync(join(root, e.dir, 'attention.js'), 'utf8')
    if (e.worker) {
      // Bundlers turn a literal new Worker(new URL('…', import.meta.url)) into a worker bundle of their own; the
      // pthread worker is Emscripten's script, used as is (index.ts always says where it is), so hide the literal.
      const literal = 'new URL("attention.worker.js",import.meta.url)'
      if (!glue.includes(literal))
        throw new Error(`build: ${e.dir}/attention.js no longer has ${literal}; update build.mjs`)
      glue = glue.replaceAll(literal, `new URL(["${e.name}.worker.js"][0],import.meta.url)`)
    }
    writeFileSync(join(root, `dist/${e.name}.js`), glue)
    copyFileSync(join(root, 'src/js/attention.d.ts'), join(root, `dist/${e.name}.d.ts`))
    if (e.worker) copyFileSync(join(root, e.dir, 'attention.worker.js'), join(root, `dist/${e.name}.worker.js`))
  }
  sh('node', [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'])
}

if (
  existsSync(join(root, 'vite.widget.config.ts')) &&
  stale('dist/widget/widget.js', ['web', 'src/js', 'vite.widget.config.ts', 'dist/attention.wasm'])
) {
  sh('node', [join(root, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'vite.widget.config.ts'])
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
