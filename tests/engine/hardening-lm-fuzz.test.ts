// Fuzzing the language-model reader (ap.loadLanguageModel: src/js/safetensors.ts, then src/core/lm_load.cpp in wasm)
// with mutants of the committed model files (tests/support/file-mutants.ts, fuzzFiles): nanogpt-raw.safetensors (a
// checkpoint as torch saved it: _orig_mod. names, attn.bias buffers, lm_head equal to wte) and lm-rope.safetensors (rope,
// no biases, untied… tied by absence). Every input must end in an AttentionError naming what it blames (at most 400
// characters) or a model that works (forward's logits [n, vocab] finite, a few tokens generated) — never another
// exception, a trap, a hang or memory left behind: malloc'd wasm bytes return to where they were after every input
// (the model disposed), and the wasm and JS heaps grow by a bounded amount over the run. Failing inputs are saved to
// tests/fuzz/file-regressions/language-models/ and replayed first from then on.
import { readFileSync } from 'node:fs'
import { runInNewContext } from 'node:vm'
import { setFlagsFromString } from 'node:v8'
import { describe, expect, it } from 'vitest'
import { AttentionError, type Engine } from '../../dist/index.js'
import { ap, useEngine } from '../support/helpers'
import {
  fuzzFiles,
  mutant,
  savedInputs,
  FUZZ_MIN_INPUTS as MIN_INPUTS,
  FUZZ_SECONDS as SECONDS,
} from '../support/file-mutants'

const SEED = 37_000_000
const REGRESSIONS = new URL('../fuzz/file-regressions/language-models/', import.meta.url)
const HANG_MS = 10_000
const BASES = ['nanogpt-raw.safetensors', 'lm-rope.safetensors'].map((name) => ({
  name,
  bytes: new Uint8Array(readFileSync(new URL(`../fixtures/lm/${name}`, import.meta.url))),
}))

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

useEngine()

function isDocumented(e: unknown): boolean {
  return e instanceof AttentionError && e.message.length <= 400 && /^\S[^\n]*?: \S/.test(e.message)
}

/** Opens one input as the page would and uses the model; 'ok' / 'error', or throws a description of a failure. */
function runInput(engine: Engine, bytes: Uint8Array): 'ok' | 'error' {
  const before = engine.memoryStats().allocatedBytes
  const t0 = performance.now()
  let outcome: 'ok' | 'error' = 'ok'
  try {
    using m = engine.loadLanguageModel(bytes)
    const c = m.config
    const n = Math.min(4, c.context)
    const ids = Array.from({ length: n }, (_, i) => i % c.vocabSize)
    const { logits } = m.forward(ids)
    if (logits.shape[0] !== n || logits.shape[1] !== c.vocabSize)
      throw new Error(`logits ${JSON.stringify(logits.shape)}`)
    if (!logits.data.every(Number.isFinite)) throw new Error('non-finite logits from a model that loaded')
    if (m.vocab.length !== c.vocabSize) throw new Error('vocab length')
    const g = m.generate({ prompt: [0], maxTokens: Math.min(3, c.context - 1), temperature: 0, stop: null })
    if (g.ids.some((id) => !(id >= 0 && id < c.vocabSize))) throw new Error('generated an id outside the vocabulary')
  } catch (e) {
    if (!isDocumented(e)) {
      const err = e as Error
      throw new Error(`${err?.name}: ${String(err?.message).slice(0, 300)}`, { cause: e })
    }
    outcome = 'error'
  }
  const ms = performance.now() - t0
  if (ms > HANG_MS) throw new Error(`took ${Math.round(ms)} ms (a hang: over ${HANG_MS} ms)`)
  const after = engine.memoryStats().allocatedBytes
  if (after !== before) throw new Error(`malloc'd wasm bytes ${before} → ${after}`)
  return outcome
}

describe('language-model files: mutants of real files through ap.loadLanguageModel', () => {
  it('the unmutated files open', () => {
    for (const b of BASES) expect(runInput(ap, b.bytes), b.name).toBe('ok')
  })

  it('every saved regression input ends in an AttentionError or a working model', () => {
    for (const f of savedInputs(REGRESSIONS)) {
      expect(['ok', 'error']).toContain(runInput(ap, new Uint8Array(readFileSync(new URL(f, REGRESSIONS)))))
    }
  })

  it(
    `mutants for ${SECONDS} s (AP_FUZZ_SECONDS), at least ${MIN_INPUTS}: an AttentionError or a working model, never a trap, a hang or a leak`,
    { timeout: SECONDS * 1000 + 120_000 },
    async () => {
      for (let i = 0; i < 20; i++) {
        try {
          runInput(ap, mutant(SEED + i, BASES).bytes)
        } catch {
          // judged again in the run
        }
      }
      gc()
      const heap0 = process.memoryUsage().heapUsed
      const wasm0 = ap.memoryStats().heapBytes
      const { inputs, counts, failures } = await fuzzFiles({
        seed: SEED,
        bases: BASES,
        dir: REGRESSIONS,
        run: (bytes) => runInput(ap, bytes),
      })
      gc()
      const heapGrowth = process.memoryUsage().heapUsed - heap0
      const wasmGrowth = ap.memoryStats().heapBytes - wasm0
      console.log(
        `language-model fuzz: ${inputs} inputs (${counts.ok} working models, ${counts.error} AttentionError); ` +
          `JS heap ${(heapGrowth / 2 ** 20).toFixed(1)} MiB, wasm heap +${wasmGrowth} bytes`,
      )
      expect(failures).toEqual([])
      expect(counts.ok).toBeGreaterThan(0)
      expect(counts.error).toBeGreaterThan(0)
      expect(heapGrowth).toBeLessThan(32 * 2 ** 20)
      expect(wasmGrowth).toBeLessThanOrEqual(64 * 2 ** 20)
    },
  )
})
