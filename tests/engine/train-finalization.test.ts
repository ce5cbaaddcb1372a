// A trainer dropped without dispose() is freed by the FinalizationRegistry fallback: run in a child
// Node with --expose-gc (vitest's workers have no gc()), create and drop trainers, collect, and check
// that the wasm allocator got its memory back.
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const dist = fileURLToPath(new URL('../../dist/', import.meta.url))

const script = `
const { readFileSync } = await import('node:fs')
const { init } = await import(${JSON.stringify(dist + 'index.js')})
const { createTrainerFor } = await import(${JSON.stringify(dist + 'trainer.js')})
const ap = await init({ wasmBinary: readFileSync(${JSON.stringify(dist + 'attention.wasm')}) })
const create = (o) => (typeof ap.createTrainer === 'function' ? ap.createTrainer(o) : createTrainerFor(ap.module, o))
const settle = async () => { for (let i = 0; i < 20; i++) { globalThis.gc(); await new Promise((r) => setTimeout(r, 5)) } }
create({ task: 'reverse' }).dispose()
await settle()
const before = ap.memoryStats().allocatedBytes
;(() => { for (let i = 0; i < 30; i++) create({ task: 'reverse' }).step(1) })()
const held = ap.memoryStats().allocatedBytes
await settle()
const after = ap.memoryStats().allocatedBytes
console.log(JSON.stringify({ before, held, after }))
`

describe('trainer finalization', () => {
  it('frees dropped trainers after garbage collection', () => {
    const out = execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], {
      encoding: 'utf8',
    })
    const { before, held, after } = JSON.parse(out.trim().split('\n').pop()!)
    expect(held - before).toBeGreaterThan(1_000_000) // 30 live trainers (their data sets and weights) hold real memory
    expect(after - before).toBeLessThan(64 * 1024)
  })
})
