// The scoring rule's own parameters (general W; additive W_q, W_k, v; concat W, b), per head.

import type { Ctx, Panel } from '../context'
import type { ScoreParamsOut as ScoreParams, Tensor } from 'attention-playground'
import { h, panelSection } from '../dom'
import { Heatmap } from '../heatmap'
import { oneBased, shapeOf } from '../format'
import { ruleName } from './rule-notes'
import { RULE_TRAITS } from '../params'

const NAMES: Array<keyof ScoreParams> = ['W', 'Wq', 'Wk', 'v', 'b']

export class ParamsPanel implements Panel {
  private title = h('h3')
  private body = h('div', { class: 'grid grid-3' })
  private maps = new Map<string, { box: HTMLElement; label: HTMLElement; map: Heatmap }>()
  readonly el = panelSection('params', [this.title], this.body)

  render(ctx: Ctx): void {
    const { t, trace, state } = ctx
    this.title.textContent = `${t('paramsPanel')} · ${ruleName(t, state.score)}`
    if (!trace) return
    const all = trace.params
    const p: ScoreParams = (Array.isArray(all) ? all[Math.min(state.head, all.length - 1)] : all) ?? {}
    const present = NAMES.filter((n) => isTensor(p[n]))
    // dot and scaled-dot have no parameters of their own: the panel would only say so.
    this.el.hidden = !present.length
    if (!present.length) {
      this.body.replaceChildren()
      this.dispose()
      return
    }
    if ([...this.maps.keys()].join() !== present.join()) {
      this.dispose()
      this.body.replaceChildren()
      for (const n of present) {
        const label = h('h4')
        const map = new Heatmap({ name: `${state.score}.${n}`, rowAxis: null, colAxis: null, t, maxCell: 18 })
        const box = h('div', { class: 'param', 'data-param': n }, label, map.el)
        this.body.append(box)
        this.maps.set(n, { box, label, map })
      }
    }
    for (const n of present) {
      const tensor = p[n] as Tensor
      const entry = this.maps.get(n)!
      const [rows, cols] = tensor.shape.length === 2 ? tensor.shape : [1, tensor.data.length]
      // The additive rule's own matrices are Wa_q, Wa_k (as in the .py export): W_q, W_k name the projections.
      const shown = RULE_TRAITS[state.score].shownAs[n] ?? n
      entry.label.textContent = `${shown} ${shapeOf(tensor.shape)}${Array.isArray(all) ? ` · ${t('headN')} ${oneBased(state.head)}` : ''}`
      entry.map.setLang(t)
      entry.map.setData(
        tensor.data,
        rows,
        cols,
        Array.from({ length: rows }, (_, i) => String(i)),
        Array.from({ length: cols }, (_, j) => String(j)),
      )
    }
  }

  dispose(): void {
    for (const { map } of this.maps.values()) map.dispose()
    this.maps.clear()
  }
}

function isTensor(x: unknown): x is Tensor {
  return (
    !!x && typeof x === 'object' && (x as Tensor).data instanceof Float32Array && Array.isArray((x as Tensor).shape)
  )
}
