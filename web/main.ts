// The page: reads the state from the URL, loads the engine once, mounts the playground full-size and
// keeps the URL in step with what is on screen (a link reproduces the view).

import { init } from 'attention-playground'
import { mountPlayground, type PlaygroundHandle } from './playground'
import { browserLang, defaultState, parseParams, toParams, type PlaygroundState } from './state'
import { translator } from './i18n'
import { errorMessage } from './format'

declare global {
  interface Window {
    __apPlayground?: PlaygroundHandle
  }
}

const root = document.getElementById('app')!
const { state, notices } = parseParams(
  new URLSearchParams(location.search),
  defaultState(browserLang(navigator.languages)),
)
const t = translator(state.lang)
document.documentElement.lang = state.lang === 'zh' ? 'zh-CN' : 'en'
document.title = t('title')
const status = document.createElement('p')
status.className = 'boot'
status.textContent = t('loading')
root.append(status)

try {
  performance.mark('ap-init-start')
  const engine = await init()
  performance.mark('ap-init-end')
  status.remove()
  // history.replaceState costs several ms: a single change is written at once, a burst (typing,
  // dragging a slider) at most every 150 ms and once more when it ends.
  let urlTimer: ReturnType<typeof setTimeout> | undefined
  let lastWrite = 0
  const writeUrl = (s: PlaygroundState) => {
    const p = toParams(s)
    p.set('lang', s.lang)
    history.replaceState(null, '', `${location.pathname}?${p}`)
    document.documentElement.lang = s.lang === 'zh' ? 'zh-CN' : 'en'
    document.title = translator(s.lang)('title')
  }
  window.__apPlayground = mountPlayground(root, engine, state, {
    notices,
    shareUrl: () => {
      const p = toParams(window.__apPlayground?.getState() ?? state)
      p.set('lang', (window.__apPlayground?.getState() ?? state).lang)
      return `${location.origin}${location.pathname}?${p}`
    },
    onStateChange: (s) => {
      clearTimeout(urlTimer)
      const now = performance.now()
      if (now - lastWrite > 150) {
        lastWrite = now
        writeUrl(s)
      } else
        urlTimer = setTimeout(() => {
          lastWrite = performance.now()
          writeUrl(s)
        }, 150)
    },
  })
  performance.mark('ap-mounted')
} catch (e) {
  status.textContent = `${t('loadFailed')} ${errorMessage(e)}`
  status.setAttribute('role', 'alert')
}
