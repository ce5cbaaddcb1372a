// The twelve pipeline panels, one per engine step (data-step = the engine's step name), each with its
// shape, formula, a short help line and its heatmap. Embeddings and W_q/W_k/W_v are editable.

import type { Ctx, Panel } from '../context'
import type { StepName, Tensor } from '../engine-types'
import { h, setText, tokLabel } from '../dom'
import { Heatmap, type Axis } from '../heatmap'
import { headMatrix } from '../arith'
import { renderTex } from '../formula'
import { productShape, shapeOf } from '../format'
import type { MsgKey } from '../i18n'
import { toggleCell, withEdit, type EditableTensor } from '../state'

type PanelName = StepName | 'sourceEmbeddings'

interface StepSpec {
  name: PanelName
  title: MsgKey
  rowAxis: Axis
  colAxis: Axis
  unit?: boolean
  editable?: EditableTensor
  selectable?: boolean
  maxCell?: number
}

const SPECS: StepSpec[] = [
  { name: 'embeddings', title: 'stepEmbeddings', rowAxis: 'q', colAxis: null, editable: 'embeddings', maxCell: 48 },
  { name: 'sourceEmbeddings', title: 'stepEmbeddings', rowAxis: 'k', colAxis: null, editable: 'sourceEmbeddings', maxCell: 48 },
  { name: 'Wq', title: 'stepWq', rowAxis: null, colAxis: null, editable: 'Wq', maxCell: 16 },
  { name: 'Wk', title: 'stepWk', rowAxis: null, colAxis: null, editable: 'Wk', maxCell: 16 },
  { name: 'Wv', title: 'stepWv', rowAxis: null, colAxis: null, editable: 'Wv', maxCell: 16 },
  { name: 'Q', title: 'stepQ', rowAxis: 'q', colAxis: null, maxCell: 16 },
  { name: 'K', title: 'stepK', rowAxis: 'k', colAxis: null, maxCell: 16 },
  { name: 'V', title: 'stepV', rowAxis: 'k', colAxis: null, maxCell: 16 },
  { name: 'scores', title: 'stepScores', rowAxis: 'q', colAxis: 'k', selectable: true },
  { name: 'scaledScores', title: 'stepScaledScores', rowAxis: 'q', colAxis: 'k', selectable: true },
  { name: 'maskedScores', title: 'stepMaskedScores', rowAxis: 'q', colAxis: 'k', selectable: true },
  { name: 'weights', title: 'stepWeights', rowAxis: 'q', colAxis: 'k', selectable: true, unit: true },
  { name: 'output', title: 'stepOutput', rowAxis: 'q', colAxis: null, maxCell: 30 },
]

const GROUPS: PanelName[][] = [
  ['embeddings', 'sourceEmbeddings'],
  ['Wq', 'Wk', 'Wv'],
  ['Q', 'K', 'V'],
  ['scores', 'scaledScores'],
  ['maskedScores', 'weights'],
  ['output'],
]

export interface StepPanels {
  groups: HTMLElement[]
  panels: Map<PanelName, StepPanel>
}

export function createStepPanels(ctx: Ctx): StepPanels {
  const panels = new Map<PanelName, StepPanel>()
  for (const spec of SPECS) panels.set(spec.name, new StepPanel(spec, ctx))
  const groups = GROUPS.map((names) =>
    h('div', { class: `grid grid-${names.length}` }, ...names.map((n) => panels.get(n)!.el)))
  return { groups, panels }
}

function dims(n: number): string[] {
  return Array.from({ length: n }, (_, i) => String(i))
}

export class StepPanel implements Panel {
  readonly el: HTMLElement
  private titleEl: HTMLElement
  private shapeEl: HTMLElement
  private formulaEl: HTMLElement
  private helpEl: HTMLElement
  private map: Heatmap

  constructor(private spec: StepSpec, ctx: Ctx) {
    const attrs: Record<string, string> = { class: 'panel step' }
    if (spec.name === 'sourceEmbeddings') attrs['data-panel'] = 'sourceEmbeddings'
    else attrs['data-step'] = spec.name
    this.titleEl = h('h3')
    this.shapeEl = h('span', { class: 'shape' })
    this.formulaEl = h('div', { class: 'formula' })
    this.helpEl = h('p', { class: 'help' })
    this.map = new Heatmap({
      name: spec.name,
      rowAxis: spec.rowAxis,
      colAxis: spec.colAxis,
      unit: spec.unit,
      editable: !!spec.editable,
      selectable: spec.selectable,
      maxCell: spec.maxCell,
      t: ctx.t,
      onHover: (i, j) => ctx.setHighlight(spec.rowAxis === 'q' ? i : spec.colAxis === 'q' ? j : null,
        spec.colAxis === 'k' ? j : spec.rowAxis === 'k' ? i : null),
      onActivate: (i, j) => {
        if (spec.name === 'maskedScores' && ctx.state.mask === 'cells') {
          ctx.setState({ maskCells: toggleCell(ctx.state.maskCells, i, j) })
          return
        }
        ctx.select({ step: spec.name as StepName, i, j })
      },
      onEdit: (i, j, v) => {
        if (!spec.editable) return
        ctx.setState({ edits: withEdit(ctx.state.edits, { t: spec.editable, r: i, c: j, v }) })
      },
    })
    this.el = h('section', attrs,
      h('header', { class: 'panel-head' }, this.titleEl, this.shapeEl),
      this.formulaEl, this.helpEl, this.map.el)
  }

  get name(): PanelName {
    return this.spec.name
  }

  render(ctx: Ctx): void {
    const { t, trace, state } = ctx
    const name = this.spec.name
    const cross = state.mode === 'cross'
    this.el.hidden = name === 'sourceEmbeddings' && !(cross && trace?.sourceEmbeddings)
    this.map.setLang(t)
    let title = t(this.spec.title)
    if (name === 'embeddings' && cross) title += ` · ${t('decoderTokens')}`
    if (name === 'sourceEmbeddings') title += ` · ${t('encoderTokens')}`
    setText(this.titleEl, title)
    if (!trace || this.el.hidden) return

    const qTok = trace.tokens.map(tokLabel)
    const kTok = (cross && trace.sourceTokens ? trace.sourceTokens : trace.tokens).map(tokLabel)
    const nq = qTok.length, nk = kTok.length
    const heads = trace.heads || 1
    const { dModel, dq, dk, dv } = dimsOf(trace)
    const dkh = dk / heads
    const headNote = heads > 1 ? `${t('perHead')} (${t('headN')} ${state.head}): ` : ''
    let tensor: Tensor
    let rows: string[], cols: string[]
    let shape = '', tex = '', help: MsgKey = 'helpQ'
    switch (name) {
      case 'embeddings':
        tensor = trace.embeddings; rows = qTok; cols = dims(dModel)
        shape = `ids ${shapeOf([nq])} → ${shapeOf([nq, dModel])}`
        tex = cross ? 'X_{\\text{dec}} = E[\\text{ids}]' : 'X = E[\\text{ids}]'
        help = 'helpEmbeddings'
        break
      case 'sourceEmbeddings':
        tensor = trace.sourceEmbeddings!; rows = kTok; cols = dims(dModel)
        shape = `ids ${shapeOf([nk])} → ${shapeOf([nk, dModel])}`
        tex = 'X_{\\text{enc}} = E[\\text{ids}]'
        help = 'helpEmbeddings'
        break
      case 'Wq': case 'Wk': case 'Wv': {
        tensor = trace[name]; rows = dims(tensor.shape[0]); cols = dims(tensor.shape[1])
        shape = shapeOf(tensor.shape)
        const sub = name === 'Wq' ? 'q' : name === 'Wk' ? 'k' : 'v'
        tex = `W_${sub} \\in \\mathbb{R}^{d_{\\text{model}} \\times d_${sub}}`
        help = 'helpW'
        break
      }
      case 'Q': case 'K': case 'V': {
        // Q from the queries' sequence (the decoder's in cross mode), K and V from the keys' (the encoder's).
        const isQ = name === 'Q'
        const n = isQ ? nq : nk
        const d = name === 'Q' ? dq : name === 'K' ? dk : dv
        tensor = trace[name]; rows = isQ ? qTok : kTok; cols = dims(d)
        shape = productShape([n, dModel], [dModel, d], [n, d])
        const x = cross ? (isQ ? 'X_{\\text{dec}}' : 'X_{\\text{enc}}') : 'X'
        tex = `${name} = ${x} W_${name.toLowerCase()}`
        help = `help${name}`
        break
      }
      case 'scores':
        tensor = trace.scores; rows = qTok; cols = kTok
        shape = headNote + scoreShape(state.score, nq, nk, dq / heads, dkh)
        tex = scoreTex(state.score)
        help = 'helpScores'
        break
      case 'scaledScores': {
        tensor = trace.scaledScores; rows = qTok; cols = kTok
        shape = headNote + `${shapeOf([nq, nk])} → ${shapeOf([nq, nk])}`
        const on = trace.scale !== 1
        const isRootDk = Math.abs(trace.scale - 1 / Math.sqrt(dkh)) < 1e-6
        tex = !on ? 'S\' = S \\cdot 1' : isRootDk ? `S' = \\dfrac{S}{\\sqrt{d_k}} = \\dfrac{S}{\\sqrt{${dkh}}}` : `S' = ${trace.scale.toPrecision(4)}\\, S`
        help = on ? 'helpScaled' : 'helpScaledOff'
        break
      }
      case 'maskedScores':
        tensor = trace.maskedScores; rows = qTok; cols = kTok
        shape = headNote + `${shapeOf([nq, nk])} → ${shapeOf([nq, nk])}`
        tex = 'S\'\' = S\' + M,\\quad M_{ij} \\in \\{0, -\\infty\\}'
        help = 'helpMasked'
        break
      case 'weights':
        tensor = trace.weights; rows = qTok; cols = kTok
        shape = headNote + `${shapeOf([nq, nk])} → ${shapeOf([nq, nk])}`
        tex = state.temperature === 1
          ? 'A = \\operatorname{softmax}(S\'\')'
          : `A = \\operatorname{softmax}\\!\\left(\\dfrac{S''}{T}\\right),\\ T = ${Number(state.temperature.toFixed(2))}`
        help = 'helpWeights'
        break
      case 'output':
        tensor = trace.output; rows = qTok; cols = dims(trace.output.shape[1])
        shape = heads > 1
          ? `${t('perHead')}: ${productShape([nq, nk], [nk, dv / heads], [nq, dv / heads])}; concat → ${shapeOf([nq, dv])}`
          : productShape([nq, nk], [nk, dv], [nq, dv])
        tex = 'O = A\\,V'
        help = 'helpOutput'
        break
    }
    setText(this.shapeEl, shape)
    renderTex(this.formulaEl, tex)
    setText(this.helpEl, name === 'maskedScores' && state.mask === 'cells' ? t('maskCellsHint') : t(help))
    const m = headMatrix(tensor, state.head)
    this.map.setData(m.data, m.rows, m.cols, rows, cols)
    const split = name === 'Q' || name === 'K' || name === 'V' || name === 'output'
    this.map.setGroups(split ? heads : 1, state.head)
    this.highlight(ctx)
    this.select(ctx)
  }

  highlight(ctx: Ctx): void {
    this.map.setHighlight(ctx.hl.q, ctx.hl.k)
  }

  dispose(): void {
    this.map.dispose()
  }

  select(ctx: Ctx): void {
    const s = ctx.sel
    const scoreSteps: PanelName[] = ['scores', 'scaledScores', 'maskedScores', 'weights']
    this.map.setSelected(s && scoreSteps.includes(this.spec.name) ? [s.i, s.j] : null)
  }
}

export function dimsOf(trace: { embeddings: Tensor; Q: Tensor; K: Tensor; V: Tensor }) {
  return { dModel: trace.embeddings.shape[1], dq: trace.Q.shape[1], dk: trace.K.shape[1], dv: trace.V.shape[1] }
}

function scoreShape(rule: string, nq: number, nk: number, dqh: number, dkh: number): string {
  switch (rule) {
    case 'general':
      return `${shapeOf([nq, dqh])}·${shapeOf([dqh, dkh])}·${shapeOf([dkh, nk])} → ${shapeOf([nq, nk])}`
    case 'additive':
      return `${shapeOf([nq, dqh])} ⊕ ${shapeOf([nk, dkh])} → ${shapeOf([nq, nk])}`
    case 'concat':
      return `[${shapeOf([nq, dqh])}; ${shapeOf([nq, dkh])}]·${shapeOf([dqh + dkh, nk])} → ${shapeOf([nq, nk])}`
    default:
      return productShape([nq, dqh], [dkh, nk], [nq, nk])
  }
}

export function scoreTex(rule: string): string {
  switch (rule) {
    case 'general': return 'S_{ij} = q_i^{\\top} W\\, k_j'
    case 'additive': return 'S_{ij} = v^{\\top} \\tanh(W_q q_i + W_k k_j)'
    case 'concat': return 'S_{ij} = \\big(W [q_i ; k_i] + b\\big)_j'
    default: return 'S = Q K^{\\top},\\quad S_{ij} = q_i \\cdot k_j'
  }
}
