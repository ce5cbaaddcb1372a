// The shipped types compile in a user's TypeScript project as they commonly are set up: `lib` es2020, es2022
// or esnext (+ dom), strict, with and without skipLibCheck, moduleResolution bundler and node16, against the
// PACKED package installed with npm. `using` works where the lib has Symbol.dispose.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import ts from 'typescript'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { installTarball, packTarball } from '../support/packed'

let work: string

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'ap-types-'))
  installTarball(packTarball(work), work)
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
}, 180_000)

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true })
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
