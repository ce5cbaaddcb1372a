// The kernel harness (bench/wasm_harness) as bench scripts use it: built per engine (SIMD128, relaxed SIMD) and
// tile, each call of one of its harness_* exports in a fresh Node process (its JSON line back).
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const mtime = (f) => (existsSync(f) ? statSync(f).mtimeMs : 0)
const sources = () => [
  ...readdirSync(join(root, 'src/kernels')).map((f) => join(root, 'src/kernels', f)),
  ...['lm_products.cpp', 'lm_products.h', 'small_products.h'].map((f) => join(root, 'src/core', f)),
  join(root, 'bench/wasm_harness/harness.cpp'),
  join(root, 'bench/wasm_harness/build.sh'),
]

/**
 * The harness of one engine, built into `dir` as `name`.cjs when missing or older than the kernels' sources.
 * flags: extra compiler flags (e.g. -DAP_TILE_ROWS=4 for the tile sweep). web: the build for a Chromium worker
 * (`<name>-web.js`, bench/lm_bench.mjs), not Node.
 * @param {{ relaxed: boolean, name: string, dir?: string, flags?: string, rebuild?: boolean, web?: boolean }} o
 */
export function harnessBuild({
  relaxed,
  name,
  dir = join(root, 'build/h-kern-wasm'),
  flags = '',
  rebuild = true,
  web = false,
}) {
  const file = join(dir, web ? `${name}-web.js` : `${name}.cjs`)
  const stale = !existsSync(file) || (rebuild && Math.max(...sources().map(mtime)) > mtime(file))
  if (stale)
    execFileSync('bash', [join(root, 'bench/wasm_harness/build.sh'), dir], {
      env: {
        ...process.env,
        HARNESS_NAME: name,
        HARNESS_RELAXED: relaxed ? '1' : '',
        HARNESS_FLAGS: flags,
        HARNESS_WEB: web ? '1' : '',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    })
  return { relaxed, name, file }
}

/**
 * One call (e.g. `ceiling(64)`, `flash(512, 64, 15)`, `phases(512, 64, 15)`) in a fresh process: its JSON line.
 * @param {{ relaxed: boolean, name: string, file: string }} h
 * @param {string} call
 */
export function harnessCall(h, call) {
  const flags = h.relaxed ? ['--experimental-wasm-relaxed-simd'] : []
  const script = `const M = require(${JSON.stringify(h.file)}); M._harness_${call}`
  // --exports-only: the SIMD128 build's main would otherwise run its whole check and benchmark first.
  const r = spawnSync(process.execPath, [...flags, '-e', script, '-', '--exports-only'], { encoding: 'utf8' })
  const line = r.stdout.split('\n').find((l) => l.startsWith('{'))
  if (!line) throw new Error(`${h.name} ${call}: ${r.stderr || r.stdout}`)
  return JSON.parse(line)
}
