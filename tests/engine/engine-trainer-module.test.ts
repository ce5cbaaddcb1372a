// The trainer module (issue 38 item 4): the page's engine leaves the trainers out (src/bindings/train*.cpp are
// linked into dist/attention-train*.wasm only); createTrainer works once ap.loadTrainer() has loaded it, which
// init() does by itself in Node; without it createTrainer says what to do; and the page's engines stay within
// their gzip budgets: the single-thread ones (what a page without cross-origin isolation loads) within issue 38's
// 150,000 bytes, the threaded one within the older 185,000.
import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { gzipSync } from 'node:zlib'
import { AttentionError, init } from '../../dist/index.js'
import { PAGE_ENGINE_GOAL, WASM_GZIP_BUDGET } from '../../scripts/bench-doc.mjs'

const dist = (f: string) => readFileSync(new URL(`../../dist/${f}`, import.meta.url))

describe('the trainer module', () => {
  it('is not in the page engine, and createTrainer asks for it until loadTrainer() has loaded it', async () => {
    const ap = await init({ backend: 'simd128', trainer: false })
    expect(ap.trainerLoaded).toBe(false)
    expect(ap.trainerModule).toBeUndefined()
    expect(ap.module.TrainerHandle).toBeUndefined()
    expect(() => ap.createTrainer({ task: 'reverse', seed: 1 })).toThrow(AttentionError)
    expect(() => ap.createTrainer({ task: 'reverse', seed: 1 })).toThrow(/await ap\.loadTrainer\(\)/)
    // The page engine keeps working after the refusal.
    expect(ap.run({ text: 'a b c' }).tokens).toEqual(['a', 'b', 'c'])
    // one load, however many callers; each resolves to the engine
    const [x, y] = await Promise.all([ap.loadTrainer(), ap.loadTrainer()])
    expect(x).toBe(ap)
    expect(y).toBe(ap)
    expect(ap.trainerLoaded).toBe(true)
    const loaded = ap.trainerModule
    expect(await ap.loadTrainer()).toBe(ap)
    expect(ap.trainerModule).toBe(loaded)
    expect(typeof ap.trainerModule?.TrainerHandle).toBe('function')
    expect(ap.trainerModule?.backend()).toBe('simd128')
    // Equal, step by step, to a trainer of an engine that loaded the module at init (Node's default).
    const other = await init({ backend: 'simd128' })
    expect(other.trainerLoaded).toBe(true)
    const a = ap.createTrainer({ task: 'reverse', seed: 1 })
    const b = other.createTrainer({ task: 'reverse', seed: 1 })
    const la = [a.step(3).loss, a.step(3).loss]
    const lb = [b.step(3).loss, b.step(3).loss]
    expect(la).toEqual(lb)
    expect(Number.isFinite(la[1])).toBe(true)
    // memoryStats counts both modules: a live trainer's memory is in it, and is given back on dispose.
    const held = ap.memoryStats().allocatedBytes
    a.dispose()
    expect(ap.memoryStats().allocatedBytes).toBeLessThan(held)
    expect(ap.memoryStats().allocatedBytes).toBe(
      ap.module.memoryStats().allocatedBytes + ap.trainerModule!.memoryStats().allocatedBytes,
    )
    b.dispose()
  })

  it('the page engines are within their gzip budgets without the trainers (single-thread: issue 38 item 4)', () => {
    for (const [f, budget] of [
      ['attention.wasm', PAGE_ENGINE_GOAL],
      ['attention-relaxed.wasm', PAGE_ENGINE_GOAL],
      ['attention-threads.wasm', WASM_GZIP_BUDGET],
    ] as const) {
      const gz = gzipSync(dist(f), { level: 9 }).length
      expect(gz, `${f}: ${gz} bytes gzipped`).toBeLessThanOrEqual(budget)
      // embind's class names are strings in the module's data: the trainer's class is not there
      expect(dist(f).includes('TrainerHandle'), f).toBe(false)
    }
    // and the trainers are where they went: a module of their own per single-thread engine
    for (const f of ['attention-train.wasm', 'attention-train-relaxed.wasm']) {
      expect(dist(f).includes('TrainerHandle'), f).toBe(true)
    }
  })
})
