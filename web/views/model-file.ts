// Getting a model file's bytes from a File or a URL without trusting it: the size and the header length
// (its first 8 bytes) are checked before the rest is read, so a file that declares a 100 MB header is
// refused at once instead of being downloaded and parsed.

import { readAttentionFile, safetensorsHeaderLength } from 'attention-playground'
import type { AttentionFile, AttentionFileLayer } from 'attention-playground'

export type { AttentionFile, AttentionFileLayer }

/** The largest model file the page reads (the browser holds it in memory twice while decoding). */
export const MODEL_FILE_BYTES = 512 * 1024 * 1024

function checkSize(bytes: number): void {
  if (bytes > MODEL_FILE_BYTES) {
    throw new Error(
      `file: ${bytes.toLocaleString('en-US')} bytes, over the limit of ${MODEL_FILE_BYTES.toLocaleString('en-US')} (512 MiB)`,
    )
  }
}

export function readModelBytes(bytes: ArrayBuffer | Uint8Array): AttentionFile {
  checkSize(bytes.byteLength)
  return readAttentionFile(bytes)
}

export async function readModelFile(f: File): Promise<AttentionFile> {
  checkSize(f.size)
  safetensorsHeaderLength(await f.slice(0, 8).arrayBuffer(), f.size)
  return readAttentionFile(await f.arrayBuffer())
}

/** Fetches `url` (http, https or blob, relative to the page), stopping as soon as its first bytes show it is refused. */
export async function readModelUrl(url: string, cancelled: () => boolean): Promise<AttentionFile | null> {
  let u: URL
  try {
    u = new URL(url, document.baseURI)
  } catch {
    throw new Error(`src: not a URL: "${url.slice(0, 80)}"`)
  }
  if (!['http:', 'https:', 'blob:'].includes(u.protocol))
    throw new Error(`src: only http, https and blob URLs are read, got ${u.protocol}`)
  let res: Response
  try {
    res = await fetch(u.href)
  } catch (e) {
    throw new Error(
      `src: could not fetch ${u.href} (${e instanceof Error ? e.message : String(e)}; a file on another site needs CORS)`,
      { cause: e },
    )
  }
  if (!res.ok) throw new Error(`src: HTTP ${res.status} ${res.statusText} for ${u.href}`)
  const declared = Number(res.headers.get('content-length') ?? NaN)
  if (Number.isFinite(declared)) checkSize(declared)
  if (!res.body) return readModelBytes(await res.arrayBuffer())
  const reader = res.body.getReader()
  const chunks: Uint8Array[] = []
  let got = 0
  let checked = false
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (cancelled()) return null
      if (done) break
      chunks.push(value)
      got += value.length
      checkSize(got)
      if (!checked && got >= 8) {
        checked = true
        const head = concat(chunks, 8)
        safetensorsHeaderLength(head, Number.isFinite(declared) ? declared : undefined)
      }
    }
  } finally {
    reader.cancel().catch(() => {})
  }
  return readModelBytes(concat(chunks, got))
}

function concat(chunks: Uint8Array[], n: number): Uint8Array {
  const out = new Uint8Array(n)
  let p = 0
  for (const c of chunks) {
    if (p >= n) break
    const part = c.subarray(0, n - p)
    out.set(part, p)
    p += part.length
  }
  return out
}
