// The backend and thread policy of init(): which engine runs (relaxed SIMD where the runtime validates it,
// SIMD128 elsewhere, or the one asked for) and how many threads its kernels use, with why, in words.
import { supportsRelaxedSimd } from './relaxedProbe.js'
import { AttentionError } from './util.js'

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
  /**
   * The engine already compiled, or its compilation under way: what a page's inline script started with
   * `WebAssembly.compileStreaming(fetch(url))` while its modules were still loading (the site does so,
   * web/early-engine.ts). It must be compiled from the file of the engine `backend` names (`attention-relaxed.wasm`
   * for 'relaxed-simd', `attention.wasm` for 'simd128'), and `backend` must be given with it; one thread. A promise
   * that rejects fails init() with its reason.
   */
  wasmModule?: WebAssembly.Module | PromiseLike<WebAssembly.Module>
}

export const isNode = typeof process !== 'undefined' && !!process.versions?.node && typeof window === 'undefined'

export function pickBackend(options: InitOptions): Backend {
  const wanted = options.backend
  if (wanted !== undefined && wanted !== 'relaxed-simd' && wanted !== 'simd128') {
    throw new AttentionError(`init: backend must be 'relaxed-simd' or 'simd128', got ${JSON.stringify(wanted)}`)
  }
  if (options.wasmModule !== undefined) {
    if (options.wasmBinary) throw new AttentionError('init: give wasmModule or wasmBinary, not both')
    if (!wanted) {
      throw new AttentionError(
        "init: wasmModule needs backend: the engine it was compiled from ('relaxed-simd' or 'simd128')",
      )
    }
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
export function pickThreads(options: InitOptions, backend: Backend): { threads: number; why: string } {
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
    if (t > 1 && options.wasmModule !== undefined) {
      throw new AttentionError(
        `init: threads: ${t} cannot run a wasmModule (the threaded engine is a file of its own); pass threads: 1`,
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
  if (options.wasmModule !== undefined) return one('init({ wasmModule })')
  const cores = (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency ?? 1
  return { threads: Math.max(1, Math.min(4, cores)), why: 'cross-origin isolated' }
}
