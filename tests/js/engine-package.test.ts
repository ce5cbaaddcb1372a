// Loading: the package must work in Node >= 20 with a plain init(), and one
// module instance must serve many calls.
import { describe, expect, it } from 'vitest'
import { init } from '../../dist/index.js'
import { expectCourseProgram, getAp, plainInitError } from './helpers'

describe('init()', () => {
  it('works in Node with no arguments', async () => {
    await getAp()
    expect(plainInitError, `init() failed in Node: ${plainInitError}`).toBeUndefined()
    const ap = await init()
    expectCourseProgram(ap)
  })

  it('called twice, both engines answer correctly', async () => {
    const a = await getAp()
    const b = await init()
    expectCourseProgram(a)
    expectCourseProgram(b)
  })
})
