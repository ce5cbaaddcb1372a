// The page: reads the state from the URL, loads the engine once, mounts the playground full-size and
// keeps the URL in step with what is on screen (a link reproduces the view).

import { init } from 'attention-playground'
import type { Engine } from './engine-types'
import { mountPlayground, type PlaygroundHandle } from './playground'
import { browserLang, defaultState, parseParams, toParams } from './state'
import { translator } from './i18n'

declare global {
  interface Window { __apPlayground?: PlaygroundHandle }
}

const root = document.getElementById('app')!
const { state, notices } = parseParams(new URLSearchParams(location.search), defaultState(browserLang(navigator.languages)))
const t = translator(state.lang)
document.documentElement.lang = state.lang === 'zh' ? 'zh-CN' : 'en'
document.title = t('title')
const status = document.createElement('p')
status.className = 'boot'
status.textContent = t('loading')
root.append(status)

try {
  performance.mark('ap-init-start')
  const engine = (await init()) as unknown as Engine
  performance.mark('ap-init-end')
  status.remove()
  window.__apPlayground = mountPlayground(root, engine, state, {
    notices,
    onStateChange: (s) => {
      const p = toParams(s)
      p.set('lang', s.lang)
      history.replaceState(null, '', `${location.pathname}?${p}`)
      document.documentElement.lang = s.lang === 'zh' ? 'zh-CN' : 'en'
      document.title = translator(s.lang)('title')
    },
  })
  performance.mark('ap-mounted')
} catch (e) {
  status.textContent = `${t('loadFailed')} ${e instanceof Error ? e.message : String(e)}`
  status.setAttribute('role', 'alert')
}
