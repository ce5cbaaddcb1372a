// Mutations of real model files for the file readers' fuzzing (tests/engine/hardening-files-fuzz.test.ts, the JS readers;
// tests/integration/notebook-fuzz.test.ts, the Python one) and the Chromium run of the worst of them
// (tests/e2e/hostile-files.test.ts): truncations, bit flips, header-length edits, header JSON edits (huge or malformed
// shapes, dtype swaps, offsets beyond the file, duplicate names, long names, deep nesting, metadata edits),
// NaN / ±Infinity in the data, byte splices. One input per (seed, base file): the same seed always gives the same
// bytes, so a failure replays from its seed alone. fuzzFiles is the fuzzing loop both tests run.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { mulberry32 } from '../../web/compute/random'

const ROOT = new URL('../../', import.meta.url)

/** The committed real files the mutants start from: torch models' attention (exporter) and the Train tab's sample. */
export const BASE_FILES = [
  'tests/fixtures/models/encoder.safetensors',
  'tests/fixtures/models/encoder-f16.safetensors',
  'tests/fixtures/models/seq2seq.safetensors',
  'tests/fixtures/models/bad-shape.safetensors',
  'tests/fixtures/models/induction-sample.weights.safetensors',
  'public/samples/induction.safetensors',
] as const

export function baseFiles(): Array<{ name: string; bytes: Uint8Array }> {
  return BASE_FILES.map((p) => ({
    name: p.slice(p.lastIndexOf('/') + 1),
    bytes: new Uint8Array(readFileSync(new URL(p, ROOT))),
  }))
}

export interface Gen {
  next(): number
  int(lo: number, hi: number): number
  pick<T>(xs: readonly T[]): T
}

export function gen(seed: number): Gen {
  const next = mulberry32(seed)
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1))
  return { next, int, pick: (xs) => xs[int(0, xs.length - 1)] }
}

interface Split {
  header: Record<string, unknown>
  data: Uint8Array
}

function split(bytes: Uint8Array): Split | null {
  if (bytes.length < 8) return null
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true))
  if (n > bytes.length - 8) return null
  try {
    const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n))) as unknown
    if (header === null || typeof header !== 'object' || Array.isArray(header)) return null
    return { header: header as Record<string, unknown>, data: bytes.subarray(8 + n) }
  } catch {
    return null
  }
}

/** Header text + data, with the header length set to the text's bytes. */
export function join(headerText: string, data: Uint8Array): Uint8Array {
  const json = new TextEncoder().encode(headerText)
  const out = new Uint8Array(8 + json.length + data.length)
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true)
  out.set(json, 8)
  out.set(data, 8 + json.length)
  return out
}

const tensorNames = (h: Record<string, unknown>) => Object.keys(h).filter((k) => k !== '__metadata__')
const HUGE_SHAPES: unknown[] = [
  [2 ** 31, 2 ** 31],
  [1, 1e9, 0],
  [0, 2 ** 40, 2 ** 40],
  [1, 2 ** 27, 1],
  [2 ** 53, 1, 1],
  [1, 16385, 1],
  [300, 1, 1],
  [-1, 4, 4],
  [1.5, 2, 2],
  ['4', 4, 4],
  [],
  [1, 1, 1, 1, 1, 1, 1, 1, 1],
  [[2], 2, 2],
  null,
  'big',
]
const DTYPES: unknown[] = ['F16', 'BF16', 'F32', 'F64', 'I64', 'U8', 'BOOL', 'f32', 'F8_E4M3', null, 7, {}]
const JUNK: unknown[] = [null, 0, -1, 1e308, 'x', '', [], {}, true, [1, 2, 3], { a: 1 }, '[', '{"a":', '"\u0000"']

/** Stands for a value nested arrays deep, written into the JSON text after it is made (JSON.stringify would recurse). */
const DEEP = '\u0000deep'

/** One edit of the header's JSON; the data stays. Returns the new header text. */
function editHeader(g: Gen, s: Split): string {
  const h = s.header
  const names = tensorNames(h)
  const name = names.length ? g.pick(names) : 'attention.0.weights'
  const entry = (h[name] ?? {}) as Record<string, unknown>
  const meta = (h.__metadata__ ?? {}) as Record<string, unknown>
  switch (g.int(0, 13)) {
    case 0: // a huge, negative or malformed shape
      entry.shape = g.pick(HUGE_SHAPES)
      break
    case 1: {
      // a dtype swap; half the time with the shape made to fit the bytes (a valid file of other numbers)
      const from = entry.dtype
      entry.dtype = g.pick(DTYPES)
      const shape = entry.shape
      if (g.next() < 0.5 && Array.isArray(shape) && shape.length) {
        const last = shape.length - 1
        if (from === 'F32' && (entry.dtype === 'F16' || entry.dtype === 'BF16')) shape[last] = Number(shape[last]) * 2
        if ((from === 'F16' || from === 'BF16') && entry.dtype === 'F32') shape[last] = Number(shape[last]) / 2
      }
      break
    }
    case 2: {
      // offsets beyond the file, reversed, shifted, overlapping, not integers
      const [b, e] = (Array.isArray(entry.data_offsets) ? entry.data_offsets : [0, 0]) as number[]
      entry.data_offsets = g.pick([
        [b, e + s.data.length + 4],
        [e, b],
        [b + 4, e + 4],
        [b - 4, e - 4],
        [0, e - b],
        [2 ** 53, 2 ** 53 + (e - b)],
        [b + 0.5, e + 0.5],
        [String(b), String(e)],
        [b],
        [b, e, e],
        'x',
        [-(e - b), 0],
      ])
      break
    }
    case 3: {
      // a duplicate name: the same key twice in the JSON text, the second with other offsets
      const text = JSON.stringify(h)
      const other = JSON.stringify({
        ...entry,
        data_offsets: [0, (entry.data_offsets as number[] | undefined)?.[1] ?? 0],
      })
      return text.replace(/^\{/, `{${JSON.stringify(name)}:${other},`)
    }
    case 4: // a tensor removed
      delete h[name]
      break
    case 5: {
      // a tensor renamed: another layer, a long name, a name with markup
      const to = g.pick([
        name.replace(/\.\d+\./, `.${g.pick([7, 99, 1023, 1024, 99999999999])}.`),
        'x'.repeat(g.pick([100, 5000])),
        '<img src=x onerror=alert(1)>',
        '__proto__',
        name.replace('weights', 'q'),
      ])
      h[to] = entry
      if (to !== name) delete h[name]
      break
    }
    case 6: // metadata: tokens (a language model's: n_head, vocab, positions, context)
      if ('n_head' in meta) {
        const key = g.pick(['n_head', 'vocab', 'vocab', 'positions', 'context'])
        meta[key] = g.pick(
          key === 'vocab'
            ? [
                '[]',
                '["a"]',
                'not json',
                '[1]',
                '{"0": "a"}',
                JSON.stringify(Array.from({ length: 70_000 }, () => 'a')),
                JSON.stringify(Array.from({ length: g.int(1, 40) }, (_, i) => String.fromCodePoint(0x4e00 + i))),
              ]
            : ['0', '1', '2', '3', '1.5', '-2', '99999999999', '', 'x', 'rope', 'learned', 'alibi', '12', '4096'],
        )
        h.__metadata__ = meta
        break
      }
      meta.tokens = g.pick([
        '[]',
        '["a"]',
        JSON.stringify(Array.from({ length: 16385 }, () => 'a')),
        '[1, 2]',
        'not json',
        '{"0": "a"}',
        JSON.stringify(Array.from({ length: g.int(1, 40) }, (_, i) => `t${i}`)),
      ])
      h.__metadata__ = meta
      break
    case 7: {
      // metadata: layers' fields
      let layers: unknown
      try {
        layers = JSON.parse(String(meta.layers ?? '[]'))
      } catch {
        layers = []
      }
      if (Array.isArray(layers) && layers.length && layers[0] && typeof layers[0] === 'object') {
        const l = g.pick(layers) as Record<string, unknown>
        const field = g.pick(['heads', 'kind', 'scale', 'queries', 'keys', 'head_names', 'name'])
        l[field] = g.pick([...JUNK, 0, 1e-300, -1, 'cross', 'source_tokens', 'tokens', 2 ** 31])
      } else layers = g.pick(JUNK)
      meta.layers = g.pick([JSON.stringify(layers), JSON.stringify(Array.from({ length: 1025 }, () => ({}))), 'x'])
      h.__metadata__ = meta
      break
    }
    case 8: // metadata values of the wrong type, or not an object at all
      h.__metadata__ = g.pick([...JUNK, { format: 'other/1' }, { tokens: 5 }, { format: g.pick(JUNK) }])
      break
    case 9: // a tensor entry of the wrong type
      h[name] = g.pick(JUNK)
      break
    case 10: {
      // deep nesting where a value goes (error messages quote it)
      entry[g.pick(['shape', 'data_offsets', 'dtype'])] = DEEP
      const d = g.pick([1000, 100_000])
      return JSON.stringify(h).replace(JSON.stringify(DEEP), '['.repeat(d) + ']'.repeat(d))
    }
    case 11: // a shape of the right size in another order, or one size moved to another dimension
      if (Array.isArray(entry.shape)) entry.shape = g.next() < 0.5 ? [...entry.shape].reverse() : [1, ...entry.shape]
      break
    case 12: {
      // many tensors (cheap ones: zero-sized)
      for (let i = 0; i < g.pick([1000, 20000]); i++)
        h[`attention.${i}.weights`] = { dtype: 'F32', shape: [1, 0, 0], data_offsets: [0, 0] }
      break
    }
    default: // a shape whose product is 0 with huge other sizes, kept at zero bytes
      entry.shape = g.pick([
        [1, 0, 1e9],
        [1, 1e9, 0],
        [0, 0, 0],
        [0, 16384, 16384],
      ])
      entry.data_offsets = [0, 0]
  }
  return JSON.stringify(h)
}

function setFloat(g: Gen, s: Split, bytes: Uint8Array): Uint8Array {
  // NaN, ±Infinity or float32's largest values at an element of a random tensor (its own dtype's encoding)
  const names = tensorNames(s.header)
  const out = bytes.slice()
  if (!names.length) return out
  const e = s.header[g.pick(names)] as { dtype?: string; data_offsets?: number[] } | null
  const off = e?.data_offsets
  if (!off || !Array.isArray(off) || !(off[1] > off[0])) return out
  const base = bytes.length - s.data.length
  const dv = new DataView(out.buffer)
  if (e.dtype === 'F32') {
    const at = base + off[0] + 4 * g.int(0, (off[1] - off[0]) / 4 - 1)
    if (at + 4 <= out.length) dv.setFloat32(at, g.pick([NaN, Infinity, -Infinity, 3.4e38, -3.4e38, 1e-45]), true)
  } else {
    const at = base + off[0] + 2 * g.int(0, (off[1] - off[0]) / 2 - 1)
    if (at + 2 <= out.length) dv.setUint16(at, g.pick([0x7e00, 0x7c00, 0xfc00, 0x7f80, 0x7fc0, 0x7bff]), true)
  }
  return out
}

/** One mutation of `bytes` (unchanged when the mutation cannot apply, e.g. to a header nested too deep to parse). */
export function mutateOnce(g: Gen, bytes: Uint8Array): Uint8Array {
  try {
    return mutate(g, bytes)
  } catch {
    return bytes
  }
}

function mutate(g: Gen, bytes: Uint8Array): Uint8Array {
  const s = split(bytes)
  const n = bytes.length
  const k = g.int(0, s ? 7 : 3)
  switch (k) {
    case 0: // a truncation: anywhere, or in the first 16 bytes
      return bytes.slice(0, g.next() < 0.2 ? g.int(0, Math.min(16, n)) : g.int(0, Math.max(0, n - 1)))
    case 1: {
      // bit flips, half the time in the first 8 + header bytes
      const out = bytes.slice()
      const hdr = s ? n - s.data.length : n
      for (let i = g.int(1, 8); i > 0 && n; i--) {
        const at = g.next() < 0.5 ? g.int(0, Math.max(0, hdr - 1)) : g.int(0, n - 1)
        out[at] ^= 1 << g.int(0, 7)
      }
      return out
    }
    case 2: {
      // a byte range inserted, removed or overwritten
      const out = Array.from(bytes)
      const at = g.int(0, n)
      const len = g.int(1, 64)
      const op = g.int(0, 2)
      if (op === 0) out.splice(at, 0, ...Array.from({ length: len }, () => g.int(0, 255)))
      else if (op === 1) out.splice(at, len)
      else
        for (let i = at; i < Math.min(n, at + len); i++)
          out[i] = g.pick([0, 255, 0x7f, 0x22, 0x7b, 0x5b, g.int(0, 255)])
      return Uint8Array.from(out)
    }
    case 3: {
      // the header length field
      const out = bytes.length >= 8 ? bytes.slice() : new Uint8Array(8)
      const dv = new DataView(out.buffer)
      const cur = dv.getBigUint64(0, true)
      const v = g.pick([
        cur + BigInt(g.int(1, 16)),
        cur > 16n ? cur - BigInt(g.int(1, 16)) : 0n,
        0n,
        1n,
        2n,
        BigInt(n),
        16n * 1024n * 1024n + 1n,
        2n ** 40n,
        2n ** 64n - 1n,
      ])
      dv.setBigUint64(0, v, true)
      return out
    }
    case 4:
    case 5:
    case 6:
      return join(editHeader(g, s!), s!.data)
    default:
      return setFloat(g, s!, bytes)
  }
}

/** The input of seed `seed`: 1 to 3 mutations of one of the base files. */
export function mutant(
  seed: number,
  bases: ReadonlyArray<{ name: string; bytes: Uint8Array }>,
): { base: string; bytes: Uint8Array } {
  const g = gen(seed)
  const b = bases[seed % bases.length]
  let bytes = b.bytes
  for (let i = g.int(1, 3); i > 0; i--) bytes = mutateOnce(g, bytes)
  return { base: b.name, bytes }
}

/** The inputs saved in folder `dir` (its .safetensors files; none when the folder does not exist). */
export function savedInputs(dir: URL): string[] {
  try {
    return readdirSync(dir).filter((f) => f.endsWith('.safetensors'))
  } catch {
    return []
  }
}

/** How long a fuzz run lasts: AP_FUZZ_SECONDS seconds (default 4; CI sets more)… */
export const FUZZ_SECONDS = Number(process.env.AP_FUZZ_SECONDS ?? 4)
/** …and the fewest inputs it tries. */
export const FUZZ_MIN_INPUTS = 300

export type Outcome = 'ok' | 'error'

export interface FuzzOptions {
  /** The run lasts this long (default FUZZ_SECONDS)… */
  seconds?: number
  /** …and tries at least this many inputs (default FUZZ_MIN_INPUTS). */
  minInputs?: number
  /** Input i is `mutant(seed + i, bases)`. */
  seed: number
  bases: ReadonlyArray<{ name: string; bytes: Uint8Array }>
  /** Where a failing input is saved, as `seed-N.safetensors` (the tests replay this folder first). */
  dir: URL
  /** Judges input i: a valid file ('ok') or a documented error ('error'); throws a description of a failure. */
  run: (bytes: Uint8Array, i: number) => Outcome | Promise<Outcome>
  /** Asked after a failure: false ends the run (e.g. the reader's process is gone). */
  goOn?: () => boolean
}

export interface FuzzResult {
  /** How many inputs were tried. */
  inputs: number
  counts: Record<Outcome, number>
  /** One line per failing input (at most 10): its seed, its base file, the path it is saved at, what went wrong. */
  failures: string[]
}

/**
 * Runs mutants through `run` until both the time and the minimum count are reached, or 10 inputs have failed; each
 * failing input is saved in `dir` (named by its seed), so it replays from then on.
 */
export async function fuzzFiles(o: FuzzOptions): Promise<FuzzResult> {
  const failures: string[] = []
  const counts = { ok: 0, error: 0 }
  const { seconds = FUZZ_SECONDS, minInputs = FUZZ_MIN_INPUTS } = o
  const end = Date.now() + seconds * 1000
  let i = 0
  for (; (i < minInputs || Date.now() < end) && failures.length < 10; i++) {
    const seed = o.seed + i
    const { base, bytes } = mutant(seed, o.bases)
    try {
      counts[await o.run(bytes, i)]++
    } catch (e) {
      mkdirSync(o.dir, { recursive: true })
      const file = new URL(`seed-${seed}.safetensors`, o.dir)
      writeFileSync(file, bytes)
      const saved = relative(fileURLToPath(ROOT), fileURLToPath(file))
      failures.push(`seed ${seed} (from ${base}, saved as ${saved}): ${(e as Error).message}`)
      if (o.goOn && !o.goOn()) break
    }
  }
  return { inputs: i, counts, failures }
}
