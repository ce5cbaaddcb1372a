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

/** Rejects option names the function does not know, so a typo (`dmodel`) is not silently ignored. */
export function checkKeys(fn: string, opts: object, allowed: readonly string[]): void {
  for (const key of Object.keys(opts)) {
    if (!allowed.includes(key)) {
      const near = allowed.find((a) => a.toLowerCase() === key.toLowerCase())
      throw new AttentionError(
        `${fn}: unknown option '${key}'${near ? ` (did you mean '${near}'?)` : ''}; known options: ${allowed.join(', ')}`,
      )
    }
  }
}

export function checkOptions(fn: string, opts: unknown): Record<string, unknown> {
  if (opts === undefined) return {}
  if (opts === null || typeof opts !== 'object' || Array.isArray(opts)) {
    throw new AttentionError(`${fn}: options must be an object, got ${opts === null ? 'null' : typeof opts}`)
  }
  return opts as Record<string, unknown>
}
