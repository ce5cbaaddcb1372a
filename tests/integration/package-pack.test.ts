// The published shape of the package, from one `npm pack` installed into an empty folder: the tarball's files, the
// course program run there (Node, ESM, exports map), the notebook helper pip installs from it, its types compiled
// under common tsconfig settings, and the shipped .wasm really holding SIMD128 instructions.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import ts from 'typescript'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { courseWeights, installTarball, packTarball, ROOT as root } from '../support/packed'
import { requireCommand } from '../support/tools'
import { functionBodies, type FunctionBody } from '../support/wasm-code'

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
    for (const f of [
      'index.js',
      'index.d.ts',
      'attention.js',
      'attention.wasm',
      'types.d.ts',
      'util.js',
      'languageModel.js',
      'languageModel.d.ts',
    ]) {
      expect(listing, f).toContain(`package/dist/${f}`)
    }
    expect(listing).toContain('package/README.md')
    // The exporter, at the same path as in the repository (course notebooks import it from there).
    expect(listing).toContain('package/python/export_attention.py')
    // The notebook helper: `pip install node_modules/attention-playground/python` (see python-package below).
    for (const f of [
      'pyproject.toml',
      'attention_playground/__init__.py',
      'attention_playground/exporter.py',
      'attention_playground/nanogpt.py',
      'attention_playground/loader.js',
      'attention_playground/assets/widget.js.gz',
      'attention_playground/assets/attention.wasm.gz',
      'attention_playground/assets/attributes.json',
    ]) {
      expect(listing, f).toContain(`package/python/${f}`)
    }
    expect(listing.some((f) => f.includes('__pycache__') || f.endsWith('.pyc'))).toBe(false)
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

  it('ships the notebook helper: pip installs it from node_modules/attention-playground/python, and it works', () => {
    const py = requireCommand('/usr/bin/python3', 'python3-pip', ['-m', 'pip', '--version'])
    const site = join(work, 'py-site')
    const src = join(work, 'node_modules/attention-playground/python')
    execFileSync(
      py,
      ['-m', 'pip', 'install', '--no-deps', '--no-build-isolation', '--no-index', '--target', site, src],
      {
        cwd: work,
        stdio: 'pipe',
        timeout: 120_000,
      },
    )
    const code =
      'import json, attention_playground as ap; h = ap.show_run("this is my cat")._repr_html_(); ' +
      'print(json.dumps({"file": ap.__file__, "n": len(h), "attrs": len(ap.attributes())}))'
    const got = JSON.parse(
      execFileSync(py, ['-c', code], { cwd: work, env: { ...process.env, PYTHONPATH: site }, encoding: 'utf8' }),
    )
    expect(got.file).toBe(join(site, 'attention_playground/__init__.py'))
    // The widget and the engine inlined (gzip, base64) as the package's own build wrote them.
    const gz = ['widget.js.gz', 'attention.wasm.gz'].map((f) =>
      readFileSync(join(src, 'attention_playground/assets', f)),
    )
    expect(got.n).toBeGreaterThan(((gz[0].length + gz[1].length) * 4) / 3)
    expect(got.attrs).toBeGreaterThan(10)
  }, 150_000)

  it('resolves through the exports map and its types', () => {
    const pkg = JSON.parse(readFileSync(join(work, 'node_modules/attention-playground/package.json'), 'utf8'))
    expect(pkg.exports['.'].types).toBe('./dist/index.d.ts')
    expect(existsSync(join(work, 'node_modules/attention-playground/dist/index.d.ts'))).toBe(true)
    const dts = readFileSync(join(work, 'node_modules/attention-playground/dist/index.d.ts'), 'utf8')
    expect(dts).toMatch(/export declare function init/)
    // Deep imports outside the map are refused, as users of a real package expect.
    writeFileSync(join(work, 'deep.mjs'), "import 'attention-playground/dist/util.js'")
    expect(() => execFileSync('node', ['deep.mjs'], { cwd: work, stdio: 'pipe' })).toThrow(
      /ERR_PACKAGE_PATH_NOT_EXPORTED/,
    )
  })
})

// One compiler host for every configuration: the lib files are parsed once, not twelve times.
const cache = new Map<string, ts.SourceFile | undefined>()
const libDir = dirname(ts.getDefaultLibFilePath({}))
function typeErrors(files: string[], options: ts.CompilerOptions): string[] {
  const host = ts.createCompilerHost(options, true)
  const read = host.getSourceFile
  host.getSourceFile = (name, lang, ...rest) => {
    // Only TypeScript's own lib files: the others' parse depends on the module mode (ESM or CommonJS).
    if (!name.startsWith(libDir)) return read.call(host, name, lang, ...rest)
    const key = `${typeof lang === 'object' ? lang.languageVersion : lang}:${name}`
    if (!cache.has(key)) cache.set(key, read.call(host, name, lang, ...rest))
    return cache.get(key)
  }
  const program = ts.createProgram(
    files.map((f) => join(work, f)),
    options,
    host,
  )
  return ts
    .getPreEmitDiagnostics(program)
    .map(
      (d) =>
        ts.flattenDiagnosticMessageText(d.messageText, '\n') +
        (d.file ? ` (${d.file.fileName.replace(work, '')})` : ''),
    )
}

const LIBS = {
  es2020: ['lib.es2020.d.ts', 'lib.dom.d.ts'],
  es2022: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
  esnext: ['lib.esnext.d.ts', 'lib.dom.d.ts'],
}
const RESOLUTION = {
  bundler: { module: ts.ModuleKind.ES2022, moduleResolution: ts.ModuleResolutionKind.Bundler },
  node16: { module: ts.ModuleKind.Node16, moduleResolution: ts.ModuleResolutionKind.Node16 },
}

describe('the packed types under common tsconfig settings', () => {
  beforeAll(() => {
    // What a consumer writes: the engine, its trainer (the member that once needed lib esnext) and the widget.
    const common = `
import { init, AttentionError } from 'attention-playground'
import type { Trace, Trainer } from 'attention-playground'
import 'attention-playground/widget'
import type { AttentionPlaygroundElement } from 'attention-playground/widget'

const ap = await init()
const t: Trace = ap.run({ text: 'this is my cat', mask: 'causal' })
const w: Float32Array = t.weights.data
const tr: Trainer = ap.createTrainer({ task: 'coreference', seed: 0 })
const s: number = tr.step(1).loss
tr[Symbol.dispose]()
const el: AttentionPlaygroundElement | null = document.querySelector('attention-playground')
export const used = [w, s, el, AttentionError]
`
    writeFileSync(join(work, 'consumer.ts'), common)
    writeFileSync(
      join(work, 'using.ts'),
      `
import { init } from 'attention-playground'
const ap = await init()
export function train(): number {
  using tr = ap.createTrainer({ task: 'reverse', seed: 1 })
  return tr.step(2).accuracy
}
`,
    )
  })

  for (const [lib, libFiles] of Object.entries(LIBS)) {
    for (const [resolution, mod] of Object.entries(RESOLUTION)) {
      for (const skipLibCheck of [false, true]) {
        it(`lib ${lib} + dom, moduleResolution ${resolution}, skipLibCheck ${skipLibCheck}`, () => {
          const options: ts.CompilerOptions = {
            ...mod,
            target: lib === 'esnext' ? ts.ScriptTarget.ESNext : ts.ScriptTarget.ES2020,
            lib: libFiles,
            strict: true,
            noEmit: true,
            skipLibCheck,
            types: [], // no @types/node: it declares Symbol.dispose itself and would hide a missing declaration
          }
          const files = lib === 'esnext' ? ['consumer.ts', 'using.ts'] : ['consumer.ts']
          expect(typeErrors(files, options)).toEqual([])
        }, 240_000) // without skipLibCheck tsc checks lib.dom.d.ts too: ~5 s of CPU, far longer on a busy machine
      }
    }
  }

  it('a type error in the consumer is reported (the check is live)', () => {
    writeFileSync(
      join(work, 'wrong.ts'),
      "import { init } from 'attention-playground'\nexport const n: number = init\n",
    )
    const errors = typeErrors(['wrong.ts'], {
      ...RESOLUTION.bundler,
      target: ts.ScriptTarget.ES2020,
      lib: LIBS.es2020,
      strict: true,
      noEmit: true,
      types: [],
    })
    expect(errors.join('\n')).toMatch(/not assignable to type 'number'/)
  }, 120_000)
})

describe('the shipped .wasm', () => {
  const wasm = readFileSync(join(root, 'dist/attention.wasm'))

  it('its attention kernels are SIMD128 code: v128 instructions counted in their own functions', () => {
    // Which functions are the kernels: the symbol map emcc writes beside the build (--emit-symbol-map,
    // CMakeLists.txt); the shipped .wasm has no names. It must be the same binary as dist's.
    const built = join(root, 'build/wasm/attention.wasm')
    const symbols = join(root, 'build/wasm/attention.js.symbols')
    for (const f of [built, symbols])
      if (!existsSync(f)) throw new Error(`${f} is missing: rebuild with node scripts/build.mjs`)
    expect(Buffer.compare(readFileSync(built), wasm), 'dist/attention.wasm is not build/wasm/attention.wasm').toBe(0)
    const names = new Map<number, string>()
    for (const line of readFileSync(symbols, 'utf8').split('\n')) {
      const m = /^(\d+):(.*)$/.exec(line)
      if (m) names.set(Number(m[1]), m[2])
    }
    // Our own decoding of the code section: every defined function's body, by function index.
    const bodies = functionBodies(new Uint8Array(wasm))
    expect(bodies.length).toBeGreaterThan(100)
    // pv_rows, the P·V loops shared by weights_v, flash_attention and attention_weights, is a function of its own
    // (inlined into all three it cost 2.6 KB of the gzipped budget); weights_v must call it.
    const kernels = ['qkt', 'softmax_rows', 'flash_attention', 'attention_weights', 'pv_rows']
    const found = new Map<string, FunctionBody>()
    let weightsV: FunctionBody | undefined
    for (const b of bodies) {
      const name = names.get(b.index) ?? ''
      const m = /^ap::kernels::simd::(\w+)(\(|\\28)/.exec(name) // '(' is escaped as \28
      if (m && kernels.includes(m[1])) found.set(m[1], b)
      if (m?.[1] === 'weights_v') weightsV = b
      if (/^void\\20ap::kernels::detail::pv_rows<ap::kernels::simd::/.test(name)) found.set('pv_rows', b)
    }
    expect([...found.keys()].sort(), 'the SIMD kernels by name in the symbol map').toEqual([...kernels].sort())
    // The instructions inside those bodies, decoded by wabt's wasm-objdump (a v128 instruction is the
    // 0xFD prefix plus a LEB128 opcode and its immediates; a byte search would count immediates too).
    const objdump = requireCommand('wasm-objdump', 'wabt')
    const text = execFileSync(objdump, ['-d', join(root, 'dist/attention.wasm')], {
      encoding: 'utf8',
      maxBuffer: 1 << 30,
    })
    const perFunc = new Map<number, { first: number; ops: string[] }>()
    let cur: { first: number; ops: string[] } | undefined
    for (const line of text.split('\n')) {
      const head = /^[0-9a-f]+ func\[(\d+)\]/.exec(line)
      if (head) {
        cur = { first: -1, ops: [] }
        perFunc.set(Number(head[1]), cur)
        continue
      }
      const ins = /^ ([0-9a-f]+): [0-9a-f ]*\|\s+(\S+)(?:\s+(\d+))?/.exec(line)
      if (ins && cur) {
        if (cur.first < 0) cur.first = parseInt(ins[1], 16)
        cur.ops.push(ins[2] === 'call' ? `call ${ins[3]}` : ins[2])
      }
    }
    const SIMD = /^(v128|[fi](8x16|16x8|32x4|64x2))\./
    const counts: Record<string, number> = {}
    for (const [name, b] of found) {
      const f = perFunc.get(b.index)
      expect(f, `wasm-objdump lists func[${b.index}] (${name})`).toBeTruthy()
      // wabt and our decoder agree on where the function is
      expect(f!.first).toBeGreaterThan(b.start)
      expect(f!.first).toBeLessThan(b.end)
      counts[name] = f!.ops.filter((op) => SIMD.test(op)).length
      const mul = f!.ops.filter((op) => op === 'f32x4.mul').length
      // A scalar build of these functions has none. How many there are is the compiler's business (the numbers
      // are checked against the scalar twins by bench/wasm_harness and the engine tests), so no minimum.
      expect(mul, `${name}: f32x4.mul (${counts[name]} v128 instructions)`).toBeGreaterThan(0)
    }
    expect(weightsV, 'weights_v in the symbol map').toBeTruthy()
    expect(perFunc.get(weightsV!.index)?.ops, 'weights_v calls the SIMD pv_rows').toContain(
      `call ${found.get('pv_rows')!.index}`,
    )
    expect(WebAssembly.validate(new Uint8Array(wasm))).toBe(true)
  })
})
