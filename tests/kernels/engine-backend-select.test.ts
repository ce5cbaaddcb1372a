// init() picks the engine by feature detection and refuses what the runtime cannot run. This file runs in
// both engine projects (tests/kernels/): Node 20 without a flag (SIMD128) and with --experimental-wasm-relaxed-simd.
import { describe, expect, it } from 'vitest'
import { init, supportsRelaxedSimd } from '../../dist/index.js'

const flag = process.execArgv.includes('--experimental-wasm-relaxed-simd')

describe('engine selection', () => {
  it('detects relaxed SIMD exactly when Node has the flag', () => {
    expect(supportsRelaxedSimd()).toBe(flag)
  })

  it('a plain init() runs the fastest engine the runtime has, on one thread (Node is never cross-origin isolated)', async () => {
    const ap = await init()
    expect(ap.backend).toBe(flag ? 'relaxed-simd' : 'simd128')
    expect(ap.threads).toBe(1)
    expect(ap.module.backend()).toBe(ap.backend)
    expect(ap.backendInfo).toBe(`${ap.backend}, 1 thread: Node`)
  })

  it('forcing an engine the runtime cannot run is an error naming the fix', async () => {
    if (flag) {
      expect((await init({ backend: 'relaxed-simd' })).backend).toBe('relaxed-simd')
    } else {
      await expect(init({ backend: 'relaxed-simd' })).rejects.toThrow(
        /backend 'relaxed-simd' is not supported.*--experimental-wasm-relaxed-simd/,
      )
    }
    expect((await init({ backend: 'simd128' })).backend).toBe('simd128')
    await expect(init({ backend: 'avx' as never })).rejects.toThrow(
      /init: backend must be 'relaxed-simd' or 'simd128', got "avx"/,
    )
  })

  it('threads need a cross-origin isolated page; bad counts are errors; the module keeps working', async () => {
    await expect(init({ threads: 2 })).rejects.toThrow(
      /threads: 2 needs a cross-origin isolated page \(Cross-Origin-Opener-Policy: same-origin/,
    )
    await expect(init({ threads: 0 })).rejects.toThrow(/init: threads must be an integer ≥ 1, got 0/)
    const ap = await init({ threads: 1 })
    expect(ap.backendInfo).toBe(`${ap.backend}, 1 thread: init({ threads: 1 })`)
    expect(() => ap.setThreads(2)).toThrow(/setThreads: n must be an integer from 1 to 1, got 2/)
    expect(ap.setThreads(1)).toBe(1)
    const r = ap.attention({
      query: [[1, 0]],
      key: [
        [1, 0],
        [0, 1],
      ],
      value: [[1], [2]],
    })
    expect(r.output.shape).toEqual([1, 1])
  })

  it('scores come back only with needScores: true', async () => {
    const ap = await init()
    const o = {
      query: [
        [1, 0],
        [0, 1],
      ],
      key: [
        [1, 0],
        [0, 1],
      ],
      value: [[1], [2]],
      mask: 'causal' as const,
    }
    const plain = ap.attention(o)
    expect(plain.scores).toBeUndefined()
    expect(plain.maskedScores).toBeUndefined()
    expect(plain.weights!.shape).toEqual([2, 2])
    const full = ap.attention({ ...o, needScores: true })
    expect(Array.from(full.scores!.data)).toEqual([1, 0, 0, 1])
    expect(Array.from(full.maskedScores!.data)).toEqual([
      Math.fround(1 / Math.SQRT2),
      -Infinity,
      0,
      Math.fround(1 / Math.SQRT2),
    ])
    expect(full.weights!.data).toEqual(plain.weights!.data)
    expect(() => ap.attention({ ...o, needWeights: false, needScores: true })).toThrow(
      /needScores: true needs needWeights: true/,
    )
  })
})
