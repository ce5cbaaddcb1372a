// Fuzzing the model-file readers the page and the widget's `src` use (web/views/model-file.ts → src/js/safetensors.ts,
// src/js/attentionFile.ts) and the engine call the model view makes on what they return (web/compute/attention-file.ts
// → ap.attention in wasm), with mutants of the committed real files (tests/support/file-mutants.ts). Every input must end
// in an AttentionError (a message naming what it blames, at most 400 characters) or a file that holds what it
// claims (shapes equal to the tokens, finite values) — never another exception, a hang, a wasm trap or memory left
// behind: malloc'd wasm bytes return to where they were after every input, and the wasm heap and the JS heap (after
// a full collection) grow by a bounded amount over the run.
//
// Deterministic: input i is `mutant(SEED + i)`; the run lasts AP_FUZZ_SECONDS seconds (default 4; CI sets more), at
// least MIN_INPUTS inputs. A failing input is written to tests/fuzz/file-regressions/model-files/ (named by its seed) and
// the test fails; every file there is replayed by the first test from then on.
import { readFileSync } from 'node:fs'
import { runInNewContext } from 'node:vm'
import { setFlagsFromString } from 'node:v8'
import { describe, expect, it } from 'vitest'
import { AttentionError, safetensorsHeaderLength, type AttentionFile, type Engine } from '../../dist/index.js'
import { readModelBytes, readModelResponse } from '../../web/views/model-file'
import { recompute, PIPELINE_CELLS } from '../../web/compute/attention-file'
import { ap, useEngine } from '../support/helpers'
import {
  baseFiles,
  fuzzFiles,
  gen,
  mutant,
  savedInputs,
  FUZZ_MIN_INPUTS as MIN_INPUTS,
  FUZZ_SECONDS as SECONDS,
} from '../support/file-mutants'

const SEED = 27_000_000
const REGRESSIONS = new URL('../fuzz/file-regressions/model-files/', import.meta.url)
/** An input taking this long is a hang (as the native fuzzers' -timeout=10). */
const HANG_MS = 10_000

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

useEngine()
const bases = baseFiles()

/** What the page would draw from a file that was read: it must hold what it claims. */
function checkFile(f: AttentionFile): void {
  if (!f.layers.length) throw new Error('a file with no layers was accepted')
  for (const l of f.layers) {
    const [heads, nq, nk] = l.weights.shape
    if (l.weights.shape.length !== 3 || nq !== l.queryTokens.length || nk !== l.keyTokens.length || heads !== l.heads)
      throw new Error(`layer ${l.index}: weights ${JSON.stringify(l.weights.shape)} against ${nq} × ${nk} tokens`)
    if (l.weights.data.length !== heads * nq * nk) throw new Error(`layer ${l.index}: data length`)
    if (!l.weights.data.every(Number.isFinite)) throw new Error(`layer ${l.index}: non-finite weights accepted`)
    if (l.headNames.length !== heads) throw new Error(`layer ${l.index}: head names`)
    if (l.mask && l.mask.length !== nq * nk) throw new Error(`layer ${l.index}: mask length`)
  }
}

function isDocumented(e: unknown): boolean {
  return e instanceof AttentionError && e.message.length <= 400 && /^\S[^\n]*?: \S/.test(e.message)
}

/** Runs one input the way the page does; returns 'ok' / 'error', or throws a description of the failure. */
function runInput(engine: Engine, bytes: Uint8Array): 'ok' | 'error' {
  const before = engine.memoryStats().allocatedBytes
  let outcome: 'ok' | 'error' = 'ok'
  try {
    // readModelFile's first look (the first 8 bytes against the file's size), then the whole file
    safetensorsHeaderLength(bytes.subarray(0, 8), bytes.length)
    const f = readModelBytes(bytes)
    checkFile(f)
    // The model view recomputes the head it shows: the first and the last of a few layers.
    for (const l of f.layers.slice(0, 3)) {
      if (l.queryTokens.length * l.keyTokens.length > PIPELINE_CELLS) continue
      for (const head of new Set([0, l.heads - 1])) {
        try {
          const r = recompute(engine, l, head)
          if (r && !r.weights.data.every(Number.isFinite)) throw new Error('recomputed weights not finite')
        } catch (e) {
          if (!isDocumented(e)) throw e
        }
      }
    }
  } catch (e) {
    if (!isDocumented(e)) {
      const err = e as Error
      throw new Error(`${err?.name}: ${String(err?.message).slice(0, 300)}`, { cause: e })
    }
    outcome = 'error'
  }
  const after = engine.memoryStats().allocatedBytes
  if (after !== before) throw new Error(`malloc'd wasm bytes ${before} → ${after}`)
  return outcome
}

function timed(engine: Engine, bytes: Uint8Array): 'ok' | 'error' {
  const t0 = performance.now()
  const r = runInput(engine, bytes)
  const ms = performance.now() - t0
  if (ms > HANG_MS) throw new Error(`took ${Math.round(ms)} ms (a hang: over ${HANG_MS} ms)`)
  return r
}

describe('model files: mutants of real files through the page’s readers and the engine', () => {
  it('every saved regression input ends in an AttentionError or a valid file', () => {
    const files = savedInputs(REGRESSIONS)
    for (const f of files) {
      let r: string
      try {
        r = timed(ap, new Uint8Array(readFileSync(new URL(f, REGRESSIONS))))
      } catch (e) {
        throw new Error(`${f}: ${(e as Error).message}`, { cause: e })
      }
      expect(['ok', 'error']).toContain(r)
    }
    console.log(`model-file regressions: ${files.length} replayed`)
  })

  it(
    `mutants for ${SECONDS} s (AP_FUZZ_SECONDS), at least ${MIN_INPUTS}: an AttentionError or a valid file, never a trap, a hang or a leak`,
    { timeout: SECONDS * 1000 + 120_000 },
    async () => {
      // Warm-up: the first inputs size the wasm heap and V8's caches.
      for (let i = 0; i < 20; i++) timedQuiet(mutant(SEED + i, bases).bytes)
      gc()
      const heap0 = process.memoryUsage().heapUsed
      const wasm0 = ap.memoryStats().heapBytes
      const { inputs, counts, failures } = await fuzzFiles({
        seed: SEED,
        bases,
        dir: REGRESSIONS,
        run: (bytes) => timed(ap, bytes),
      })
      gc()
      const heapGrowth = process.memoryUsage().heapUsed - heap0
      const wasmGrowth = ap.memoryStats().heapBytes - wasm0
      console.log(
        `model-file fuzz: ${inputs} inputs in ${SECONDS} s+ (${counts.ok} valid, ${counts.error} AttentionError); ` +
          `JS heap ${(heapGrowth / 2 ** 20).toFixed(1)} MiB, wasm heap +${wasmGrowth} bytes`,
      )
      expect(failures).toEqual([])
      expect(counts.ok + counts.error).toBe(inputs)
      // Both kinds of outcome happen: the mutants reach past the first checks.
      expect(counts.ok).toBeGreaterThan(0)
      expect(counts.error).toBeGreaterThan(0)
      // Nothing is kept from one input to the next.
      expect(heapGrowth).toBeLessThan(32 * 2 ** 20)
      expect(wasmGrowth).toBeLessThanOrEqual(16 * 2 ** 20)
    },
  )
})

/** `bytes` as a fetch Response would bring them: in chunks of random sizes, with a true, a wrong or no Content-Length. */
function response(seed: number, bytes: Uint8Array): Response {
  const g = gen(seed ^ 0x5eed)
  const parts: Uint8Array[] = []
  for (let at = 0; at < bytes.length;) {
    const n = g.pick([1, 7, 8, 9, 100, 4096, 65536])
    parts.push(bytes.slice(at, at + n))
    at += n
  }
  const length = g.pick([
    String(bytes.length),
    String(bytes.length + g.int(1, 100)),
    String(Math.max(0, bytes.length - 9)),
    null,
  ])
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      const p = parts.shift()
      if (p) c.enqueue(p)
      else c.close()
    },
  })
  return new Response(stream, length === null ? {} : { headers: { 'content-length': length } })
}

describe('model files as downloads (?src=, the widget’s src): the same mutants through readModelResponse', () => {
  it('400 mutants in random chunks, with true, wrong or no Content-Length: an AttentionError, an src error or a valid file', async () => {
    const counts = { ok: 0, error: 0 }
    const failures: string[] = []
    for (let i = 0; i < 400; i++) {
      const seed = SEED + 1_000_000 + i
      const { bytes } = mutant(seed, bases)
      try {
        checkFile(await readModelResponse(response(seed, bytes)))
        counts.ok++
      } catch (e) {
        if (isDocumented(e) || (e instanceof Error && e.constructor === Error && /^src: \S/.test(e.message)))
          counts.error++
        else failures.push(`seed ${seed}: ${(e as Error)?.name}: ${String((e as Error)?.message).slice(0, 200)}`)
      }
    }
    console.log(`model-file downloads: ${counts.ok} valid, ${counts.error} refused`)
    expect(failures).toEqual([])
    expect(counts.ok).toBeGreaterThan(0)
  })
})

function timedQuiet(bytes: Uint8Array): void {
  try {
    timed(ap, bytes)
  } catch {
    // the warm-up's inputs are judged again in the run
  }
}
