// The twelve pipeline panels, one per engine step (data-step = the engine's step name), each with its
// shape, formula, a short help line and its heatmap, and the position steps where the chosen encoding acts. Embeddings and W_q/W_k/W_v are editable. Each step
// is one row of SPECS: how its heatmap behaves and what it shows (`view`); one renderer draws them all.

import type { PositionStepName, StepName, Tensor, Trace } from 'attention-playground'
import type { Ctx, Panel } from '../context'
import { h, setText, tokLabel } from '../dom'
import { Heatmap, type Axis, type HeatmapOptions } from '../heatmap'
import { headMatrix, isPerHeadStep } from '../compute/heads'
import { toggleCell, withEdit } from '../compute/changes'
import { renderTex } from '../formula'
import { productShape, shapeOf, oneBased } from '../format'
import type { MsgKey, Translate } from '../i18n'
import { RULE_TRAITS, type EditableTensor, type PlaygroundState, type Rule } from '../params'
import { ScaleNote } from './scale-note'
import { PadKeys } from './pad-keys'

type PanelName = StepName | PositionStepName | 'sourceEmbeddings'

/** What a render knows about the trace, computed once for every step's `view`. */
interface StepInput {
  trace: Trace
  state: PlaygroundState
  t: Translate
  cross: boolean
  qTok: string[]
  kTok: string[]
  nq: number
  nk: number
  heads: number
  dModel: number
  dq: number
  dk: number
  dv: number
  /** "per head (head h): " before the shape of the per-head steps, when there are heads. */
  headNote: string
}

/** What a step's panel shows. */
interface StepView {
  tensor: Tensor
  rows: string[]
  cols: string[]
  shape: string
  tex: string
  help: MsgKey
}

interface StepSpec {
  name: PanelName
  title: MsgKey
  rowAxis: Axis
  colAxis: Axis
  unit?: boolean
  editable?: EditableTensor
  selectable?: boolean
  maxCell?: number
  view(x: StepInput): StepView
}

function dims(n: number): string[] {
  return Array.from({ length: n }, (_, i) => String(i))
}

const square = (x: StepInput) => `${shapeOf([x.nq, x.nk])} → ${shapeOf([x.nq, x.nk])}`

/** A step whose matrix is queries × keys, shaped as the scores it comes from. */
function squareView(
  x: StepInput,
  step: 'scaledScores' | 'maskedScores' | 'weights',
  tex: string,
  help: StepView['help'],
): StepView {
  return { tensor: x.trace[step], rows: x.qTok, cols: x.kTok, shape: x.headNote + square(x), tex, help }
}

function embeddingsView(x: StepInput, source: boolean): StepView {
  const n = source ? x.nk : x.nq
  const tensor = source ? x.trace.sourceEmbeddings! : x.trace.embeddings
  // The trained model's last layer reads what layer 1 made of the tokens (compute/trained.ts), not a table's rows.
  const trained = !source && x.state.weights === 'trained'
  const tex = source
    ? 'X_{\\text{enc}} = E[\\text{ids}]'
    : x.cross
      ? 'X_{\\text{dec}} = E[\\text{ids}]'
      : trained
        ? 'X = H_0 + \\mathrm{MHA}_1(H_0),\\quad H_0 = E[\\text{ids}] + P'
        : 'X = E[\\text{ids}]'
  return {
    tensor,
    rows: source ? x.kTok : x.qTok,
    cols: dims(x.dModel),
    tex,
    help: trained ? 'helpTrainedInput' : 'helpEmbeddings',
    shape: `${x.t('idsLabel')} ${shapeOf([n])} → ${shapeOf([n, x.dModel])}`,
  }
}

function weightView(x: StepInput, name: 'Wq' | 'Wk' | 'Wv'): StepView {
  const tensor = x.trace[name]
  const sub = name[1]
  return {
    tensor,
    rows: dims(tensor.shape[0]),
    cols: dims(tensor.shape[1]),
    shape: shapeOf(tensor.shape),
    help: 'helpW',
    tex: `W_${sub} \\in \\mathbb{R}^{d_{\\text{model}} \\times d_${sub}}`,
  }
}

/** Q from the queries' sequence (the decoder's in cross mode), K and V from the keys' (the encoder's). */
function projectionView(x: StepInput, name: 'Q' | 'K' | 'V'): StepView {
  const isQ = name === 'Q'
  const n = isQ ? x.nq : x.nk
  const d = name === 'Q' ? x.dq : name === 'K' ? x.dk : x.dv
  const input = x.cross ? (isQ ? 'X_{\\text{dec}}' : 'X_{\\text{enc}}') : 'X'
  return {
    tensor: x.trace[name],
    rows: isQ ? x.qTok : x.kTok,
    cols: dims(d),
    help: `help${name}`,
    shape: productShape([n, x.dModel], [x.dModel, d], [n, d]),
    tex: `${name} = ${input} W_${name.toLowerCase()}`,
  }
}

function scaledView(x: StepInput): StepView {
  const dkh = x.dk / x.heads
  const scale = x.trace.scale
  const on = scale !== 1
  const isRootDk = Math.abs(scale - 1 / Math.sqrt(dkh)) < 1e-6
  const tex = !on
    ? "S' = S \\cdot 1"
    : isRootDk
      ? `S' = \\dfrac{S}{\\sqrt{d_k}} = \\dfrac{S}{\\sqrt{${dkh}}}`
      : `S' = ${scale.toPrecision(4)}\\, S`
  return squareView(x, 'scaledScores', tex, on ? 'helpScaled' : 'helpScaledOff')
}

function weightsView(x: StepInput): StepView {
  const T = x.state.temperature
  const tex =
    T === 1
      ? "A = \\operatorname{softmax}(S'')"
      : `A = \\operatorname{softmax}\\!\\left(\\dfrac{S''}{T}\\right),\\ T = ${Number(T.toFixed(2))}`
  return squareView(x, 'weights', tex, 'helpWeights')
}

function outputView(x: StepInput): StepView {
  const { nq, nk, dv, heads } = x
  const shape =
    heads > 1
      ? `${x.t('perHead')}: ${productShape([nq, nk], [nk, dv / heads], [nq, dv / heads])}; concat → ${shapeOf([nq, dv])}`
      : productShape([nq, nk], [nk, dv], [nq, dv])
  return {
    tensor: x.trace.output,
    rows: x.qTok,
    cols: dims(x.trace.output.shape[1]),
    shape,
    tex: 'O = A\\,V',
    help: 'helpOutput',
  }
}

/** sinusoidal / learned: the table added to the embeddings before the projections. */
function positionsView(x: StepInput): StepView {
  const tensor = x.trace.positions!
  const n = tensor.shape[0]
  const sin = x.state.positions === 'sinusoidal'
  return {
    tensor,
    rows: dims(n),
    cols: dims(x.dModel),
    shape: shapeOf([n, x.dModel]),
    tex: sin
      ? 'P_{m,2i} = \\sin\\frac{m}{10000^{2i/d_{\\text{model}}}},\\ P_{m,2i+1} = \\cos\\frac{m}{10000^{2i/d_{\\text{model}}}};\\quad X \\leftarrow X + P'
      : 'P = \\text{Embedding}(n, d_{\\text{model}});\\quad X \\leftarrow X + P',
    help: sin ? 'helpPositionsSin' : 'helpPositionsLearned',
  }
}

/** rope: Q or K as the scores see them, each row turned by its position (per head). */
function rotatedView(x: StepInput, name: 'rotatedQ' | 'rotatedK'): StepView {
  const isQ = name === 'rotatedQ'
  const tensor = x.trace[name]!
  const v = isQ ? 'q' : 'k'
  return {
    tensor,
    rows: isQ ? x.qTok : x.kTok,
    cols: dims(tensor.shape[1]),
    shape: shapeOf(tensor.shape),
    tex: `\\tilde ${v}_m = ${v}_m \\cos(m\\theta) + \\operatorname{rotate\\_half}(${v}_m) \\sin(m\\theta),\\ \\theta_i = ${x.state.ropeBase}^{-2i/d}`,
    help: 'helpRotated',
  }
}

/** alibi: the bias −m_h·|i − j| that joins the scaled scores before the mask. */
function biasView(x: StepInput): StepView {
  return {
    tensor: x.trace.positionBias!,
    rows: x.qTok,
    cols: x.kTok,
    shape: x.headNote + shapeOf([x.nq, x.nk]),
    tex: 'B_{ij} = -m_h\\,|i - j|,\\quad m_h = 2^{-8h/H}',
    help: 'helpPositionBias',
  }
}

function maskedView(x: StepInput): StepView {
  const tex = x.trace.positionBias
    ? "S'' = S' + B + M,\\quad M_{ij} \\in \\{0, -\\infty\\}"
    : "S'' = S' + M,\\quad M_{ij} \\in \\{0, -\\infty\\}"
  return squareView(x, 'maskedScores', tex, 'helpMasked')
}

const SPECS: StepSpec[] = [
  {
    name: 'embeddings',
    title: 'stepEmbeddings',
    rowAxis: 'q',
    colAxis: null,
    editable: 'embeddings',
    maxCell: 48,
    view: (x) => embeddingsView(x, false),
  },
  {
    name: 'sourceEmbeddings',
    title: 'stepEmbeddings',
    rowAxis: 'k',
    colAxis: null,
    editable: 'sourceEmbeddings',
    maxCell: 48,
    view: (x) => embeddingsView(x, true),
  },
  {
    name: 'Wq',
    title: 'stepWq',
    rowAxis: null,
    colAxis: null,
    editable: 'Wq',
    maxCell: 16,
    view: (x) => weightView(x, 'Wq'),
  },
  {
    name: 'Wk',
    title: 'stepWk',
    rowAxis: null,
    colAxis: null,
    editable: 'Wk',
    maxCell: 16,
    view: (x) => weightView(x, 'Wk'),
  },
  {
    name: 'Wv',
    title: 'stepWv',
    rowAxis: null,
    colAxis: null,
    editable: 'Wv',
    maxCell: 16,
    view: (x) => weightView(x, 'Wv'),
  },
  { name: 'positions', title: 'stepPositions', rowAxis: null, colAxis: null, maxCell: 48, view: positionsView },
  { name: 'Q', title: 'stepQ', rowAxis: 'q', colAxis: null, maxCell: 16, view: (x) => projectionView(x, 'Q') },
  { name: 'K', title: 'stepK', rowAxis: 'k', colAxis: null, maxCell: 16, view: (x) => projectionView(x, 'K') },
  { name: 'V', title: 'stepV', rowAxis: 'k', colAxis: null, maxCell: 16, view: (x) => projectionView(x, 'V') },
  {
    name: 'rotatedQ',
    title: 'stepRotatedQ',
    rowAxis: 'q',
    colAxis: null,
    maxCell: 16,
    view: (x) => rotatedView(x, 'rotatedQ'),
  },
  {
    name: 'rotatedK',
    title: 'stepRotatedK',
    rowAxis: 'k',
    colAxis: null,
    maxCell: 16,
    view: (x) => rotatedView(x, 'rotatedK'),
  },
  {
    name: 'scores',
    title: 'stepScores',
    rowAxis: 'q',
    colAxis: 'k',
    selectable: true,
    view: (x) => ({
      tensor: x.trace.scores,
      rows: x.qTok,
      cols: x.kTok,
      tex: scoreTex(x.state.score),
      help: RULE_TRAITS[x.state.score].linear ? 'helpScoresConcat' : 'helpScores',
      shape: x.headNote + scoreShape(x.state.score, x.nq, x.nk, x.dq / x.heads, x.dk / x.heads),
    }),
  },
  { name: 'scaledScores', title: 'stepScaledScores', rowAxis: 'q', colAxis: 'k', selectable: true, view: scaledView },
  { name: 'positionBias', title: 'stepPositionBias', rowAxis: 'q', colAxis: 'k', view: biasView },
  { name: 'maskedScores', title: 'stepMaskedScores', rowAxis: 'q', colAxis: 'k', selectable: true, view: maskedView },
  {
    name: 'weights',
    title: 'stepWeights',
    rowAxis: 'q',
    colAxis: 'k',
    selectable: true,
    unit: true,
    view: weightsView,
  },
  { name: 'output', title: 'stepOutput', rowAxis: 'q', colAxis: null, maxCell: 30, view: outputView },
]

// The rows of panels, in page order. The position steps sit where they act: the table after the embeddings,
// the rotated Q and K after the projections, the bias before the mask; each is shown only when the trace has it.
const GROUPS = {
  embeddings: ['embeddings', 'sourceEmbeddings'],
  positions: ['positions'],
  weights: ['Wq', 'Wk', 'Wv'],
  projections: ['Q', 'K', 'V'],
  rotated: ['rotatedQ', 'rotatedK'],
  scores: ['scores', 'scaledScores'],
  bias: ['positionBias'],
  masked: ['maskedScores', 'weights'],
  output: ['output'],
} as const satisfies Record<string, readonly PanelName[]>
export type StepGroup = keyof typeof GROUPS

const POSITION_PANELS = new Set<PanelName>(['positions', 'rotatedQ', 'rotatedK', 'positionBias'])

export interface StepPanels {
  groups: Record<StepGroup, HTMLElement>
  panels: Map<PanelName, StepPanel>
}

export function createStepPanels(ctx: Ctx): StepPanels {
  const panels = new Map<PanelName, StepPanel>()
  for (const spec of SPECS) panels.set(spec.name, new StepPanel(spec, ctx))
  const groups = {} as Record<StepGroup, HTMLElement>
  for (const [g, names] of Object.entries(GROUPS) as Array<[StepGroup, readonly PanelName[]]>)
    groups[g] = h('div', { class: `grid grid-${names.length}` }, ...names.map((n) => panels.get(n)!.el))
  return { groups, panels }
}

/** An editable panel's help while cell editing is folded. */
const FOLDED_HELP: Partial<Record<MsgKey, MsgKey>> = { helpEmbeddings: 'helpEmbeddingsFolded', helpW: 'helpWFolded' }

export class StepPanel implements Panel {
  readonly el: HTMLElement
  private titleEl: HTMLElement
  private shapeEl: HTMLElement
  private formulaEl: HTMLElement
  private helpEl: HTMLElement
  private map: Heatmap
  /** Under ② only: why the rows stay one-hot with the course's weights. */
  private note: ScaleNote | null
  /** Under ③ only: the padding mask's keys, toggled here. */
  private pad: PadKeys | null
  /** The heatmap's options: their `editable` follows the "More options" fold (cell editing is folded at first). */
  private mapOpts: HeatmapOptions

  constructor(
    private spec: StepSpec,
    ctx: Ctx,
  ) {
    const attrs: Record<string, string> = { class: 'panel step' }
    if (spec.name === 'sourceEmbeddings') attrs['data-panel'] = 'sourceEmbeddings'
    else attrs['data-step'] = spec.name
    this.titleEl = h('h3')
    this.shapeEl = h('span', { class: 'shape' })
    this.formulaEl = h('div', { class: 'formula' })
    this.helpEl = h('p', { class: 'help' })
    this.mapOpts = {
      name: spec.name,
      rowAxis: spec.rowAxis,
      colAxis: spec.colAxis,
      unit: spec.unit,
      editable: !!spec.editable,
      selectable: spec.selectable,
      maxCell: spec.maxCell,
      t: ctx.t,
      onHover: (i, j) =>
        ctx.setHighlight(
          spec.rowAxis === 'q' ? i : spec.colAxis === 'q' ? j : null,
          spec.colAxis === 'k' ? j : spec.rowAxis === 'k' ? i : null,
        ),
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
    }
    this.map = new Heatmap(this.mapOpts)
    this.el = h(
      'section',
      attrs,
      h('header', { class: 'panel-head' }, this.titleEl, this.shapeEl),
      this.formulaEl,
      this.helpEl,
    )
    this.note = spec.name === 'scaledScores' ? new ScaleNote(ctx) : null
    if (this.note) this.el.append(this.note.el)
    this.pad = spec.name === 'maskedScores' ? new PadKeys(ctx) : null
    if (this.pad) this.el.append(this.pad.el)
    this.el.append(this.map.el)
  }

  get name(): PanelName {
    return this.spec.name
  }

  render(ctx: Ctx): void {
    const { t, trace, state } = ctx
    const name = this.spec.name
    const cross = state.mode === 'cross'
    this.el.hidden =
      (name === 'sourceEmbeddings' && !(cross && trace?.sourceEmbeddings)) ||
      (POSITION_PANELS.has(name) && !trace?.[name as PositionStepName])
    // A position step's row holds only position steps: it goes with them.
    if (POSITION_PANELS.has(name) && this.el.parentElement) this.el.parentElement.hidden = this.el.hidden
    this.map.setLang(t)
    let title = t(name === 'scores' ? SCORE_TITLES[state.score] : this.spec.title)
    // Trained weights: this X is layer 2's input, not the embedding table's rows (its formula and help say how).
    if (name === 'embeddings' && state.weights === 'trained') title = t('trainedLayerInput')
    if (name === 'embeddings' && cross) title += ` · ${t('decoderTokens')}`
    if (name === 'sourceEmbeddings') title += ` · ${t('encoderTokens')}`
    setText(this.titleEl, title)
    if (!trace || this.el.hidden) return

    const v = this.spec.view(stepInput(ctx, trace))
    setText(this.shapeEl, v.shape)
    renderTex(this.formulaEl, v.tex)
    // Cell editing waits for "More options" (PARAMS' edits row): the help says where it is meanwhile.
    this.mapOpts.editable = !!this.spec.editable && ctx.moreOptions
    const help = this.spec.editable && !ctx.moreOptions ? (FOLDED_HELP[v.help] ?? v.help) : v.help
    setText(this.helpEl, name === 'maskedScores' && state.mask === 'cells' ? t('maskCellsHint') : t(help))
    const m = headMatrix(v.tensor, state.head)
    this.map.setData(m.data, m.rows, m.cols, v.rows, v.cols)
    const split = ['Q', 'K', 'V', 'rotatedQ', 'rotatedK', 'output'].includes(name)
    this.map.setGroups(split ? trace.heads || 1 : 1, state.head)
    this.highlight(ctx)
    this.select(ctx)
    this.note?.render(ctx)
    this.pad?.render(ctx)
  }

  highlight(ctx: Ctx): void {
    this.map.setHighlight(ctx.hl.q, ctx.hl.k)
  }

  dispose(): void {
    this.map.dispose()
  }

  select(ctx: Ctx): void {
    const s = ctx.sel
    this.map.setSelected(s && isPerHeadStep(this.spec.name) ? [s.i, s.j] : null)
  }
}

export function dimsOf(trace: { embeddings: Tensor; Q: Tensor; K: Tensor; V: Tensor }) {
  return { dModel: trace.embeddings.shape[1], dq: trace.Q.shape[1], dk: trace.K.shape[1], dv: trace.V.shape[1] }
}

function stepInput(ctx: Ctx, trace: Trace): StepInput {
  const { t, state } = ctx
  const cross = state.mode === 'cross'
  const qTok = trace.tokens.map(tokLabel)
  const kTok = (cross && trace.sourceTokens ? trace.sourceTokens : trace.tokens).map(tokLabel)
  const heads = trace.heads || 1
  const headNote = heads > 1 ? `${t('perHead')} (${t('headN')} ${oneBased(state.head)}): ` : ''
  return { trace, state, t, cross, qTok, kTok, nq: qTok.length, nk: kTok.length, heads, headNote, ...dimsOf(trace) }
}

/** Each rule's shape line: the product it computes, in the head's sizes. */
const SCORE_SHAPES: Record<Rule, (nq: number, nk: number, dqh: number, dkh: number) => string> = {
  dot: (nq, nk, dqh, dkh) => productShape([nq, dqh], [dkh, nk], [nq, nk]),
  'scaled-dot': (nq, nk, dqh, dkh) => productShape([nq, dqh], [dkh, nk], [nq, nk]),
  general: (nq, nk, dqh, dkh) =>
    `${shapeOf([nq, dqh])}·${shapeOf([dqh, dkh])}·${shapeOf([dkh, nk])} → ${shapeOf([nq, nk])}`,
  additive: (nq, nk, dqh, dkh) => `${shapeOf([nq, dqh])} ⊕ ${shapeOf([nk, dkh])} → ${shapeOf([nq, nk])}`,
  concat: (nq, nk, dqh, dkh) =>
    `[${shapeOf([nq, dqh])}; ${shapeOf([nq, dkh])}]·${shapeOf([dqh + dkh, nk])} → ${shapeOf([nq, nk])}`,
}

function scoreShape(rule: Rule, nq: number, nk: number, dqh: number, dkh: number): string {
  return SCORE_SHAPES[rule](nq, nk, dqh, dkh)
}

/** Step ①'s title names what the rule computes (Q·Kᵀ only for the dot products). */
const SCORE_TITLES: Record<Rule, MsgKey> = {
  dot: 'stepScores',
  'scaled-dot': 'stepScores',
  general: 'stepScoresGeneral',
  additive: 'stepScoresAdditive',
  concat: 'stepScoresConcat',
}

/** Each rule's score formula (KaTeX). */
const SCORE_TEX: Record<Rule, string> = {
  dot: 'S = Q K^{\\top},\\quad S_{ij} = q_i \\cdot k_j',
  'scaled-dot': 'S = Q K^{\\top},\\quad S_{ij} = q_i \\cdot k_j',
  general: 'S_{ij} = q_i^{\\top} W\\, k_j',
  additive: 'S_{ij} = v^{\\top} \\tanh(W^{a}_{q}\\, q_i + W^{a}_{k}\\, k_j)',
  concat: 'S_{ij} = \\big(W [q_i ; k_i] + b\\big)_j',
}

export function scoreTex(rule: Rule): string {
  return SCORE_TEX[rule]
}
