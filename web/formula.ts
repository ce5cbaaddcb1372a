// Formulas via KaTeX as MathML: no stylesheet or font files are needed, so they render the same in
// the page and inside the widget's shadow root. Only our own TeX strings (constants and integers)
// are passed here, never user text.

import katex from 'katex'

const cache = new Map<string, string>()

// The letters with their own code points (the rest of the alphabet is at U+1D538 + offset).
const DOUBLE_STRUCK: Record<string, string> = { C: 'ℂ', H: 'ℍ', N: 'ℕ', P: 'ℙ', Q: 'ℚ', R: 'ℝ', Z: 'ℤ' }

export function renderTex(el: HTMLElement, tex: string, display = false): void {
  const key = (display ? 'D' : 'I') + tex
  let html = cache.get(key)
  if (html === undefined) {
    html = katex
      .renderToString(tex, { output: 'mathml', throwOnError: false, displayMode: display, strict: false })
      // Chromium's MathML ignores mathvariant="double-struck": the Unicode letter itself (\mathbb{R} → ℝ).
      .replace(/<mi mathvariant="double-struck">([A-Z])<\/mi>/g, (_, c: string) => `<mi>${DOUBLE_STRUCK[c] ?? c}</mi>`)
    cache.set(key, html)
  }
  if (el.dataset.tex === key) return
  el.dataset.tex = key
  el.innerHTML = html
}
