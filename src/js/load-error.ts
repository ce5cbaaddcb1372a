// A module whose wasm did not load: Emscripten's glue rejects with its own words ("Aborted(both async and sync
// fetching of the wasm failed). Build with -s ASSERTIONS=1 …"), which name neither the file nor its address. init()
// and loadTrainer() replace them with a WasmLoadError that says which URL was tried, what came back and what to
// serve there; the page and the widget show it in their language from its fields.
import { AttentionError } from './util.js'

/**
 * What went wrong: `network` no response (the server is unreachable, or it refused a request from another site:
 * no Access-Control-Allow-Origin), `http` an error status, `type` an answer that is not the wasm file (a page, say),
 * `compile` the file came but is not a module this engine can run, `file` (Node) the file could not be read.
 */
export type WasmLoadReason = 'network' | 'http' | 'type' | 'compile' | 'file'

export class WasmLoadError extends AttentionError {
  /** The address tried (a file path in Node; '' for bytes handed to init({ wasmBinary })). */
  readonly url: string
  /** The package's file that belongs there: 'attention.wasm', 'attention-relaxed.wasm', 'attention-train.wasm', … */
  readonly file: string
  readonly reason: WasmLoadReason
  /** The HTTP status, when there was an answer. */
  readonly status: number | null
  /** The answer's Content-Type, when there was an answer. */
  readonly contentType: string | null
  /** The underlying error's words (the browser's, Emscripten's abort text stripped), for `compile` and `file`. */
  readonly detail: string

  constructor(f: {
    url: string
    file: string
    reason: WasmLoadReason
    status?: number | null
    contentType?: string | null
    detail?: string
  }) {
    super(describe(f))
    this.name = 'WasmLoadError'
    this.url = f.url
    this.file = f.file
    this.reason = f.reason
    this.status = f.status ?? null
    this.contentType = f.contentType ?? null
    this.detail = f.detail ?? ''
  }
}

function describe(f: ConstructorParameters<typeof WasmLoadError>[0]): string {
  const serve = `serve the package's dist/${f.file} there, unchanged, as application/wasm`
  const where = f.url ? `the engine's WebAssembly ${f.url}` : `the engine's WebAssembly (init({ wasmBinary }))`
  switch (f.reason) {
    case 'network':
      return (
        `init: ${where} could not be fetched (no answer: the server is unreachable, or it refused a page from another ` +
        `site, which needs the header Access-Control-Allow-Origin on the file); ${serve}`
      )
    case 'http':
      return `init: ${where} answered HTTP ${f.status}; ${serve}`
    case 'type':
      return `init: ${where} was answered with ${f.contentType ?? 'no Content-Type'}, not the wasm file; ${serve}`
    case 'file':
      return `init: ${where} could not be read (${f.detail}); the package's dist/ must hold ${f.file}`
    case 'compile':
      return `init: ${where} is not a module this engine can run (${f.detail}); ${serve}`
  }
}

/** An error's words without Emscripten's wrapping ("Aborted(…). Build with -s ASSERTIONS=1 for more info."). */
function plain(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e)
  return m.replace(/^Aborted\(([\s\S]*)\)(\. Build with -s ASSERTIONS=1 for more info\.)?$/, '$1')
}

/**
 * Why `url` (the package's `file`) did not load in a browser, asked of the server once more: no answer, an error
 * status, an answer that is not wasm, or (the file came) the compiler's words from `cause`.
 */
export async function wasmLoadFailure(url: string, file: string, cause: unknown): Promise<WasmLoadError> {
  let r: Response
  try {
    // As the glue asks for it (CORS for another origin, credentials for the same one).
    r = await fetch(url, { credentials: 'same-origin' })
  } catch {
    return new WasmLoadError({ url, file, reason: 'network' })
  }
  const contentType = r.headers.get('content-type')
  const fields = { url, file, status: r.status, contentType }
  if (!r.ok || !/^application\/wasm\b/i.test(contentType ?? '')) {
    void r.body?.cancel()
    // Emscripten compiles a wasm file sent with another type too (streaming fails, the ArrayBuffer path works):
    // an answer of another type that failed is not the file (a host's "page not found" with status 200, say).
    return new WasmLoadError({ ...fields, reason: r.ok ? 'type' : 'http' })
  }
  // The file came: the compiler's own words (the glue's rejection only says "both async and sync fetching failed").
  let detail = plain(cause)
  try {
    await WebAssembly.compile(await r.arrayBuffer())
  } catch (e) {
    detail = plain(e)
  }
  return new WasmLoadError({ ...fields, reason: 'compile', detail })
}

/** init({ wasmBinary }) whose bytes do not compile, or (Node) a file that could not be read. */
export function wasmBytesFailure(url: string, file: string, cause: unknown): WasmLoadError {
  const code = (cause as { code?: unknown } | null)?.code
  if (typeof code === 'string')
    return new WasmLoadError({ url, file, reason: 'file', detail: `${code}: ${plain(cause)}` })
  return new WasmLoadError({ url, file, reason: 'compile', detail: plain(cause) })
}
