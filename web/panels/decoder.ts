// In cross mode, the decoder side of the seq2seq lesson: the target sentence attending to itself
// under a causal mask, next to the cross attention it feeds.

import type { Ctx, Panel } from '../context'
import type { Engine } from 'attention-playground'
import { h, panelSection, tokLabel } from '../dom'
import { Heatmap } from '../heatmap'
import { DecoderSelfAttention } from '../compute/decoder'
import { renderTex } from '../formula'
import { errorMessage } from '../format'

export class DecoderPanel implements Panel {
  private title = h('h3')
  private formula = h('div', { class: 'formula' })
  private help = h('p', { class: 'help' })
  private err = h('p', { class: 'help error-msg' })
  private map: Heatmap | null = null
  private decoder: DecoderSelfAttention
  readonly el = panelSection('decoderSelfAttention', [this.title], this.formula, this.help, this.err)

  constructor(engine: Engine) {
    this.decoder = new DecoderSelfAttention(engine)
  }

  dispose(): void {
    this.map?.dispose()
  }

  render(ctx: Ctx): void {
    const { t, state } = ctx
    this.el.hidden = state.mode !== 'cross'
    if (this.el.hidden) return
    this.title.textContent = t('crossDecoderPanel')
    this.help.textContent = t('crossDecoderHelp')
    renderTex(
      this.formula,
      'A_{\\text{dec}} = \\operatorname{softmax}\\!\\left(\\dfrac{Q_{\\text{dec}} K_{\\text{dec}}^{\\top}}{\\sqrt{d_k}} + M_{\\text{causal}}\\right)',
    )
    if (!this.map) {
      this.map = new Heatmap({ name: 'decoder weights', rowAxis: null, colAxis: null, unit: true, tokenCols: true, t })
      this.el.append(this.map.el)
    }
    this.map.setLang(t)
    try {
      const r = this.decoder.update(state)
      if (!r) return
      const m = r.weights
      const toks = r.tokens.map(tokLabel)
      this.map.setData(m.data, m.rows, m.cols, toks, toks)
      this.err.textContent = ''
    } catch (e) {
      this.err.textContent = errorMessage(e)
    }
  }
}
