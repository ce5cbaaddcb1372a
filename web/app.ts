// The page once its code has loaded (web/main.ts loads this beside the engine): mounts the playground full-size and
// keeps the URL in step with what is on screen (a link reproduces the view).

import type { Engine } from 'attention-playground'
import { mountPlayground, type PlaygroundHandle } from './playground'
import { toParams, type Notice, type PlaygroundState } from './state'
import type { Lang } from './i18n/core'

declare global {
  interface Window {
    __apPlayground?: PlaygroundHandle
  }
}

/** The URL form of a state, `steps` and the language included. */
const linkParams = (s: PlaygroundState) => {
  const p = toParams(s)
  p.set('lang', s.lang)
  return p
}

/**
 * Mounts the playground into `root` for `state` (read from the page's URL) and keeps the URL in step; `showLang` sets
 * the document's language and title (web/main.ts, which set them for the first language).
 */
export function startPage(
  root: HTMLElement,
  engine: Engine,
  state: PlaygroundState,
  notices: Notice[],
  showLang: (lang: Lang) => void,
): void {
  // The panels to show (as the widget's attribute): a page with `steps` is laid out for an iframe, just those panels.
  const steps = state.steps.length ? state.steps : undefined
  let shown = state.lang
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
      if (s.lang !== shown) {
        shown = s.lang
        showLang(shown)
      }
      const pending = latest !== null
      latest = s
      if (!pending) writeSoon()
    },
  })
}
