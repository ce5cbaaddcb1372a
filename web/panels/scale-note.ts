// Under ② (scaled scores): why the course's example stays nearly one-hot with ÷√d_k on (torch.rand
// weights make Q and K large, so the scaled scores are still far apart), and a one-click case where the
// scale visibly matters (d_model = 2), with a switch to compare.

import type { Ctx } from '../context'
import { h, setText } from '../dom'
import { headMatrix } from '../compute/heads'
import { scaleIsOn } from '../compute/options'
import { RULE_TRAITS } from '../params'

/** A row is "one-hot" here when its largest weight is at least this. */
const ONE_HOT = 0.85
/** d_model of the case where the scale matters (seed 123: largest weights 0.84 / 0.49 / 0.65 / 0.26 vs 1.00 / 0.97 / 1.00 / 0.28). */
export const SMALL_D_MODEL = 2

/** The mean of the rows' largest weights, and the largest |scaled score| (finite cells only). */
export function saturation(ctx: Ctx): { meanMax: number; maxAbs: number } | null {
  const tr = ctx.trace
  if (!tr) return null
  const w = headMatrix(tr.weights, ctx.state.head)
  const s = headMatrix(tr.scaledScores, ctx.state.head)
  let sum = 0
  for (let i = 0; i < w.rows; i++) {
    let m = 0
    for (let j = 0; j < w.cols; j++) m = Math.max(m, w.data[i * w.cols + j])
    sum += m
  }
  let maxAbs = 0
  for (const v of s.data) if (Number.isFinite(v)) maxAbs = Math.max(maxAbs, Math.abs(v))
  return { meanMax: w.rows ? sum / w.rows : 0, maxAbs }
}

export class ScaleNote {
  readonly el: HTMLElement
  private text = h('p')
  private tryBtn = h('button', { type: 'button', class: 'btn-small', name: 'scaleCase' })
  private toggle = h('button', { type: 'button', class: 'btn-small', name: 'scaleCompare' })

  constructor(ctx: Ctx) {
    this.el = h('div', { class: 'scale-note', 'data-note': 'scale', hidden: true }, this.text, this.tryBtn, this.toggle)
    this.tryBtn.addEventListener('click', () => ctx.setState({ dModel: SMALL_D_MODEL }))
    this.toggle.addEventListener('click', () => ctx.setState({ scale: scaleIsOn(ctx.state) ? 'off' : 'on' }))
  }

  render(ctx: Ctx): void {
    const { state, t } = ctx
    const sat = saturation(ctx)
    // What it says is about the course's torch.rand weights (not the trained ones of weights=trained).
    const dotRule = RULE_TRAITS[state.score].dotProduct && state.weights === 'random'
    const small = dotRule && state.dModel <= SMALL_D_MODEL && state.view === 'pipeline'
    const saturated = dotRule && scaleIsOn(state) && !!sat && sat.meanMax >= ONE_HOT && !small
    this.el.hidden = !saturated && !small
    if (this.el.hidden || !sat) return
    const vars = { dModel: state.dModel, max: sat.maxAbs.toFixed(1), dk: state.dk / state.heads }
    setText(this.text, t(saturated ? 'scaleSaturated' : 'scaleSmall', vars))
    this.tryBtn.hidden = !saturated
    setText(this.tryBtn, t('scaleTrySmall'))
    this.toggle.hidden = saturated
    setText(this.toggle, t(scaleIsOn(state) ? 'scaleSwitchOff' : 'scaleSwitchOn'))
  }
}
