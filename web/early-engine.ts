// The page's engine, started before the page's modules arrive (issue 38 item 4: load + init()). vite.config.ts writes
// earlyEngineScript() into the head of index.html as a classic inline script. It runs while the parser reads the head,
// before the page's first module has been fetched, and starts two things side by side: WebAssembly.compileStreaming
// of the relaxed-SIMD engine's hashed .wasm, and a modulepreload of its glue. web/main.ts takes the compilation with
// takeEarlyEngine() and hands it to init({ backend, wasmModule }).
// It does this only where init() would pick that same engine on one thread:
// - relaxed SIMD validates (the same probe as the package's policy, src/js/relaxedProbe.ts);
// - the page is not cross-origin isolated (there the threaded engine runs, which is a file of its own);
// - the page is not about to reload to become isolated (?isolate=1, web/isolate.ts).
// Anywhere else it does nothing, and the page calls init() as any other page would.

import type { Backend } from 'attention-playground'

/** What the inline script leaves for web/main.ts: the engine it picked and its compilation. */
export interface EarlyEngine {
  backend: Backend
  module: Promise<WebAssembly.Module>
}

const KEY = '__apEarlyEngine'

/**
 * The inline script's text: its URLs are the build's hashed files, relative to the page, and `probe` is the bytes
 * of the relaxed-SIMD probe module.
 */
export function earlyEngineScript(wasmUrl: string, glueUrl: string, probe: ArrayLike<number>): string {
  // JSON in a script element: a "<" could end the element, so it is written as \u003c.
  const json = (v: unknown) => JSON.stringify(v).replace(/</g, '\\u003c')
  return (
    `(function(){try{` +
    `if(self.crossOriginIsolated||typeof WebAssembly!=='object'||typeof WebAssembly.compileStreaming!=='function'` +
    `||new URLSearchParams(location.search).get('isolate')==='1'` +
    `||!WebAssembly.validate(new Uint8Array(${json(Array.from(probe))})))return;` +
    `var l=document.createElement('link');l.rel='modulepreload';l.crossOrigin='';l.href=${json(glueUrl)};` +
    `document.head.appendChild(l);` +
    `var m=WebAssembly.compileStreaming(fetch(${json(wasmUrl)},{credentials:'same-origin'}));` +
    `m.catch(function(){});` +
    `self[${json(KEY)}]={backend:'relaxed-simd',module:m}` +
    `}catch(e){}})()`
  )
}

/** The engine the inline script started, once (undefined when it started none, or when it was taken already). */
export function takeEarlyEngine(): EarlyEngine | undefined {
  const g = globalThis as { [KEY]?: EarlyEngine }
  const early = g[KEY]
  delete g[KEY]
  return early
}
