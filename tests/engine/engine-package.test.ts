// Loading: the package must work in Node >= 20 with a plain init(), and one module instance must
// serve many calls; init({ wasmBinary }) gives a fresh instance each time, and so does init({ backend, wasmModule })
// (the engine compiled already: what the site's head starts, web/early-engine.ts).
import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { init } from '../../dist/index.js'
import { expectCourseProgram, getAp, plainInitError } from '../support/helpers'

describe('init()', () => {
  it('works in Node with no arguments', async () => {
    await getAp()
    expect(plainInitError, `init() failed in Node: ${plainInitError}`).toBeUndefined()
    const ap = await init()
    expectCourseProgram(ap)
  })

  it('init() with no options shares one engine; init({ wasmBinary }) makes a new, independent one', async () => {
    expect(await init()).toBe(await init())
    const bytes = readFileSync(new URL('../../dist/attention.wasm', import.meta.url))
    const a = await init({ wasmBinary: bytes })
    const b = await init({ wasmBinary: bytes })
    expect(a).not.toBe(b)
    expect(a.module).not.toBe(b.module)
    expect(a.module).not.toBe((await init()).module)
    // Work on one leaves the other intact (separate wasm memories), and both answer correctly.
    const t = a.createTrainer({ task: 'coreference', seed: 3 })
    t.step(5)
    expectCourseProgram(a)
    expectCourseProgram(b)
    t.dispose()
  })
})

describe('init({ backend, wasmModule })', () => {
  const bytes = readFileSync(new URL('../../dist/attention.wasm', import.meta.url))

  it('runs the module given, or the one its promise gives: a new instance with the course numbers', async () => {
    const compiled = await WebAssembly.compile(bytes)
    const a = await init({ backend: 'simd128', wasmModule: compiled })
    const b = await init({ backend: 'simd128', wasmModule: WebAssembly.compile(bytes) })
    expect(a.backend).toBe('simd128')
    expect(a.module).not.toBe(b.module)
    expect(a.module).not.toBe((await init()).module)
    expectCourseProgram(a)
    expectCourseProgram(b)
  })

  it('names what is wrong; the package keeps working after each', async () => {
    const module = await WebAssembly.compile(bytes)
    const rejected = Promise.reject(new Error('HTTP 404 for /assets/x.wasm'))
    rejected.catch(() => {}) // read by init() when its turn comes; not an unhandled rejection before then
    const cases: [Parameters<typeof init>[0], RegExp][] = [
      [{ wasmModule: module }, /^init: wasmModule needs backend: the engine it was compiled from/],
      [
        { backend: 'simd128', wasmModule: module, wasmBinary: bytes },
        /^init: give wasmModule or wasmBinary, not both$/,
      ],
      [
        { backend: 'simd128', wasmModule: bytes as unknown as WebAssembly.Module },
        /^init: wasmModule must be a WebAssembly.Module or a promise of one, got Buffer$/,
      ],
      [{ backend: 'simd128', wasmModule: rejected }, /^init: wasmModule was rejected: HTTP 404 for \/assets\/x.wasm$/],
      [
        // A module of another program: the glue's imports are not what it asks for.
        { backend: 'simd128', wasmModule: WebAssembly.compile(minimalModuleImporting('env', 'nope')) },
        /^init: wasmModule could not be instantiated as attention.wasm \(compile the module from that file\): (TypeError|LinkError): WebAssembly.instantiate\(\): Import #0 /,
      ],
    ]
    for (const [options, message] of cases) {
      const e = await init(options).then(
        () => null,
        (e: unknown) => e,
      )
      expect(e, JSON.stringify(Object.keys(options ?? {}))).toBeInstanceOf(Error)
      expect((e as Error).name).toBe('AttentionError')
      expect((e as Error).message).toMatch(message)
      expectCourseProgram(await init())
    }
  })
})

/** The smallest module that imports one function (module.name: () -> ()). */
function minimalModuleImporting(module: string, name: string): Uint8Array<ArrayBuffer> {
  const str = (s: string) => [s.length, ...Buffer.from(s)]
  const section = (id: number, body: number[]) => [id, body.length, ...body]
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, [1, 0x60, 0, 0]), // one type: () -> ()
    ...section(2, [1, ...str(module), ...str(name), 0x00, 0]), // import a function of type 0
  ])
}
