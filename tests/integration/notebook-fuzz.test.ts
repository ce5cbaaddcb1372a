// Fuzzing the notebook helper's reader: attention_playground.show_file (python/attention_playground/reader.py, run
// by /usr/bin/python3) on mutants of the committed real files (tests/support/file-mutants.ts: truncations, bit flips,
// header-length and header JSON edits — huge or malformed shapes, dtype swaps, offsets past the end, deep nesting —
// NaN / ±Infinity in the data). Every input must end in AttentionFileError (a ValueError; a one-line message naming
// what it blames, at most 400 characters) or a file that holds what it claims — never another exception or a hang
// (an answer within HANG_MS), and the process's peak memory grows by a bounded amount over the run.
//
// Deterministic: input i is `mutant(SEED + i)`; the run lasts AP_FUZZ_SECONDS seconds (default 4; CI sets more), at
// least MIN_INPUTS inputs. A failing input is written to tests/fuzz/file-regressions/python-reader/ (named by its seed);
// every file there and in tests/fuzz/file-regressions/model-files/ (the JS readers' finds) is replayed first.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  baseFiles,
  fuzzFiles,
  savedInputs,
  FUZZ_MIN_INPUTS as MIN_INPUTS,
  FUZZ_SECONDS as SECONDS,
} from '../support/file-mutants'
import { requireCommand, PY } from '../support/tools'

const SEED = 41_000_000
const HANG_MS = 10_000
/** Peak RSS growth allowed after the warm-up (the inputs are at most a few hundred kB). */
const RSS_GROWTH_KIB = 128 * 1024
const SCRIPT = new URL('../fixtures/fuzz_show_file.py', import.meta.url).pathname
const REGRESSIONS = new URL('../fuzz/file-regressions/python-reader/', import.meta.url)
const REPLAYED = [REGRESSIONS, new URL('../fuzz/file-regressions/model-files/', import.meta.url)]

interface Answer {
  r: 'ok' | 'error' | 'bad'
  e?: string
  maxrss_kib: number
}

let proc: ChildProcessWithoutNullStreams
let pending = ''
const waiting: Array<(line: string) => void> = []
const bases = baseFiles()

beforeAll(() => {
  requireCommand(PY, 'python3')
  proc = spawn(PY, [SCRIPT])
  proc.stdout.setEncoding('utf8')
  proc.stdout.on('data', (d: string) => {
    pending += d
    for (let i = pending.indexOf('\n'); i >= 0; i = pending.indexOf('\n')) {
      const line = pending.slice(0, i)
      pending = pending.slice(i + 1)
      waiting.shift()?.(line)
    }
  })
})

afterAll(() => {
  if (proc.exitCode === null) proc.stdin.end(Buffer.from([0xff, 0xff, 0xff, 0xff])) // the worker's end mark
})

/** One input through show_file; rejects when no answer comes within HANG_MS (the worker is then stopped). */
function ask(bytes: Uint8Array): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill()
      reject(new Error(`no answer within ${HANG_MS} ms (a hang)`))
    }, HANG_MS)
    waiting.push((line) => {
      clearTimeout(timer)
      resolve(JSON.parse(line) as Answer)
    })
    const len = Buffer.alloc(4)
    len.writeUInt32LE(bytes.length)
    proc.stdin.write(len)
    proc.stdin.write(bytes)
  })
}

describe('show_file on hostile files (python/attention_playground/reader.py)', () => {
  it('every saved regression input (the Python and the JS readers’ finds) ends in AttentionFileError or a file', async () => {
    let n = 0
    for (const dir of REPLAYED) {
      for (const f of savedInputs(dir)) {
        const a = await ask(new Uint8Array(readFileSync(new URL(f, dir))))
        expect(a.r, `${f}: ${a.e}`).not.toBe('bad')
        n++
      }
    }
    expect(n).toBeGreaterThan(0)
  })

  it(
    `mutants for ${SECONDS} s (AP_FUZZ_SECONDS), at least ${MIN_INPUTS}: AttentionFileError or a valid file, never another exception or a hang`,
    { timeout: SECONDS * 1000 + 120_000 },
    async () => {
      let rss0 = 0
      let rss = 0
      const { inputs, counts, failures } = await fuzzFiles({
        seed: SEED,
        bases,
        dir: REGRESSIONS,
        run: async (bytes, n) => {
          let a: Answer
          try {
            a = await ask(bytes)
          } catch (e) {
            a = { r: 'bad', e: (e as Error).message, maxrss_kib: rss }
          }
          rss = a.maxrss_kib
          if (n === 20) rss0 = rss // after a warm-up
          if (a.r === 'bad') throw new Error(String(a.e))
          return a.r
        },
        // After a hang the worker is stopped: no input after it would be answered.
        goOn: () => proc.exitCode === null && !proc.killed,
      })
      console.log(
        `python reader fuzz: ${inputs} inputs in ${SECONDS} s: ${counts.ok} valid, ${counts.error} AttentionFileError; peak RSS ${Math.round(rss0 / 1024)} → ${Math.round(rss / 1024)} MiB`,
      )
      expect(failures).toEqual([])
      expect(inputs).toBeGreaterThanOrEqual(MIN_INPUTS)
      // Both outcomes occur: the mutants are neither all refused nor all accepted.
      expect(counts.ok).toBeGreaterThan(0)
      expect(counts.error).toBeGreaterThan(0)
      expect(rss - rss0).toBeLessThanOrEqual(RSS_GROWTH_KIB)
    },
  )
})
