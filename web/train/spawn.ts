// The Train panel's worker when the widget's script is on another origin than the page (a course page that loads
// widget/widget.js from the playground's site): browsers refuse `new Worker(url)` for a script of another origin
// (a SecurityError, thrown at once), but a same-origin blob: module may import that script, with CORS, as the page
// imported the widget itself; its chunks and wasm then load from beside it as usual.

/**
 * Calls `make` as written, so that bundlers still find the `new Worker(new URL('…', import.meta.url))` inside it;
 * if the browser refuses the script's origin, calls it once more with `Worker` standing for a constructor that
 * starts a blob: module importing the same URL (the global is put back before this returns).
 */
export function spawnWorker(make: () => Worker): Worker {
  try {
    return make()
  } catch (e) {
    if (!(e instanceof DOMException && e.name === 'SecurityError')) throw e
  }
  const Native = globalThis.Worker
  class Importing extends Native {
    constructor(url: string | URL, options?: WorkerOptions) {
      const src = `import ${JSON.stringify(new URL(url, location.href).href)}`
      // Not revoked: the worker fetches it after this returns, and a restarted worker is a new one.
      super(URL.createObjectURL(new Blob([src], { type: 'text/javascript' })), { ...options, type: 'module' })
    }
  }
  globalThis.Worker = Importing
  try {
    return make()
  } finally {
    globalThis.Worker = Native
  }
}
