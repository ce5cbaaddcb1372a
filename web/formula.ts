// Formulas via KaTeX as MathML: no stylesheet or font files are needed, so they render the same in
// the page and inside the widget's shadow root. Only our own TeX strings (constants and integers)
// are passed here, never user text.

import katex from 'katex'

const cache = new Map<string, string>()

export function renderTex(el: HTMLElement, tex: string, display = false): void {
  const key = (display ? 'D' : 'I') + tex
  let html = cache.get(key)
  if (html === undefined) {
    html = katex.renderToString(tex, { output: 'mathml', throwOnError: false, displayMode: display, strict: false })
    cache.set(key, html)
  }
  if (el.dataset.tex === key) return
  el.dataset.tex = key
  el.innerHTML = html
}
