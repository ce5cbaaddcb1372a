// The page: reads the state from the URL, loads the engine once, mounts the playground full-size and
// keeps the URL in step with what is on screen (a link reproduces the view).

import { init } from 'attention-playground'
import type { PlaygroundHandle } from './playground'
import { browserLang, defaultState, parseParams, toParams, type PlaygroundState } from './state'
import { translator } from './i18n'
import { loadFailureText } from './engine-errors'
import { errorMessage } from './format'
import { isolateIfAsked } from './isolate'

declare global {
  interface Window {
    __apPlayground?: PlaygroundHandle
  }
}

/** The playground's own chunk did not load (the engine did, or has not failed yet): the message names its URL. */
class CodeLoadError extends Error {}

const root = document.getElementById('app')!
const search = new URLSearchParams(location.search)
const { state, notices } = parseParams(search, defaultState(browserLang(navigator.languages)))
// The panels to show (as the widget's attribute): a page with `steps` is laid out for an iframe, just those panels.
const steps = state.steps.length ? state.steps : undefined
/** The URL form of a state, `steps` and the language included. */
const linkParams = (s: PlaygroundState) => {
  const p = toParams(s)
  p.set('lang', s.lang)
  return p
}
const t = translator(state.lang)
document.documentElement.lang = state.lang === 'zh' ? 'zh-CN' : 'en'
document.title = t('title')
const status = document.createElement('p')
status.className = 'boot'
status.textContent = t('loading')
root.append(status)

// ?isolate=1 on a host without COOP/COEP: the page reloads through its service worker (nothing more to do here).
if (await isolateIfAsked(search)) await new Promise(() => {})

try {
  performance.mark('ap-init-start')
  // The engine (its glue and wasm fetched, compiled, initialised) and the playground's code (every view, KaTeX, the
  // strings: most of the page's script) load side by side: the engine does not wait for the views to be parsed.
  const [engine, { mountPlayground }] = await Promise.all([
    init().then((e) => (performance.mark('ap-init-end'), e)),
    import('./playground').catch((cause: unknown) => Promise.reject(new CodeLoadError('the page’s code', { cause }))),
  ])
  status.remove()
  // history.replaceState costs several ms and forces a layout (it saves the scroll position): the URL is
  // written after the next frame, so the learner sees the result first, and a burst (typing, dragging a
  // slider) writes at most every 150 ms, the last state included.
  let latest: PlaygroundState | null = null
  let lastWrite = 0
  const writeUrl = () => {
    if (!latest) return
    const s = latest
    latest = null
    lastWrite = performance.now()
    history.replaceState(null, '', `${location.pathname}?${linkParams(s)}`)
  }
  const writeSoon = () => {
    const wait = Math.max(0, 150 - (performance.now() - lastWrite))
    // A hidden tab runs no animation frames: the timer alone writes it there.
    const timer = setTimeout(writeUrl, wait + 100)
    requestAnimationFrame(() =>
      setTimeout(() => {
        clearTimeout(timer)
        writeUrl()
      }, wait),
    )
  }
  window.__apPlayground = mountPlayground(root, engine, state, {
    notices,
    steps,
    embed: !!steps,
    // public/samples/: a small induction model (tests/fixtures/gen_induction_sample.py), for a first visit
    sampleModel: 'samples/induction.safetensors',
    // public/poems/: the Tang poems corpus (scripts/poems-corpus.mjs), for the Train tab's task poems
    poemsCorpus: { vocab: 'poems/vocab.json', train: 'poems/train.txt', validation: 'poems/validation.txt' },
    shareUrl: () => `${location.origin}${location.pathname}?${linkParams(window.__apPlayground?.getState() ?? state)}`,
    onStateChange: (s) => {
      const lang = s.lang === 'zh' ? 'zh-CN' : 'en'
      if (document.documentElement.lang !== lang) {
        document.documentElement.lang = lang
        document.title = translator(s.lang)('title')
      }
      const pending = latest !== null
      latest = s
      if (!pending) writeSoon()
    },
  })
  performance.mark('ap-mounted')
} catch (e) {
  // The URL tried and what to serve there, in the page's language (never Emscripten's "Aborted(…)").
  status.textContent =
    e instanceof CodeLoadError ? `${t('codeLoadFailed')} ${errorMessage(e.cause)}` : loadFailureText(t, e)
  status.setAttribute('role', 'alert')
}
