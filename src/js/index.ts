/**
 * attention-playground: the attention engine (C++ / Eigen / WebAssembly SIMD128) for Node ≥ 20, browsers and bundlers.
 *
 * ```ts
 * import { init } from 'attention-playground'
 * const ap = await init()
 * const trace = ap.run({ text: 'this is my cat' })   // the course's numbers, equal to PyTorch's
 * ```
 */
import createAttentionModule from './attention.js'
import type {
  AttentionBackwardOptions,
  AttentionBackwardResult,
  AttentionOptions,
  AttentionResult,
  FlashTraceOptions,
  FlashTraceResult,
  MemoryStats,
  MultiHeadAttentionOptions,
  MultiHeadAttentionResult,
  Projections,
  ProjectionsOptions,
  RunBackwardOptions,
  RunBackwardResult,
  RunOptions,
  TokenizerName,
  Tokenization,
  Trace,
} from './types.js'
import { AttentionError, tensorOf, unwrap } from './util.js'
import { createTrainerFor } from './trainer.js'
import type { Trainer, TrainerOptions } from './trainer.js'
import type { PoemsTrainer, PoemsTrainerOptions } from './poemsTrainer.js'
import { loadLanguageModelFor } from './languageModel.js'
import { wasmBytesFailure, wasmLoadFailure } from './load-error.js'
import type { LanguageModel } from './languageModel.js'

export * from './types.js'
export { AttentionError, toTensor } from './util.js'
export { WasmLoadError, type WasmLoadReason } from './load-error.js'
export type { Tensor, TensorLike } from './util.js'
export type * from './trainer.js'
export type * from './languageModel.js'
export type * from './poemsTrainer.js'

/**
 * The engines: the same C++ built twice. 'relaxed-simd' (fused multiply-add, `attention-relaxed.wasm`) where
 * the runtime validates relaxed SIMD (Chromium-based browsers ≥ 114, Node with
 * `--experimental-wasm-relaxed-simd`); 'simd128' (`attention.wasm`) everywhere else.
 */
export type Backend = 'relaxed-simd' | 'simd128'

/** How to find the `.wasm` file. By default it is loaded from beside this module. */
export interface InitOptions {
  /** The module's bytes, if you have them (skips fetching). They are the 'simd128' engine unless `backend` says otherwise. */
  wasmBinary?: ArrayBuffer | Uint8Array
  /**
   * Where the `.wasm` is served from, e.g. `(file) => '/assets/' + file`. It is asked for the file of the engine
   * picked: `attention-relaxed.wasm` or `attention.wasm`; serve both.
   */
  locateFile?: (file: string) => string
  /** Force an engine instead of picking the fastest the runtime supports; an unsupported one is an error. */
  backend?: Backend
  /**
   * Threads for the kernels. Default: on a cross-origin isolated page (`crossOriginIsolated`, see the README's
   * COOP/COEP headers) with relaxed SIMD, one per core up to 4 (the 'relaxed-simd' engine built with a pthread
   * pool, `attention-threads.{js,wasm,worker.js}`); 1 elsewhere. 1 forces one thread; more than 1 where the page
   * is not isolated is an error. Bundles that inline every chunk into one file (the widget) must pass 1.
   */
  threads?: number
  /**
   * Load the trainer module (`attention-train.wasm`, or `attention-train-relaxed.wasm` beside the relaxed engines:
   * the attention tasks' and the language model's training, left out of the page's engine) now, so that
   * `createTrainer` works at once. Default: true in Node, false in browsers, where `await ap.loadTrainer()` loads it
   * when a trainer is first wanted. `locateFile` is asked for its file too.
   */
  trainer?: boolean
}

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

export interface Engine {
  /** The course's pipeline with every step kept (defaults reproduce its PyTorch program). */
  run(options?: RunOptions): Trace
  /**
   * `run` up to Q, K and V (tokens, embeddings, W_q, W_k, W_v, Q, K, V, the rule's parameters, the scale), by the
   * same code, with no attention: O(n) for a text of n tokens. Its Q, K, V are run()'s bit for bit.
   */
  projections(options?: ProjectionsOptions): Projections
  /** One attention call on your own Q, K, V ([n, d] or [batch, n, d]). */
  attention(options: AttentionOptions): AttentionResult
  /** The backward pass of one attention call: dL/dQ, dL/dK, dL/dV, dL/dA, dL/dS from dL/dO (docs/backward.md). */
  attentionBackward(options: AttentionBackwardOptions): AttentionBackwardResult
  /** `run`, then a loss you pick and its gradients back to the embeddings and Wq, Wk, Wv (docs/backward.md). */
  runBackward(options: RunBackwardOptions): RunBackwardResult
  /** torch.nn.MultiheadAttention's computation (weights in PyTorch layout). */
  multiHeadAttention(options: MultiHeadAttentionOptions): MultiHeadAttentionResult
  /**
   * FlashAttention's tiles as the fused kernel computes them: after each tile, each row's running max m, running
   * sum l and unnormalised output O (the kernel's own driver, recording).
   */
  flashTrace(options: FlashTraceOptions): FlashTraceResult
  tokenize(text: string, tokenizer?: TokenizerName, options?: { bpeCorpus?: string; bpeMerges?: number }): Tokenization
  /**
   * A language model to train from scratch on token ids (`task: 'poems'`, poemsTrainer.ts: the Train tab's Tang
   * poems); call `dispose()` when done.
   */
  createTrainer(options: PoemsTrainerOptions): PoemsTrainer
  /**
   * A small attention model to train in place (see trainer.ts); call `dispose()` when done. Needs the trainer
   * module: loaded by init() in Node (and with `init({ trainer: true })`), elsewhere by `await ap.loadTrainer()`
   * first; without it this throws an AttentionError saying so.
   */
  createTrainer(options?: TrainerOptions): Trainer
  /**
   * Loads the trainer module of this engine's backend (once; later calls return the same promise) and resolves
   * to this engine, whose `createTrainer` then works. The page's engine leaves the trainers out (~60 KB gzipped).
   */
  loadTrainer(): Promise<Engine>
  /** Is the trainer module loaded (createTrainer available)? */
  readonly trainerLoaded: boolean
  /**
   * Opens a nanoGPT checkpoint in safetensors (its state-dict names; `__metadata__` vocab and n_head): forward,
   * generate, head scores (languageModel.ts, docs/api.md); call `dispose()` when done.
   */
  loadLanguageModel(bytes: ArrayBuffer | ArrayBufferView): LanguageModel
  /** Wasm memory in use (for leak checks and budgets): the engine's and, once loaded, the trainer module's together. */
  memoryStats(): MemoryStats
  /**
   * Runs every kernel once on small data (~15 ms) so the engine's first long call is not slowed by V8's
   * baseline tier (150–500 ms at n = 2048). Call it when the page is idle, e.g. in requestIdleCallback.
   */
  warmUp(): void
  /** The engine running: 'relaxed-simd' (FMA) or 'simd128' (see {@link Backend}). */
  readonly backend: Backend
  /**
   * The engine and its threads in words, with why that many: e.g. 'relaxed-simd, 4 threads: cross-origin isolated',
   * 'relaxed-simd, 1 thread: not cross-origin isolated' (a static host without COOP/COEP, such as GitHub Pages).
   */
  readonly backendInfo: string
  /** Threads the kernels use (1 unless the page is cross-origin isolated; see {@link InitOptions.threads}). */
  readonly threads: number
  /** Changes the thread count (1 .. the count init() started with); returns the count in effect. */
  setThreads(n: number): number
  /** The underlying module (advanced: tests use it). */
  readonly module: RawModule
  /** The trainer module once loaded (advanced: `createTrainerFor(ap.trainerModule, options)`), else undefined. */
  readonly trainerModule: RawModule | undefined
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** A JS string with a lone UTF-16 surrogate is not valid Unicode; say so instead of letting it garble the text. */
function checkText(name: string, value: string): void {
  const m = LONE_SURROGATE.exec(value)
  if (m) {
    throw new AttentionError(
      `${name}: unpaired UTF-16 surrogate U+${m[0].charCodeAt(0).toString(16).toUpperCase()} at index ${m.index} (not valid Unicode)`,
    )
  }
}

/**
 * A plain copy of the caller's options, read entirely here in JS: a getter or Proxy trap that throws then
 * throws before the module is entered. (A JS exception thrown while C++ reads a value unwinds through the
 * wasm frames without running destructors, leaking what the call had allocated.) Typed arrays pass as they are;
 * the string of each key is checked to be valid Unicode on the way (the copy into the module would garble a lone
 * surrogate). What the options mean — names, kinds, values, which are Tensors — is the module's to read
 * (src/bindings/convert.h Options), so no list of option names is kept here.
 */
function plain(v: unknown, name = '', depth = 0): unknown {
  if (typeof v === 'string' && name) checkText(name, v)
  if (v === null || typeof v !== 'object' || ArrayBuffer.isView(v) || depth > 8) return v
  if (Array.isArray(v)) return Array.from(v, (e) => plain(e, '', depth + 1))
  const out: Record<string, unknown> = {}
  for (const [k, e] of Object.entries(v)) out[k] = plain(e, name ? `${name}.${k}` : k, depth + 1)
  return out
}

type TrainerMember = 'createTrainer' | 'loadTrainer' | 'trainerLoaded' | 'trainerModule' | 'memoryStats'

/** An engine's trainer module: loaded with it (`trainer`) or on the first `load()`, once. */
function trainerSlot(options: InitOptions, backend: Backend, trainer: RawModule | undefined) {
  let loading: Promise<RawModule> | undefined
  const slot = {
    loaded: trainer,
    load(): Promise<RawModule> {
      if (slot.loaded) return Promise.resolve(slot.loaded)
      if (!loading) {
        loading = instantiateTrainer(options, backend).then((m) => (slot.loaded = m))
        loading.catch(() => {
          loading = undefined // a failed load (say, a 404) may be retried
        })
      }
      return loading
    },
    module(fn: string): RawModule {
      if (slot.loaded) return slot.loaded
      throw new AttentionError(
        `${fn}: the trainer module is not loaded (the page engine leaves it out): ` +
          'call `await ap.loadTrainer()` once first, or init({ trainer: true })',
      )
    },
  }
  return slot
}

/** One engine call: the options copied (see {@link plain}), the module's `{ error }` thrown as an AttentionError. */
function call<T>(f: (o: object) => unknown, options: unknown): T {
  return unwrap<T>(f(plain(options) as object))
}

function makeEngine({ module, why, trainer, options }: Loaded): Engine {
  const maxThreads = module.threads()
  const backend = module.backend() as Backend
  const engine: Omit<Engine, TrainerMember> = {
    run: (options?: RunOptions) => call<Trace>(module.run, options),
    projections: (options?: ProjectionsOptions) => call<Projections>(module.projections, options),
    attention: (options: AttentionOptions) => call<AttentionResult>(module.attention, options),
    attentionBackward: (options: AttentionBackwardOptions) =>
      call<AttentionBackwardResult>(module.attentionBackward, options),
    runBackward: (options: RunBackwardOptions) => call<RunBackwardResult>(module.runBackward, options),
    // A batch (query [B, nq, E], PyTorch's batch_first=True) is split and stacked by the module.
    multiHeadAttention: (options: MultiHeadAttentionOptions) =>
      call<MultiHeadAttentionResult>(module.multiHeadAttention, options),
    flashTrace: (options: FlashTraceOptions) => call<FlashTraceResult>(module.flashTrace, options),
    tokenize(
      text: string,
      tokenizer?: TokenizerName,
      options?: { bpeCorpus?: string; bpeMerges?: number },
    ): Tokenization {
      if (typeof text === 'string') checkText('text', text)
      return unwrap<Tokenization>(module.tokenize(text, tokenizer, plain(options) as object))
    },
    loadLanguageModel: (bytes: ArrayBuffer | ArrayBufferView) => loadLanguageModelFor(module, bytes),
    warmUp: () => module.warmUp(),
    backend,
    backendInfo: `${backend}, ${maxThreads} thread${maxThreads > 1 ? 's' : ''}: ${why}`,
    get threads() {
      return module.threads()
    },
    setThreads(n: number): number {
      if (!Number.isInteger(n) || n < 1 || n > maxThreads) {
        throw new AttentionError(`setThreads: n must be an integer from 1 to ${maxThreads}, got ${String(n)}`)
      }
      return module.setThreads(n)
    },
    module,
  }
  return withTrainer(engine, module, trainerSlot(options, backend, trainer))
}

/** The Engine's trainer members (issue 38: the trainers are a module of their own, see {@link trainerSlot}). */
function withTrainer(e: Omit<Engine, TrainerMember>, module: RawModule, slot: ReturnType<typeof trainerSlot>): Engine {
  const engine = e as Engine
  Object.defineProperties(engine, {
    createTrainer: {
      enumerable: true,
      value: (o?: TrainerOptions) => createTrainerFor(slot.module('createTrainer'), o),
    },
    loadTrainer: { enumerable: true, value: () => slot.load().then(() => engine) },
    trainerLoaded: { enumerable: true, get: () => slot.loaded !== undefined },
    trainerModule: { enumerable: true, get: () => slot.loaded },
    // both modules' memory once the trainer is loaded
    memoryStats: {
      enumerable: true,
      value: (): MemoryStats => {
        const a = module.memoryStats()
        const b = slot.loaded?.memoryStats()
        return b ? { heapBytes: a.heapBytes + b.heapBytes, allocatedBytes: a.allocatedBytes + b.allocatedBytes } : a
      },
    },
  })
  return engine
}

const isNode = typeof process !== 'undefined' && !!process.versions?.node && typeof window === 'undefined'

// The smallest module using a relaxed-SIMD instruction: (func (param v128 v128 v128) (result v128)
// (f32x4.relaxed_madd (local.get 0) (local.get 1) (local.get 2))). Runtimes without relaxed SIMD reject it.
const RELAXED_PROBE = new Uint8Array([
  0x00,
  0x61,
  0x73,
  0x6d,
  0x01,
  0x00,
  0x00,
  0x00, // magic, version 1
  0x01,
  0x08,
  0x01,
  0x60,
  0x03,
  0x7b,
  0x7b,
  0x7b,
  0x01,
  0x7b, // type: (v128 v128 v128) -> v128
  0x03,
  0x02,
  0x01,
  0x00, // one function of that type
  0x0a,
  0x0d,
  0x01,
  0x0b,
  0x00,
  0x20,
  0x00,
  0x20,
  0x01,
  0x20,
  0x02,
  0xfd,
  0x85,
  0x02,
  0x0b, // code: no locals, the body
])

/** Does this runtime run relaxed SIMD (checked once, by validating a tiny module)? */
export function supportsRelaxedSimd(): boolean {
  try {
    return typeof WebAssembly === 'object' && WebAssembly.validate(RELAXED_PROBE)
  } catch {
    return false
  }
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

function pickBackend(options: InitOptions): Backend {
  const wanted = options.backend
  if (wanted !== undefined && wanted !== 'relaxed-simd' && wanted !== 'simd128') {
    throw new AttentionError(`init: backend must be 'relaxed-simd' or 'simd128', got ${JSON.stringify(wanted)}`)
  }
  if (wanted === 'relaxed-simd' && !supportsRelaxedSimd()) {
    throw new AttentionError(
      "init: backend 'relaxed-simd' is not supported by this runtime (WebAssembly.validate rejects relaxed SIMD; " +
        'Node needs --experimental-wasm-relaxed-simd)',
    )
  }
  if (wanted) return wanted
  if (options.wasmBinary) return 'simd128'
  return supportsRelaxedSimd() ? 'relaxed-simd' : 'simd128'
}

/** Threads wanted: the option, or one per core (at most 4) where the page can share memory with workers; and why. */
function pickThreads(options: InitOptions, backend: Backend): { threads: number; why: string } {
  const isolated =
    (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true &&
    typeof SharedArrayBuffer === 'function'
  const t = options.threads
  if (t !== undefined) {
    if (!Number.isInteger(t) || t < 1)
      throw new AttentionError(`init: threads must be an integer ≥ 1, got ${String(t)}`)
    if (t > 1 && !isolated) {
      throw new AttentionError(
        `init: threads: ${t} needs a cross-origin isolated page (Cross-Origin-Opener-Policy: same-origin and ` +
          'Cross-Origin-Embedder-Policy: require-corp); this one is not',
      )
    }
    if (t > 1 && backend !== 'relaxed-simd') {
      throw new AttentionError(
        `init: threads: ${t} needs the 'relaxed-simd' engine, and this runtime runs '${backend}'`,
      )
    }
    return { threads: t, why: `init({ threads: ${t} })` }
  }
  // Automatic only on a page's main thread: a worker (the trainer's) keeps one.
  const one = (why: string) => ({ threads: 1, why })
  if (isNode) return one('Node')
  if (typeof window === 'undefined') return one('a worker')
  if (!isolated) return one('not cross-origin isolated')
  if (backend !== 'relaxed-simd') return one('the threaded engine needs relaxed SIMD')
  if (options.wasmBinary) return one('init({ wasmBinary })')
  const cores = (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency ?? 1
  return { threads: Math.max(1, Math.min(4, cores)), why: 'cross-origin isolated' }
}

/** A loaded module and why it runs the threads it does (for `backendInfo`), its trainer if loaded with it. */
interface Loaded {
  module: RawModule
  why: string
  trainer: RawModule | undefined
  options: InitOptions
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
async function instantiateTrainer(options: InitOptions, backend: Backend): Promise<RawModule> {
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
  const factory =
    backend === 'relaxed-simd'
      ? (await import('./attention-train-relaxed.js')).default
      : (await import('./attention-train.js')).default
  return withTensorOf((await loaded(factory, moduleArgs, url, file.name)) as RawModule)
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
 * Starts a glue and waits for it; its rejection (Emscripten's "Aborted(…)") is replaced by what was tried and what to
 * serve. The glue's stderr lines while it loads ("wasm streaming compile failed…", "Aborted(…)") are held back and
 * dropped if it fails (the error says it better); once it has loaded, its lines go to console.warn as before.
 */
async function loaded<T>(
  factory: (args: Record<string, unknown>) => Promise<T>,
  moduleArgs: Record<string, unknown>,
  url: string,
  file: string,
): Promise<T> {
  let held: unknown[][] | null = []
  const printErr = (...a: unknown[]) => (held ? held.push(a) : console.warn(...a))
  try {
    const m = await factory({ ...moduleArgs, printErr })
    for (const a of held) console.warn(...a)
    return m
  } catch (e) {
    if (e instanceof AttentionError) throw e
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

async function instantiate(options: InitOptions): Promise<Loaded> {
  const backend = pickBackend(options)
  const { threads, why } = pickThreads(options, backend)
  const file = threads > 1 ? THREADS_FILE : WASM_FILE[backend]
  const moduleArgs: Record<string, unknown> = {}
  /** The address the glue fetches the wasm from (none when the bytes are given or read from disk). */
  let url = ''
  if (options.wasmBinary) {
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
  const factory =
    threads > 1
      ? (await import('./attention-threads.js')).default
      : backend === 'relaxed-simd'
        ? (await import('./attention-relaxed.js')).default
        : createAttentionModule
  const wantTrainer = options.trainer ?? isNode
  const [module, trainer] = await Promise.all([
    loaded(factory as (a: Record<string, unknown>) => Promise<RawModule>, moduleArgs, url, file.name),
    wantTrainer ? instantiateTrainer(options, backend) : undefined,
  ])
  if (threads > 1) module.setThreads(threads)
  return { module: withTensorOf(module), why, trainer, options }
}

let defaultEngine: Promise<Engine> | undefined

/**
 * Loads the WebAssembly module. The first call without options loads it once and later calls share it;
 * calls with options make a separate instance (its own memory).
 */
export function init(options?: InitOptions): Promise<Engine> {
  if (
    options &&
    (options.wasmBinary ||
      options.locateFile ||
      options.backend ||
      options.threads !== undefined ||
      options.trainer !== undefined)
  ) {
    return instantiate(options).then(makeEngine)
  }
  if (!defaultEngine) {
    defaultEngine = instantiate({}).then(makeEngine)
    defaultEngine.catch(() => {
      defaultEngine = undefined // a failed load (say, a 404) may be retried
    })
  }
  return defaultEngine
}

export * from './files.js'
