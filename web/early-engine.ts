// The page's engine, started before the page's modules arrive (issue 38 item 4: load + init()). vite.config.ts writes
// earlyEngineScript() into the head of index.html as a classic inline script. It runs while the parser reads the head,
// before the page's first module has been fetched, and starts two things side by side: WebAssembly.compileStreaming
// of the hashed .wasm of the engine init() would pick, and a modulepreload of its glue. web/main.ts takes the
// compilation with takeEarlyEngine() and hands it to init({ backend, wasmModule }).
// The engine is the one-thread engine that the package's policy (src/js/backendPolicy.ts) would pick:
// - 'relaxed-simd' where relaxed SIMD validates (the same probe bytes, src/js/relaxedProbe.ts);
// - 'simd128' elsewhere (Safari, for one).
// It starts nothing in two cases, and the page then calls init() as any other page would:
// - relaxed SIMD on a cross-origin isolated page (there the threaded engine runs, which is a file of its own);
// - a page about to reload to become isolated (?isolate=1, web/isolate.ts).

import type { Backend } from 'attention-playground'

/** What the inline script leaves for web/main.ts: the engine it picked and its compilation. */
export interface EarlyEngine {
  backend: Backend
  module: Promise<WebAssembly.Module>
}

const KEY = '__apEarlyEngine'

/** One engine's files in the build, as URLs relative to the page. */
export interface EngineFiles {
  wasm: string
  glue: string
}

/**
 * The inline script's text. `probe` is the bytes of the relaxed-SIMD probe module; `relaxed` and `simd128` are each
 * engine's hashed files.
 */
export function earlyEngineScript(probe: ArrayLike<number>, relaxed: EngineFiles, simd128: EngineFiles): string {
  // JSON in a script element: a "<" could end the element, so it is written as \u003c.
  const json = (v: unknown) => JSON.stringify(v).replace(/</g, '\\u003c')
  const engine = (backend: Backend, f: EngineFiles) => json([backend, f.wasm, f.glue])
  return (
    `(function(){try{` +
    `if(typeof WebAssembly!=='object'||typeof WebAssembly.compileStreaming!=='function')return;` +
    `var relaxed=WebAssembly.validate(new Uint8Array(${json(Array.from(probe))}));` +
    `if(self.crossOriginIsolated?relaxed:new URLSearchParams(location.search).get('isolate')==='1')return;` +
    `var e=relaxed?${engine('relaxed-simd', relaxed)}:${engine('simd128', simd128)};` +
    `var l=document.createElement('link');l.rel='modulepreload';l.crossOrigin='';l.href=e[2];` +
    `document.head.appendChild(l);` +
    `var m=WebAssembly.compileStreaming(fetch(e[1],{credentials:'same-origin'}));` +
    `m.catch(function(){});` +
    `self[${json(KEY)}]={backend:e[0],module:m}` +
    `}catch(x){}})()`
  )
}

/** The engine the inline script started, once (undefined when it started none, or when it was taken already). */
export function takeEarlyEngine(): EarlyEngine | undefined {
  const g = globalThis as { [KEY]?: EarlyEngine }
  const early = g[KEY]
  delete g[KEY]
  return early
}
