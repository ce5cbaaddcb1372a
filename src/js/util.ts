/** A dense row-major tensor. `data.length` is the product of `shape`. Every Tensor the engine returns is a copy owned by JS. */
export interface Tensor {
  data: Float32Array
  shape: number[]
}

/** What the engine throws for bad input: the message names the argument and the shapes or values. */
export class AttentionError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'AttentionError'
  }
}

/** Nested arrays (number[][] or number[][][]) or a Tensor; anything else is rejected with the argument's name. */
export type TensorLike = Tensor | { data: ArrayLike<number>; shape: number[] } | number[] | number[][] | number[][][]

function flatten(name: string, value: unknown, depth: number, shape: number[], out: number[]): void {
  if (!Array.isArray(value)) {
    if (depth !== shape.length)
      throw new AttentionError(`${name}: ragged nested array (expected ${shape.length} levels)`)
    if (typeof value !== 'number') throw new AttentionError(`${name}: expected numbers, got a ${typeof value}`)
    out.push(value)
    return
  }
  if (depth === shape.length) shape.push(value.length)
  else if (shape[depth] !== value.length) {
    throw new AttentionError(`${name}: ragged nested array (length ${value.length} where ${shape[depth]} was expected)`)
  }
  for (const v of value) flatten(name, v, depth + 1, shape, out)
}

/** Normalizes to a Tensor with a Float32Array (a copy only when the input is not one already). */
export function toTensor(name: string, value: unknown): Tensor {
  if (value === null || typeof value !== 'object') {
    throw new AttentionError(
      `${name}: expected a Tensor { data, shape } or a nested array, got ${value === null ? 'null' : typeof value}`,
    )
  }
  if (Array.isArray(value)) {
    const shape: number[] = []
    const out: number[] = []
    flatten(name, value, 0, shape, out)
    return { data: Float32Array.from(out), shape }
  }
  const t = value as { data?: unknown; shape?: unknown }
  if (!Array.isArray(t.shape)) throw new AttentionError(`${name}.shape: expected an array of sizes`)
  const data = t.data
  const shape = Array.from(t.shape as unknown[]) as number[] // read here, not from inside the module
  if (data instanceof Float32Array) return { data, shape }
  if (Array.isArray(data)) {
    const bad = data.findIndex((x) => typeof x !== 'number')
    if (bad >= 0) throw new AttentionError(`${name}.data: expected numbers, got a ${typeof data[bad]} at index ${bad}`)
    return { data: Float32Array.from(data as number[]), shape }
  }
  if (ArrayBuffer.isView(data)) return { data: Float32Array.from(data as unknown as ArrayLike<number>), shape }
  throw new AttentionError(`${name}.data: expected a Float32Array or an array of numbers`)
}

/** Throws the engine's `{ error }` result as an AttentionError; passes anything else through. */
export function unwrap<T>(result: unknown): T {
  if (result && typeof result === 'object' && 'error' in result) {
    throw new AttentionError(String((result as { error: unknown }).error))
  }
  return result as T
}

/**
 * What the module's Tensor decoder calls for a value that is not yet { data: Float32Array, shape } (nested arrays,
 * a typed array as a 1-D Tensor, { data: number[] }; src/bindings/convert.h tensor_in): toTensor, its error returned
 * as { error } rather than thrown (a JS exception thrown into a wasm call would skip the C++ destructors).
 */
export function tensorOf(value: unknown, name: string): Tensor | { error: string } {
  try {
    if (ArrayBuffer.isView(value) && !(value instanceof DataView)) {
      const a = value as unknown as ArrayLike<number>
      return { data: Float32Array.from(a), shape: [a.length] }
    }
    return toTensor(name, value)
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) }
  }
}

/** A shape as every message of the package prints it: "[2, 3]". */
export const shapeStr = (shape: readonly number[]): string => `[${shape.join(', ')}]`

/**
 * The known name a misspelt `key` most likely meant: the same but for case, else the nearest at most two edits
 * away (and fewer edits than the key has letters). The module's options reader (convert.h nearest_option) is the same.
 */
function nearestOption(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined
  let bestDistance = Math.min(3, key.length)
  const a = key.toLowerCase()
  for (const k of known) {
    const b = k.toLowerCase()
    // Levenshtein distance, one row at a time.
    const row = Array.from({ length: b.length + 1 }, (_, j) => j)
    for (let i = 1; i <= a.length; i++) {
      let diagonal = row[0]
      row[0] = i
      for (let j = 1; j <= b.length; j++) {
        const up = row[j]
        row[j] = Math.min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1))
        diagonal = up
      }
    }
    if (row[b.length] < bestDistance) {
      bestDistance = row[b.length]
      best = k
    }
  }
  return best
}

/**
 * The options reader of the calls whose options are read in JS (the trainers' and the language model's; the engine's
 * own calls are read by the module's, src/bindings/convert.h Options, in the same words). Every key read through `o`
 * is recorded, present or not; `done()` rejects any other key by name: "generate: unknown option 'topk' (did you mean
 * 'topK'?); known options: prompt, …". Call it after the last read, before the module is called. `missing(key,
 * message)` is the error of a required key left out: a given key near it (a typo) is named instead.
 */
export function readOptions(
  fn: string,
  options: unknown,
): { o: Record<string, unknown>; done: () => void; missing: (key: string, message: string) => never } {
  const given = checkOptions(fn, options)
  const known: string[] = []
  const o = new Proxy(given, {
    get(target, key) {
      if (typeof key === 'string' && !known.includes(key)) known.push(key)
      return target[key as string]
    },
  })
  const unknown = (key: string, names: readonly string[]) => {
    const near = nearestOption(key, names)
    return `${fn}: unknown option '${key}'${near ? ` (did you mean '${near}'?)` : ''}`
  }
  const done = () => {
    const key = Object.keys(given).find((k) => !known.includes(k))
    if (key !== undefined)
      throw new AttentionError(`${unknown(key, known)}; known options: ${known.join(', ') || 'none'}`)
  }
  const missing = (key: string, message: string): never => {
    const typo = Object.keys(given).find((k) => !known.includes(k) && nearestOption(k, [key]))
    throw new AttentionError(typo === undefined ? message : unknown(typo, [key]))
  }
  return { o, done, missing }
}

export function checkOptions(fn: string, opts: unknown): Record<string, unknown> {
  if (opts === undefined) return {}
  if (opts === null || typeof opts !== 'object' || Array.isArray(opts)) {
    throw new AttentionError(`${fn}: options must be an object, got ${opts === null ? 'null' : typeof opts}`)
  }
  return opts as Record<string, unknown>
}
