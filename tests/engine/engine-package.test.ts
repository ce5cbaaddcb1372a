// Loading: the package must work in Node >= 20 with a plain init(), and one module instance must
// serve many calls; init({ wasmBinary }) gives a fresh instance each time.
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
