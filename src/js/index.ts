/**
 * attention-playground: the attention engine (C++ / Eigen / WebAssembly SIMD128) for Node ≥ 20, browsers and bundlers.
 *
 * ```ts
 * import { init } from 'attention-playground'
 * const ap = await init()
 * const trace = ap.run({ text: 'this is my cat' })   // the course's numbers, equal to PyTorch's
 * ```
 */
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
import { AttentionError, unwrap } from './util.js'
import type { Backend, InitOptions } from './backendPolicy.js'
import { instantiate, instantiateTrainer } from './loader.js'
import type { Loaded, RawModule } from './loader.js'
import { createTrainerFor } from './trainer.js'
import type { Trainer, TrainerOptions } from './trainer.js'
import type { PoemsTrainer, PoemsTrainerOptions } from './poemsTrainer.js'
import { loadLanguageModelFor } from './languageModel.js'
import type { LanguageModel } from './languageModel.js'

export * from './types.js'
export { AttentionError, toTensor } from './util.js'
export { WasmLoadError, type WasmLoadReason } from './load-error.js'
export type { Tensor, TensorLike } from './util.js'
export type * from './trainer.js'
export type * from './languageModel.js'
export type * from './poemsTrainer.js'
// The backend and thread policy, the loader and the relaxed-SIMD probe have a file each; their public names are here.
export type { Backend, InitOptions } from './backendPolicy.js'
export type { RawModule } from './loader.js'
export { supportsRelaxedSimd } from './relaxedProbe.js'

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

let defaultEngine: Promise<Engine> | undefined

/**
 * Loads the WebAssembly module. The first call without options loads it once and later calls share it;
 * calls with options make a separate instance (its own memory).
 */
export function init(options?: InitOptions): Promise<Engine> {
  if (
    options &&
    (options.wasmBinary ||
      options.wasmModule !== undefined ||
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
