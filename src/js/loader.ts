// The loader of init(): finds each engine's files (beside this module, through `locateFile`, or the bytes given),
// instantiates the engine picked by the policy (backendPolicy.ts) and, when wanted, its trainer module; a file that
// cannot be loaded is a WasmLoadError saying what was tried (load-error.ts).
import type { MemoryStats } from './types.js'
import { isNode, pickBackend, pickThreads } from './backendPolicy.js'
import type { Backend, InitOptions } from './backendPolicy.js'
import { wasmBytesFailure, wasmLoadFailure } from './load-error.js'
import { AttentionError, tensorOf } from './util.js'

/** The embind module's raw functions (internal: results are `{ error }` or plain objects). */
export interface RawModule {
  run(o: object): unknown
  projections(o: object): unknown
  attention(o: object): unknown
  attentionBackward(o: object): unknown
  runBackward(o: object): unknown
  multiHeadAttention(o: object): unknown
  flashTrace(o: object): unknown
  tokenize(text: unknown, kind: unknown, o: object): unknown
  memoryStats(): MemoryStats
  backend(): string
  warmUp(): void
  setThreads(n: number): number
  threads(): number
  [key: string]: unknown
}

/** A loaded module and why it runs the threads it does (for `backendInfo`), its trainer if loaded with it. */
export interface Loaded {
  module: RawModule
  why: string
  trainer: RawModule | undefined
  options: InitOptions
}

// Literal URLs, so bundlers see both .wasm files and copy them.
const WASM_FILE: Record<Backend, { name: string; url: () => URL }> = {
  'relaxed-simd': { name: 'attention-relaxed.wasm', url: () => new URL('./attention-relaxed.wasm', import.meta.url) },
  simd128: { name: 'attention.wasm', url: () => new URL('./attention.wasm', import.meta.url) },
}

const THREADS_FILE = { name: 'attention-threads.wasm', url: () => new URL('./attention-threads.wasm', import.meta.url) }
// The pthread workers import the engine's glue themselves, from this URL (Emscripten's mainScriptUrlOrBlob;
// without it they would import "attention.js", the single-thread glue).
const THREADS_GLUE = { name: 'attention-threads.js', url: () => new URL('./attention-threads.js', import.meta.url) }
const THREADS_WORKER = {
  name: 'attention-threads.worker.js',
  url: () => new URL('./attention-threads.worker.js', import.meta.url),
}

// The trainer modules (src/bindings/train*.cpp), one per single-thread engine; literal URLs for bundlers.
const TRAINER_FILE: Record<Backend, { name: string; url: () => URL }> = {
  'relaxed-simd': {
    name: 'attention-train-relaxed.wasm',
    url: () => new URL('./attention-train-relaxed.wasm', import.meta.url),
  },
  simd128: { name: 'attention-train.wasm', url: () => new URL('./attention-train.wasm', import.meta.url) },
}

/** A wasm file beside this module, in Node; hidden from bundlers: browsers fetch it instead. */
async function readBeside(url: URL): Promise<Uint8Array> {
  const fsName = 'node:fs/promises'
  const fs = (await import(/* @vite-ignore */ fsName)) as typeof import('node:fs/promises')
  return fs.readFile(url)
}

/** The trainer module of an engine's backend, found as init's options find the engine (one thread). */
export async function instantiateTrainer(options: InitOptions, backend: Backend): Promise<RawModule> {
  const file = TRAINER_FILE[backend]
  const moduleArgs: Record<string, unknown> = {}
  let url = ''
  if (options.locateFile) {
    const locate = options.locateFile
    url = locate(file.name)
    moduleArgs.locateFile = (f: string) => locate(f.endsWith('.wasm') ? file.name : f)
  } else if (isNode) {
    moduleArgs.wasmBinary = await readWasm(file.url(), file.name)
  } else {
    url = file.url().href
    moduleArgs.locateFile = () => url
  }
  const glue =
    backend === 'relaxed-simd'
      ? import('./attention-train-relaxed.js').then((m) => m.default)
      : import('./attention-train.js').then((m) => m.default)
  return withTensorOf((await loaded(glue, moduleArgs, url, file.name)) as RawModule)
}

/** A wasm file beside this module (Node), its failure named as a WasmLoadError. */
async function readWasm(url: URL, name: string): Promise<Uint8Array> {
  try {
    return await readBeside(url)
  } catch (e) {
    throw wasmBytesFailure(url.pathname, name, e)
  }
}

/**
 * The engine's wasm fetched and compiled (streaming: off the main thread) while its glue is still being imported, so the
 * two requests go out together instead of one after the other, or compiled already (init({ wasmModule })); the glue
 * instantiates the compiled module through its `instantiateWasm` hook. `failed` rejects when the file cannot be
 * fetched or compiled: the glue, handed the hook, would otherwise wait for it forever.
 */
interface EarlyWasm {
  hook(imports: WebAssembly.Imports, receive: (i: WebAssembly.Instance, m: WebAssembly.Module) => void): object
  failed: Promise<never>
}

function earlyWasm(compiled: Promise<WebAssembly.Module>): EarlyWasm {
  compiled.catch(() => {}) // a glue that did not load never asks for it
  let fail: (e: unknown) => void = () => {}
  const failed = new Promise<never>((_, reject) => (fail = reject))
  failed.catch(() => {}) // read by loaded(); never an unhandled rejection when the load went well
  return {
    hook(imports, receive) {
      compiled.then(async (m) => receive(await WebAssembly.instantiate(m, imports), m)).catch(fail)
      return {} // the exports arrive through `receive`
    },
    failed,
  }
}

/** init({ wasmModule }): the module given, or what its promise gives; anything else, or a rejection, named. */
async function givenModule(given: NonNullable<InitOptions['wasmModule']>): Promise<WebAssembly.Module> {
  let m: unknown
  try {
    m = await given
  } catch (e) {
    throw new AttentionError(`init: wasmModule was rejected: ${e instanceof Error ? e.message : String(e)}`)
  }
  if (!(m instanceof WebAssembly.Module)) {
    const got = m === null ? 'null' : typeof m === 'object' ? (m.constructor?.name ?? 'an object') : typeof m
    throw new AttentionError(`init: wasmModule must be a WebAssembly.Module or a promise of one, got ${got}`)
  }
  return m
}

/** As the glue fetches (credentials for the same origin, CORS for another); another type than application/wasm is
 * compiled from its bytes, as the glue did (streaming compilation refuses it). */
async function compileWasm(url: string): Promise<WebAssembly.Module> {
  if (typeof WebAssembly.compileStreaming === 'function') {
    try {
      return await WebAssembly.compileStreaming(fetch(url, { credentials: 'same-origin' }))
    } catch {
      // fetched again below: the failed attempt may have read the body
    }
  }
  const r = await fetch(url, { credentials: 'same-origin' })
  if (!r.ok) throw new Error(`HTTP ${r.status}`)
  return WebAssembly.compile(await r.arrayBuffer())
}

/**
 * Starts a glue and waits for it; its rejection (Emscripten's "Aborted(…)") is replaced by what was tried and what to
 * serve. The glue's stderr lines while it loads ("wasm streaming compile failed…", "Aborted(…)") are held back and
 * dropped if it fails (the error says it better); once it has loaded, its lines go to console.warn as before.
 */
async function loaded<T>(
  glue: Promise<(args: Record<string, unknown>) => Promise<T>>,
  moduleArgs: Record<string, unknown>,
  url: string,
  file: string,
  given?: InitOptions['wasmModule'],
): Promise<T> {
  // The module given (init({ wasmModule })), or a browser fetching the wasm from an address: the fetch starts now,
  // beside the glue's import.
  const early =
    given !== undefined ? earlyWasm(givenModule(given)) : url && !isNode ? earlyWasm(compileWasm(url)) : undefined
  // A glue that cannot be imported fails as it did (the browser's words name its address).
  const factory = await glue
  let held: unknown[][] | null = []
  const printErr = (...a: unknown[]) => (held ? held.push(a) : console.warn(...a))
  try {
    const m = await (early
      ? Promise.race([factory({ ...moduleArgs, printErr, instantiateWasm: early.hook }), early.failed])
      : factory({ ...moduleArgs, printErr }))
    for (const a of held) console.warn(...a)
    return m
  } catch (e) {
    if (e instanceof AttentionError) throw e
    if (given !== undefined)
      throw new AttentionError(
        `init: wasmModule could not be instantiated as ${file} (compile the module from that file): ${String(e)}`,
      )
    throw url ? await wasmLoadFailure(url, file, e) : wasmBytesFailure('', file, e)
  } finally {
    held = null
  }
}

/** The module's Tensor decoder hands what is not yet a Tensor to {@link tensorOf} (src/bindings/convert.h). */
function withTensorOf(module: RawModule): RawModule {
  module.tensorOf = tensorOf
  return module
}

export async function instantiate(options: InitOptions): Promise<Loaded> {
  const backend = pickBackend(options)
  const { threads, why } = pickThreads(options, backend)
  const file = threads > 1 ? THREADS_FILE : WASM_FILE[backend]
  const moduleArgs: Record<string, unknown> = {}
  /** The address the glue fetches the wasm from (none when the bytes are given or read from disk). */
  let url = ''
  if (options.wasmModule !== undefined) {
    // Compiled already: the glue reads no file (nor its URL, as with wasmBinary below).
    moduleArgs.locateFile = (f: string) => f
  } else if (options.wasmBinary) {
    moduleArgs.wasmBinary = options.wasmBinary
    // The glue would otherwise resolve its file's URL against import.meta.url, which fails for a module
    // imported from a blob: or data: URL (a notebook's inlined widget); with the bytes given, no URL is read.
    moduleArgs.locateFile = (f: string) => f
  } else if (options.locateFile) {
    const locate = options.locateFile
    url = locate(file.name)
    // Both glues ask for "attention.wasm" (the name they were linked under): hand over the engine's own file.
    moduleArgs.locateFile = (f: string) =>
      locate(f.endsWith('.wasm') ? file.name : f.endsWith('.worker.js') ? THREADS_WORKER.name : f)
  } else if (isNode) {
    moduleArgs.wasmBinary = await readWasm(file.url(), file.name)
  } else {
    url = file.url().href
    moduleArgs.locateFile = (f: string) => (f.endsWith('.worker.js') ? THREADS_WORKER.url().href : url)
  }
  if (threads > 1) {
    moduleArgs.mainScriptUrlOrBlob = options.locateFile
      ? options.locateFile(THREADS_GLUE.name)
      : THREADS_GLUE.url().href
  }
  type Factory = (a: Record<string, unknown>) => Promise<RawModule>
  const glue = (
    threads > 1
      ? import('./attention-threads.js').then((m) => m.default)
      : backend === 'relaxed-simd'
        ? import('./attention-relaxed.js').then((m) => m.default)
        : import('./attention.js').then((m) => m.default)
  ) as Promise<Factory>
  const wantTrainer = options.trainer ?? isNode
  const [module, trainer] = await Promise.all([
    loaded(glue, moduleArgs, url, file.name, options.wasmModule),
    wantTrainer ? instantiateTrainer(options, backend) : undefined,
  ])
  if (threads > 1) module.setThreads(threads)
  return { module: withTensorOf(module), why, trainer, options }
}
