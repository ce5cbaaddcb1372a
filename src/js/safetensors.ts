/**
 * A strict reader of the safetensors format (https://github.com/huggingface/safetensors): an 8-byte
 * little-endian header length N, N bytes of JSON ({ name: { dtype, shape, data_offsets: [begin, end] },
 * __metadata__?: { string: string } }), then the data, offsets counted from its start.
 *
 * Files come from anywhere (a drop, a URL), so every number in the header is checked against the bytes
 * actually there before anything is read: a bad file gives an AttentionError naming the tensor, never an
 * out-of-range read, a huge allocation or a hang. Float tensors only (F32, F16, BF16), decoded to Float32Array copies.
 */
import { AttentionError, shapeStr } from './util.js'
import type { Tensor } from './util.js'

export const SAFETENSORS_LIMITS = {
  /** The JSON header: a file that declares more is refused from its first 8 bytes, before anything else is read. */
  headerBytes: 16 * 1024 * 1024,
  /** Elements per tensor (as the engine's Tensors). */
  elements: 2 ** 28,
  /** Dimensions per tensor. */
  rank: 8,
} as const

export type SafetensorsDtype = 'F32' | 'F16' | 'BF16'
const ITEM_BYTES: Record<SafetensorsDtype, number> = { F32: 4, F16: 2, BF16: 2 }

export interface SafetensorsTensor extends Tensor {
  /** The dtype in the file (data is always float32). */
  dtype: SafetensorsDtype
}

export interface SafetensorsFile {
  /** `__metadata__`: string keys and string values. */
  metadata: Record<string, string>
  /** Tensors in the order of their data in the file. */
  tensors: Map<string, SafetensorsTensor>
}

function bytesOf(input: ArrayBuffer | ArrayBufferView): Uint8Array {
  if (input instanceof ArrayBuffer) return new Uint8Array(input)
  if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength)
  throw new AttentionError(`file: expected an ArrayBuffer or Uint8Array, got ${input === null ? 'null' : typeof input}`)
}

const fmtBytes = (n: number) => n.toLocaleString('en-US')

/** A name from the file as its messages quote it: at most 60 characters (a file may name a tensor with megabytes). */
export function fileLabel(name: string): string {
  return name.length > 60 ? `${name.slice(0, 57)}...` : name
}

/**
 * A value from the file as its messages quote it: at most `max` characters of its JSON, and never a throw (a value
 * nested 100,000 arrays deep overflows JSON.stringify's stack).
 */
export function filePreview(v: unknown, max = 60): string {
  let text: string
  try {
    text = JSON.stringify(v) ?? String(v)
  } catch {
    return '(a value nested too deep to quote)'
  }
  return text.length > max ? `${text.slice(0, max)}...` : text
}

/**
 * The header length the file's first 8 bytes declare, checked against the limit and (when known) the
 * file size. Call it on the first 8 bytes before reading a whole file.
 */
export function safetensorsHeaderLength(first8: ArrayBuffer | ArrayBufferView, fileBytes?: number): number {
  const b = bytesOf(first8)
  if (b.length < 8) {
    throw new AttentionError(
      `file: ${b.length} bytes, too short for a safetensors file (it starts with an 8-byte header length); the file is truncated or not safetensors`,
    )
  }
  const n = new DataView(b.buffer, b.byteOffset, 8).getBigUint64(0, true)
  if (n > BigInt(SAFETENSORS_LIMITS.headerBytes)) {
    throw new AttentionError(
      `file: the header declares ${fmtBytes(Number(n))} bytes, over the limit of ${fmtBytes(SAFETENSORS_LIMITS.headerBytes)} (16 MiB); not read`,
    )
  }
  const len = Number(n)
  if (len < 2) throw new AttentionError(`file: the header declares ${len} bytes, too short for its JSON`)
  if (fileBytes !== undefined && 8 + len > fileBytes) {
    throw new AttentionError(
      `file: the header declares ${fmtBytes(len)} bytes but the file has ${fmtBytes(fileBytes)} in all; the file is truncated`,
    )
  }
  return len
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1

/** The platform's float16 array (Chromium 135+, Firefox 129+, Safari 18.2+, Node 24+), where there is one. */
const Float16 = (globalThis as { Float16Array?: new (b: ArrayBuffer) => ArrayLike<number> }).Float16Array

/**
 * float16 → float32 bits, exactly (every half is a float32): the sign, exponent and mantissa moved into place, the
 * exponent rebased from 15 to 127; a subnormal half is a normal float32, made by arithmetic; Inf and NaN keep theirs.
 */
function f16Bits(src: Uint16Array, out: Float32Array): void {
  const bits = new Uint32Array(out.buffer, out.byteOffset, out.length)
  for (let i = 0; i < src.length; i++) {
    const h = src[i]
    const sign = (h & 0x8000) << 16
    const e = (h >> 10) & 0x1f
    const m = h & 0x3ff
    if (e === 0) out[i] = (sign ? -m : m) * 2 ** -24
    else if (e === 31) bits[i] = sign | 0x7f800000 | (m << 13)
    else bits[i] = sign | ((e + 112) << 23) | (m << 13)
  }
}

function decode(dtype: SafetensorsDtype, src: Uint8Array): Float32Array {
  const count = src.length / ITEM_BYTES[dtype]
  // The file is little-endian, as every browser's host is: a copy of the bytes (aligned) read as is,
  // ten times faster than a DataView loop on a 20 MiB file.
  if (dtype === 'F32' && LITTLE_ENDIAN) return new Float32Array(src.slice().buffer)
  const out = new Float32Array(count)
  if (dtype === 'F16' && LITTLE_ENDIAN) {
    // The platform's conversion where it has Float16Array, else the bits moved by hand. The 540 KB poems sample in
    // Node 20 (no Float16Array): 13 ms instead of 50 on a fresh process, 1–4 ms instead of 18 warm, against the
    // per-value formula this replaced.
    const aligned = src.slice().buffer
    if (Float16) out.set(new Float16(aligned))
    else f16Bits(new Uint16Array(aligned), out)
    return out
  }
  const dv = new DataView(src.buffer, src.byteOffset, src.byteLength)
  if (dtype === 'F32') {
    for (let i = 0; i < count; i++) out[i] = dv.getFloat32(4 * i, true)
  } else if (dtype === 'BF16') {
    // bfloat16 is the upper half of a float32.
    const bits = new Uint32Array(out.buffer)
    for (let i = 0; i < count; i++) bits[i] = dv.getUint16(2 * i, true) << 16
  } else {
    const halves = new Uint16Array(count)
    for (let i = 0; i < count; i++) halves[i] = dv.getUint16(2 * i, true)
    f16Bits(halves, out)
  }
  return out
}

function checkShape(name: string, shape: unknown): number[] {
  if (!Array.isArray(shape) || shape.length > SAFETENSORS_LIMITS.rank) {
    throw new AttentionError(
      `${name}: shape must be a list of at most ${SAFETENSORS_LIMITS.rank} sizes, got ${filePreview(shape)}`,
    )
  }
  let count = 1
  for (const d of shape) {
    if (!Number.isSafeInteger(d) || d < 0)
      throw new AttentionError(`${name}: shape sizes must be integers ≥ 0, got ${filePreview(shape)}`)
    count *= d
  }
  if (count > SAFETENSORS_LIMITS.elements) {
    throw new AttentionError(`${name}: shape ${shapeStr(shape)} has ${count} elements, over the limit of 2^28`)
  }
  return shape as number[]
}

interface Entry {
  name: string
  /** The name as messages quote it. */
  label: string
  dtype: SafetensorsDtype
  shape: number[]
  begin: number
  end: number
}

/** One tensor's header entry, checked against the data's length. */
function readEntry(key: string, e: unknown, dataLen: number): Entry {
  const name = fileLabel(key)
  if (!isObject(e)) throw new AttentionError(`${name}: expected { dtype, shape, data_offsets }`)
  const dtype = e.dtype
  if (dtype !== 'F32' && dtype !== 'F16' && dtype !== 'BF16') {
    throw new AttentionError(`${name}: dtype ${filePreview(dtype, 20)} is not supported; expected F32, F16 or BF16`)
  }
  const shape = checkShape(name, e.shape)
  const off = e.data_offsets
  if (
    !Array.isArray(off) ||
    off.length !== 2 ||
    !off.every((x) => Number.isSafeInteger(x) && x >= 0) ||
    off[0] > off[1]
  ) {
    throw new AttentionError(`${name}: data_offsets must be [begin, end] with 0 ≤ begin ≤ end, got ${filePreview(off)}`)
  }
  const [begin, end] = off as number[]
  if (end > dataLen) {
    throw new AttentionError(
      `${name}: data_offsets [${begin}, ${end}] run past the end of the data (${fmtBytes(dataLen)} bytes); the file is truncated or its header is wrong`,
    )
  }
  const need = shape.reduce((a, b) => a * b, 1) * ITEM_BYTES[dtype]
  if (end - begin !== need) {
    throw new AttentionError(
      `${name}: data_offsets [${begin}, ${end}] hold ${end - begin} bytes but ${dtype} ${shapeStr(shape)} needs ${need}`,
    )
  }
  return { name: key, label: name, dtype, shape, begin, end }
}

/** Reads a whole safetensors file (float tensors only). Throws an AttentionError naming the tensor for anything inconsistent. */
export function readSafetensors(input: ArrayBuffer | ArrayBufferView): SafetensorsFile {
  const bytes = bytesOf(input)
  const n = safetensorsHeaderLength(bytes, bytes.length)
  let header: unknown
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(8, 8 + n)))
  } catch (e) {
    throw new AttentionError(`file: the header is not valid UTF-8 JSON (${e instanceof Error ? e.message : String(e)})`)
  }
  if (!isObject(header)) throw new AttentionError('file: the header must be a JSON object of tensors')
  const dataLen = bytes.length - 8 - n
  const metadata: Record<string, string> = {}
  const entries: Entry[] = []
  for (const [key, e] of Object.entries(header)) {
    if (key !== '__metadata__') {
      entries.push(readEntry(key, e, dataLen))
      continue
    }
    if (!isObject(e)) throw new AttentionError('__metadata__: must be an object of strings')
    for (const [k, v] of Object.entries(e)) {
      if (typeof v !== 'string')
        throw new AttentionError(`__metadata__.${fileLabel(k)}: must be a string, got ${typeof v}`)
      metadata[k] = v
    }
  }
  entries.sort((a, b) => a.begin - b.begin || a.end - b.end)
  for (let i = 1; i < entries.length; i++) {
    const a = entries[i - 1],
      b = entries[i]
    if (b.begin < a.end) {
      throw new AttentionError(
        `${b.label}: data_offsets [${b.begin}, ${b.end}] overlap those of ${a.label} [${a.begin}, ${a.end}]`,
      )
    }
  }
  const tensors = new Map<string, SafetensorsTensor>()
  const base = 8 + n
  for (const e of entries) {
    tensors.set(e.name, {
      dtype: e.dtype,
      shape: [...e.shape],
      data: decode(e.dtype, bytes.subarray(base + e.begin, base + e.end)),
    })
  }
  return { metadata, tensors }
}

/** Writes float32 tensors as safetensors (for tests and tools; the page only reads). */
export function writeSafetensors(tensors: Record<string, Tensor>, metadata?: Record<string, string>): Uint8Array {
  const header: Record<string, unknown> = {}
  if (metadata) header.__metadata__ = metadata
  let off = 0
  for (const [name, t] of Object.entries(tensors)) {
    header[name] = { dtype: 'F32', shape: t.shape, data_offsets: [off, off + 4 * t.data.length] }
    off += 4 * t.data.length
  }
  let json = new TextEncoder().encode(JSON.stringify(header))
  const pad = (8 - (json.length % 8)) % 8
  if (pad) json = new TextEncoder().encode(JSON.stringify(header) + ' '.repeat(pad))
  const out = new Uint8Array(8 + json.length + off)
  const dv = new DataView(out.buffer)
  dv.setBigUint64(0, BigInt(json.length), true)
  out.set(json, 8)
  let p = 8 + json.length
  for (const t of Object.values(tensors)) {
    for (let i = 0; i < t.data.length; i++, p += 4) dv.setFloat32(p, t.data[i], true)
  }
  return out
}
