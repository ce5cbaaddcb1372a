// The page's first module: reads the state from the URL, takes the engine that the page's head has been compiling
// (web/early-engine.ts) or starts loading it, and mounts the playground (web/app.ts) when both have loaded. It imports
// only what the page shows before then (the title, "Loading", and why something did not load: web/i18n/boot.ts), so
// it runs as soon as this small file has arrived, not after the page's strings and views (most of its script).

import { init } from 'attention-playground'
import { browserLang, defaultState, parseParams } from './state'
import { translate, type Lang } from './i18n/core'
import { BOOT } from './i18n/boot'
import { loadFailureText } from './engine-errors'
import { errorMessage } from './format'
import { isolateIfAsked } from './isolate'
import { prefetchSampleModel } from './compute/poems-sample'
import { takeEarlyEngine } from './early-engine'

/**
 * The engine: the one index.html's inline script has been compiling since the head was read (web/early-engine.ts), or
 * init()'s own. Should the early one fail (say, a host that serves .wasm as another type), init() loads the engine
 * again its own way, and its error is the one the page shows.
 */
function startEngine() {
  const early = takeEarlyEngine()
  if (!early) return init()
  return init({ backend: early.backend, wasmModule: early.module }).catch((e: unknown) => {
    console.warn('the engine started by the page’s head did not load; loading it again:', e)
    return init()
  })
}

/** The page's own code did not load (the engine did, or has not failed yet): the message names its URL. */
class CodeLoadError extends Error {}

const root = document.getElementById('app')!
const search = new URLSearchParams(location.search)
const { state, notices } = parseParams(search, defaultState(browserLang(navigator.languages)))
const t = translate(BOOT, state.lang)
/** The document's language and title, for the page's language now and after the learner switches it. */
const showLang = (lang: Lang) => {
  document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en'
  document.title = translate(BOOT, lang)('title')
}
showLang(state.lang)
const status = document.createElement('p')
status.className = 'boot'
status.textContent = t('loading')
root.append(status)

// ?isolate=1 on a host without COOP/COEP: the page reloads through its service worker (nothing more to do here).
if (await isolateIfAsked(search)) await new Promise(() => {})

try {
  performance.mark('ap-init-start')
  // The page opens on "Write a poem" with its sample model: that file downloads beside the engine and the code.
  if (state.view === 'generate' && !state.src) prefetchSampleModel()
  // The engine (its glue and wasm fetched, compiled, initialised) and the page's code (every view, KaTeX, the
  // strings: most of the page's script) load side by side.
  const [engine, { startPage }] = await Promise.all([
    startEngine().then((e) => (performance.mark('ap-init-end'), e)),
    import('./app').catch((cause: unknown) => Promise.reject(new CodeLoadError('the page’s code', { cause }))),
  ])
  status.remove()
  startPage(root, engine, state, notices, showLang)
  performance.mark('ap-mounted')
} catch (e) {
  // The URL tried and what to serve there, in the page's language (never Emscripten's "Aborted(…)").
  status.textContent =
    e instanceof CodeLoadError ? `${t('codeLoadFailed')} ${errorMessage(e.cause)}` : loadFailureText(t, e)
  status.setAttribute('role', 'alert')
}
