// Getting a model file's bytes from a File or a URL without trusting it: the size and the header length
// (its first 8 bytes) are checked before the rest is read, so a file that declares a 100 MB header is
// refused at once instead of being downloaded and parsed.

import { readAttentionFile, safetensorsHeaderLength } from 'attention-playground/files'
import type { AttentionFile, AttentionFileLayer } from 'attention-playground'
import { grouped } from '../format'

export type { AttentionFile, AttentionFileLayer }

/** The largest model file the page reads (the browser holds it in memory twice while decoding). */
export const MODEL_FILE_BYTES = 512 * 1024 * 1024

function checkSize(bytes: number): void {
  if (bytes > MODEL_FILE_BYTES) {
    throw new Error(`file: ${grouped(bytes)} bytes, over the limit of ${grouped(MODEL_FILE_BYTES)} (512 MiB)`)
  }
}

export function readModelBytes(bytes: ArrayBuffer | Uint8Array): AttentionFile {
  checkSize(bytes.byteLength)
  return readAttentionFile(bytes)
}

/** A model file's bytes from disk, refused early (its size, its declared header) before the rest is read. */
export async function readFileBytes(f: File): Promise<Uint8Array> {
  checkSize(f.size)
  safetensorsHeaderLength(await f.slice(0, 8).arrayBuffer(), f.size)
  return new Uint8Array(await f.arrayBuffer())
}

export async function readModelFile(f: File): Promise<AttentionFile> {
  return readAttentionFile(await readFileBytes(f))
}

/**
 * The most a download (`?src=`, the widget's `src`) may bring: a link anyone can share must not make a learner's
 * browser fetch hundreds of megabytes. Checked against Content-Length before the body is read and against the
 * bytes received while it streams (the length may be absent, or describe compressed bytes: a small gzip body can
 * unpack to gigabytes). A file opened from disk is the user's own choice and has MODEL_FILE_BYTES.
 */
export const MODEL_DOWNLOAD_BYTES = 64 * 1024 * 1024

/** Bytes received so far and the total the server declared (null: not declared, or not the body's size). */
export interface DownloadProgress {
  got: number
  total: number | null
}

/** A download stopped at MODEL_DOWNLOAD_BYTES (the view puts its own sentence in the page's language before it). */
export class DownloadLimitError extends Error {
  constructor(seen: string) {
    super(
      `src: ${seen}, over the download limit of ${grouped(MODEL_DOWNLOAD_BYTES)} bytes (64 MiB); download stopped. Save the file and open it from disk (up to 512 MiB)`,
    )
    this.name = 'DownloadLimitError'
  }
}

const downloadLimitError = (seen: string) => new DownloadLimitError(seen)

/**
 * Reads a fetched model file's body, stopping as soon as it is refused: the declared size, then every chunk
 * against the limit, the first 8 bytes against the header limit. Progress is reported after every chunk.
 */
export async function readModelResponse(
  res: Response,
  onProgress?: (p: DownloadProgress) => void,
): Promise<AttentionFile> {
  return readModelBytes(await readResponseBytes(res, onProgress))
}

/** A fetched model file's bytes, with readModelResponse's checks (the size limit, the header) as they stream. */
export async function readResponseBytes(
  res: Response,
  onProgress?: (p: DownloadProgress) => void,
): Promise<Uint8Array> {
  const declared = Number(res.headers.get('content-length') ?? NaN)
  // With a content encoding, Content-Length counts the compressed bytes, not the body the reader sees.
  const encoded = !!res.headers.get('content-encoding') && res.headers.get('content-encoding') !== 'identity'
  const total = Number.isFinite(declared) && !encoded ? declared : null
  if (Number.isFinite(declared) && declared > MODEL_DOWNLOAD_BYTES) {
    res.body?.cancel().catch(() => {}) // the connection is closed: nothing of the body is read
    throw downloadLimitError(`the server declares ${grouped(declared)} bytes (Content-Length)`)
  }
  if (!res.body) {
    const all = new Uint8Array(await res.arrayBuffer())
    checkSize(all.byteLength)
    return all
  }
  const reader = res.body.getReader()
  const chunks: Uint8Array[] = []
  let got = 0
  let checked = false
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      chunks.push(value)
      got += value.length
      if (got > MODEL_DOWNLOAD_BYTES) {
        const lie = Number.isFinite(declared)
          ? ` where the server declared ${grouped(declared)} (Content-Length${encoded ? ', of compressed bytes' : ''})`
          : ''
        throw downloadLimitError(`${grouped(got)} bytes received${lie}`)
      }
      if (!checked && got >= 8) {
        checked = true
        safetensorsHeaderLength(concat(chunks, 8), total ?? undefined)
      }
      onProgress?.({ got, total: total !== null && got <= total ? total : null })
    }
  } finally {
    reader.cancel().catch(() => {})
  }
  return concat(chunks, got)
}

/** The name of the error a cancelled download ends in (the caller's AbortController). */
export const isAbort = (e: unknown): boolean => e instanceof Error && e.name === 'AbortError'

/** Fetches `url` (http, https or blob, relative to the page); `signal` cancels it (the promise rejects with an AbortError). */
export async function readModelUrl(
  url: string,
  signal: AbortSignal,
  onProgress?: (p: DownloadProgress) => void,
): Promise<AttentionFile> {
  return readModelBytes(await readUrlBytes(url, signal, onProgress))
}

/** A model file's bytes from `url`, with readModelUrl's checks and messages (`src: …`). */
export async function readUrlBytes(
  url: string,
  signal: AbortSignal,
  onProgress?: (p: DownloadProgress) => void,
): Promise<Uint8Array> {
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
    res = await fetch(u.href, { signal })
  } catch (e) {
    if (isAbort(e)) throw e
    throw new Error(
      `src: could not fetch ${u.href} (${e instanceof Error ? e.message : String(e)}; a file on another site needs CORS)`,
      { cause: e },
    )
  }
  if (!res.ok) throw new Error(`src: HTTP ${res.status} ${res.statusText} for ${u.href}`)
  try {
    return await readResponseBytes(res, onProgress)
  } catch (e) {
    if (isAbort(e) || !(e instanceof TypeError)) throw e
    // the connection broke mid-body (e.g. fewer bytes than its Content-Length)
    throw new Error(`src: the download of ${u.href} broke off (${e.message})`, { cause: e })
  }
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

/**
 * Opens a file dropped on `el` (with the class `dropping` while one is dragged over it) — the model view and the
 * generate view take model files this way besides their file inputs.
 */
export function onFileDrop(el: HTMLElement, open: (f: File) => void): void {
  el.addEventListener('dragover', (ev) => {
    if (!ev.dataTransfer?.types.includes('Files')) return
    ev.preventDefault()
    el.classList.add('dropping')
  })
  el.addEventListener('dragleave', () => el.classList.remove('dropping'))
  el.addEventListener('drop', (ev) => {
    el.classList.remove('dropping')
    const f = ev.dataTransfer?.files?.[0]
    if (!f) return
    ev.preventDefault()
    open(f)
  })
}
