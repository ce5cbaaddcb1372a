// Every work-around for Debian 12's WebAssembly toolchain, in one place: Emscripten 3.1.6 (with its clang 14
// and Debian's binaryen 108), plus npm's binaryen 132 and Debian's clang-16 for the relaxed-SIMD engines.
// scripts/build.mjs and bench/wasm_harness/build.sh take their environment from here; the CMake side is
// cmake/Toolchain.cmake. Each entry says what it works around and how to drop it on a current emsdk (one
// whose clang, 16 or later, and binaryen know the final relaxed-SIMD opcodes).
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

/**
 * The PATH without node_modules/.bin. npm scripts put it first, and there npm's binaryen (132, installed for
 * the relaxed engines) shadows Debian's wasm-opt, whose import-rename output Emscripten 3.1.6 cannot read.
 * Drop on a current emsdk: emcc finds binaryen through its own config (BINARYEN_ROOT), never the PATH.
 */
export function plainPath(path = process.env.PATH ?? '') {
  return path
    .split(':')
    .filter((p) => !p.endsWith('/node_modules/.bin'))
    .join(':')
}

/**
 * The environment of the plain SIMD128 build. Debian's emcc runs its JavaScript tools with the system node,
 * which finds Debian's acorn and friends only through NODE_PATH. Drop on a current emsdk (it bundles them).
 */
export function plainEnv() {
  return { PATH: plainPath(), NODE_PATH: process.env.NODE_PATH ?? '/usr/share/nodejs' }
}

/**
 * CMake flags for emcmake. emcmake confines find_package to Emscripten's sysroot; Eigen is Debian's
 * (/usr/include/eigen3, header-only), so packages are also looked up outside it. Still needed on a current
 * emsdk unless Eigen is installed into its sysroot.
 */
export const EMCMAKE_FLAGS = ['-DCMAKE_FIND_ROOT_PATH_MODE_PACKAGE=BOTH']

/**
 * The environment of the relaxed-SIMD engines (relaxed, and relaxed with threads):
 * - clang 14 (Emscripten 3.1.6's) knows only the pre-standard relaxed opcodes: emcc uses Debian's clang-16
 *   and wasm-ld-16 (EM_LLVM_ADD_VERSION, EM_CLANG_ADD_VERSION).
 * - Debian's binaryen 108 cannot parse the final opcodes: emcc runs binaryen's tools by name from the PATH,
 *   so build/tools/binaryen/bin/ (first on it) holds wrappers running npm's binaryen 132 (wasm programs run by
 *   node), wasm-opt's through wasmOptWrapper below.
 * - binaryen 108's wasm-emscripten-finalize would still be run to read the metadata: EMCC_READ_METADATA=python
 *   lets emcc read it itself (with -sWASM_BIGINT, cmake/Toolchain.cmake, nothing is left for finalize to do).
 * Drop all three on a current emsdk: its clang and binaryen know the final opcodes; build with plainEnv().
 */
export function relaxedEnv() {
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
    ...plainEnv(),
    PATH: `${wrappers}:${plainPath()}`,
    EM_LLVM_ADD_VERSION: '16',
    EM_CLANG_ADD_VERSION: '16',
    EMCC_READ_METADATA: 'python',
  }
}

/**
 * The output rewriter of npm's wasm-opt. emcc 3.1.6 minifies the wasm's import and export names with wasm-opt
 * --minify-imports-and-exports* and reads the renaming from its output as "old => new" lines; binaryen 132
 * prints JSON instead ({ imports: [[module, base, new]], exports: [[old, new]] }). Unconverted, the glue keeps
 * the long names and the module fails to link, so the wrapper prints the old format. Drop on a current emsdk
 * (emcc and binaryen agree on the format).
 */
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

/**
 * The threaded engine's glue as the package ships it. Emscripten 3.1.6 starts its pthreads from a separate
 * script with a literal new URL("attention.worker.js", import.meta.url); bundlers turn such a literal into a
 * worker bundle of their own, but that script must be used as it is (src/js/loader.ts always says where it is), so
 * the literal is hidden behind an array. Drop on an emsdk whose pthread glue starts its workers from itself
 * (no attention.worker.js is written then); check the bundler tests (tests/e2e/bundlers.test.ts) then.
 */
export function threadGlue(glue, engineName) {
  const literal = 'new URL("attention.worker.js",import.meta.url)'
  if (!glue.includes(literal)) {
    throw new Error(`build: the threaded glue no longer has ${literal}; update scripts/toolchain.mjs`)
  }
  return glue.replaceAll(literal, `new URL(["${engineName}.worker.js"][0],import.meta.url)`)
}

/**
 * The literal wasm URL of Emscripten's glue, which the widget build (vite.widget.config.ts) rewrites: the glue
 * names the file it was linked as (`new URL("attention.wasm", import.meta.url)`, whatever the engine), and the
 * widget resolves it at run time from beside the package instead. A new RegExp per call (it is global, so
 * test() moves its lastIndex). Check it on a current emsdk (its glue has kept the same literal so far).
 */
export const glueWasmUrl = () => /new URL\((['"])attention(?:-train)?\.wasm\1,\s*import\.meta\.url\)/g

// `node scripts/toolchain.mjs plain-env` (or `relaxed-env`) prints plainEnv() (relaxedEnv()) as shell exports
// (bench/wasm_harness/build.sh).
const envCommands = { 'plain-env': plainEnv, 'relaxed-env': relaxedEnv }
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1] && process.argv[2] in envCommands) {
  const quote = (v) => `'${v.replaceAll("'", "'\\''")}'`
  for (const [k, v] of Object.entries(envCommands[process.argv[2]]())) process.stdout.write(`export ${k}=${quote(v)}\n`)
}
