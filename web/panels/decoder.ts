// In cross mode, the decoder side of the seq2seq lesson: the target sentence attending to itself
// under a causal mask, next to the cross attention it feeds.

import type { Ctx, Panel } from '../context'
import type { Engine } from 'attention-playground'
import { h, panelSection, tokLabel } from '../dom'
import { Heatmap } from '../heatmap'
import { headMatrix } from '../compute/heads'
import { renderTex } from '../formula'
import { errorMessage } from '../format'

export class DecoderPanel implements Panel {
  private title = h('h3')
  private formula = h('div', { class: 'formula' })
  private help = h('p', { class: 'help' })
  private err = h('p', { class: 'help error-msg' })
  private map: Heatmap | null = null
  private key = ''
  readonly el = panelSection('decoderSelfAttention', [this.title], this.formula, this.help, this.err)

  constructor(private engine: Engine) {}

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
    const key = JSON.stringify([
      state.target,
      state.tokenizer,
      state.dModel,
      state.dq,
      state.dk,
      state.dv,
      state.seed,
      state.temperature,
    ])
    if (key === this.key) return
    this.key = key
    try {
      const tr = this.engine.run({
        text: state.target,
        tokenizer: state.tokenizer,
        dModel: state.dModel,
        dq: state.dq,
        dk: state.dk,
        dv: state.dv,
        seed: state.seed,
        score: 'scaled-dot',
        mask: 'causal',
        temperature: state.temperature,
        heads: 1,
      })
      const m = headMatrix(tr.weights, 0)
      const toks = tr.tokens.map(tokLabel)
      this.map.setData(m.data, m.rows, m.cols, toks, toks)
      this.err.textContent = ''
    } catch (e) {
      this.err.textContent = errorMessage(e)
    }
  }
}
