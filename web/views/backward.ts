// The backward view (?view=backward): a goal as a loss, its gradients from dL/dO back to W_q, W_k, W_v as
// heatmaps with numbers, one row through softmax's Jacobian, gradient steps with the loss plotted, the √d_k
// sweep on gradients, and the same computation as a PyTorch program. The numbers: ap.runBackward
// (compute/backward.ts).

import type { Engine, RunBackwardResult, Tensor, Trace } from 'attention-playground'
import { chartFrame } from '../chart-frame'
import type { Ctx, Panel } from '../context'
import { h, labelled, setText, svg, tokLabel, viewSection } from '../dom'
import { backwardProgram } from '../export/backward-pytorch'
import { errorMessage, fmt, shapeOf } from '../format'
import { Heatmap } from '../heatmap'
import { isTouchScreen, Labels, translate, type T } from '../i18n'
import { BACKWARD, type BackwardKey } from '../i18n/backward'
import * as M from '../compute/backward'
import { RULE_TRAITS } from '../params'

type GradName = 'dO' | 'dA' | 'dV' | 'dS' | 'dQ' | 'dK' | 'dWq' | 'dWk' | 'dWv'

interface StepSpec {
  name: GradName
  formula: string
  help: BackwardKey
  tensor: (r: RunBackwardResult) => Tensor
  rows: 'q' | 'k' | 'e'
  cols: 'k' | null
}

const STEPS: StepSpec[] = [
  { name: 'dO', formula: 'dO = ∂L/∂O', help: 'dOHelp', tensor: (r) => r.gradOutput, rows: 'q', cols: null },
  { name: 'dA', formula: 'dA = dO · Vᵀ', help: 'dAHelp', tensor: (r) => M.head0(r.gradWeights), rows: 'q', cols: 'k' },
  { name: 'dV', formula: 'dV = Aᵀ · dO', help: 'dVHelp', tensor: (r) => r.gradValue, rows: 'k', cols: null },
  {
    name: 'dS',
    formula: 'dS = A ⊙ (dA − rowsum(dA ⊙ A))',
    help: 'dSHelp',
    tensor: (r) => M.head0(r.gradScores),
    rows: 'q',
    cols: 'k',
  },
  { name: 'dQ', formula: 'dQ = c · dS · K', help: 'dQHelp', tensor: (r) => r.gradQuery, rows: 'q', cols: null },
  { name: 'dK', formula: 'dK = c · dSᵀ · Q', help: 'dKHelp', tensor: (r) => r.gradKey, rows: 'k', cols: null },
  { name: 'dWq', formula: 'dW_q = Eᵀ · dQ', help: 'dWHelp', tensor: (r) => r.gradWq, rows: 'e', cols: null },
  { name: 'dWk', formula: 'dW_k = Eᵀ · dK', help: 'dWHelp', tensor: (r) => r.gradWk, rows: 'e', cols: null },
  { name: 'dWv', formula: 'dW_v = Eᵀ · dV', help: 'dWHelp', tensor: (r) => r.gradWv, rows: 'e', cols: null },
]

const PLOT = chartFrame(240, 130, [16, 10, 24, 58])

/** A string whose `backticked` parts are formulas: they go into span.formula, all of it as text. */
function setRich(e: Element, s: string): void {
  e.replaceChildren(...s.split('`').map((part, i) => (i % 2 ? h('span', { class: 'formula', text: part }) : part)))
}

/** A matrix box: title, shape, formula, heatmap, help. */
class GradBox {
  readonly el: HTMLElement
  readonly map: Heatmap
  private title = h('h4')
  private shape = h('span', { class: 'shape' })
  private help = h('p', { class: 'help' })

  constructor(name: string, formula: string, t: Ctx['t']) {
    this.map = new Heatmap({ name, rowAxis: null, colAxis: null, t })
    this.el = h(
      'div',
      { class: 'bw-step', 'data-grad': name },
      h('header', { class: 'panel-head' }, this.title, this.shape),
      h('p', { class: 'formula', text: formula }),
      this.map.el,
      this.help,
    )
  }

  show(title: string, help: string, m: Tensor, rows: string[], cols: string[]): void {
    setRich(this.title, title)
    setRich(this.help, help)
    setText(this.shape, shapeOf(m.shape))
    this.map.setData(m.data, m.shape[0], m.shape[1], rows, cols)
  }
}

export class BackwardView implements Panel {
  readonly el: HTMLElement
  private tx: T<BackwardKey> = translate(BACKWARD, 'en')
  /** Texts with their `formulas` as .formula spans; an attribute gets the text without the backticks. */
  private texts = new Labels<BackwardKey>((e, s, attr) =>
    attr ? e.setAttribute(attr, s.replaceAll('`', '')) : setRich(e, s),
  )
  private goalSel = h('select', { 'data-backward': 'goal' })
  private iSel = h('select', { 'data-backward': 'i' })
  private jSel = h('select', { 'data-backward': 'j' })
  // log10 of the learning rate: 1e-4 … 1 (the right size depends on the goal and the weights), 0.005 at first
  private lr = h('input', { type: 'range', min: -4, max: 0, step: 0.1, value: -2.3, 'data-backward': 'lr' })
  private lrOut = h('output', { class: 'mono' })
  private lossOut = h('strong', { class: 'mono', 'data-backward': 'loss' })
  private stepsOut = h('span', { class: 'mono', 'data-backward': 'steps' })
  private error = h('p', { class: 'banner backward-error', role: 'alert', hidden: true })
  private headNote = h('p', { class: 'hint', hidden: true })
  private plot = h('div', { class: 'bw-plot' })
  private boxes = new Map<GradName, GradBox>()
  private jac: Record<'a' | 'J' | 'dA' | 'dS', GradBox>
  private jacRow = h('p', { class: 'hint' })
  private sqrtTable = h('div', { class: 'table-scroll', tabindex: 0, 'data-backward': 'sqrt-dk' })
  private program = h('pre', { class: 'bw-program', 'data-backward': 'program' })
  private copyStatus = h('p', { class: 'hint', role: 'status' })
  private base: Trace | null = null
  private pageKey = ''
  /** The Train tab's numbers are shown (showTrained) until the page's own change. */
  private external = false
  /** Token labels of an external trace (its run uses placeholder words of the same count). */
  private labels: string[] | null = null
  private weights: M.Weights | null = null
  private goal: M.Goal = { kind: 'attend', i: 0, j: 1, target: null }
  private result: RunBackwardResult | null = null
  private history: number[] = []
  private sweepSeed = -1

  constructor(
    private engine: Engine,
    ctx: Ctx,
  ) {
    for (const s of STEPS) this.boxes.set(s.name, new GradBox(s.name, s.formula, ctx.t))
    this.jac = {
      a: new GradBox('jacobian-a', 'a', ctx.t),
      J: new GradBox('jacobian', '∂a/∂s = diag(a) − a·aᵀ', ctx.t),
      dA: new GradBox('jacobian-dA', 'dA[i, :]', ctx.t),
      dS: new GradBox('jacobian-dS', 'dS[i, :] = (diag(a) − a·aᵀ) · dA[i, :]', ctx.t),
    }
    this.el = this.build()
    this.bindEvents()
  }

  private build(): HTMLElement {
    const b = this.texts.bind
    const stepBtn = b(h('button', { type: 'button', class: 'btn', 'data-backward': 'step' }), 'step')
    const resetBtn = b(h('button', { type: 'button', class: 'btn-small', 'data-backward': 'reset' }), 'reset')
    const copyBtn = b(h('button', { type: 'button', class: 'btn-small', 'data-backward': 'copy' }), 'copy')
    const label = (key: BackwardKey, control: HTMLElement) => labelled(b, key, control, { inline: true })
    return viewSection(
      this.texts,
      { class: 'panel backward', 'data-step': 'backward' },
      { title: 'title', lead: 'intro' },
      h(
        'div',
        { class: 'bw-goal' },
        label('goal', this.goalSel),
        label('tokenI', this.iSel),
        label('tokenJ', this.jSel),
      ),
      this.error,
      h(
        'div',
        { class: 'bw-train' },
        h('p', {}, b(h('span'), 'loss'), ': ', this.lossOut, ' · ', b(h('span'), 'steps'), ': ', this.stepsOut),
        h('p', {}, label('lr', this.lr), ' ', this.lrOut, ' ', stepBtn, ' ', resetBtn),
        b(h('p', { class: 'help' }), 'stepHelp'),
        h('figure', {}, b(h('figcaption'), 'plotTitle'), this.plot),
      ),
      b(h('h3'), 'chain'),
      this.headNote,
      h('div', { class: 'bw-grid' }, ...[...this.boxes.values()].map((x) => x.el)),
      b(h('h3'), 'jacTitle'),
      b(h('p', { class: 'help' }), 'jacHelp'),
      this.jacRow,
      h('div', { class: 'bw-grid', 'data-backward': 'jacobian' }, ...Object.values(this.jac).map((x) => x.el)),
      b(h('h3'), 'sqrtTitle'),
      b(h('p', { class: 'help' }), 'sqrtHelp'),
      this.sqrtTable,
      h('p', {}, copyBtn),
      this.copyStatus,
      h('details', {}, b(h('summary'), 'program'), this.program),
    )
  }

  private bindEvents(): void {
    this.goalSel.addEventListener('change', () => this.setGoal({ kind: this.goalSel.value as M.GoalKind }))
    this.iSel.addEventListener('change', () => this.setGoal({ i: Number(this.iSel.value) }))
    this.jSel.addEventListener('change', () => this.setGoal({ j: Number(this.jSel.value) }))
    this.lr.addEventListener('input', () => setText(this.lrOut, String(this.lrValue())))
    this.el.querySelector('[data-backward="step"]')!.addEventListener('click', () => this.takeStep())
    this.el.querySelector('[data-backward="reset"]')!.addEventListener('click', () => {
      this.weights = null
      this.history = []
      this.recompute()
    })
    this.el.querySelector('[data-backward="copy"]')!.addEventListener('click', () => void this.copy())
  }

  render(ctx: Ctx): void {
    this.tx = translate(BACKWARD, ctx.state.lang, isTouchScreen())
    this.texts.apply(this.tx)
    const tr = ctx.trace
    if (tr && !tr.options) return
    const key = tr ? JSON.stringify([tr.options, tr.embeddings.shape, tr.Wq.data.slice(0, 8)]) : ''
    const adopt = tr && key !== this.pageKey && !(this.external && this.pageKey === '')
    if (tr) this.pageKey = key
    if (tr && adopt) {
      this.external = false
      this.labels = null
      this.weights = null
      this.history = []
      const n = tr.tokens.length,
        nk = tr.sourceTokens?.length ?? n
      // The first goal: the last token attends to the key it weighs least (compute/backward.ts firstGoal).
      const first = this.base === null
      this.goal = first
        ? { ...this.goal, ...M.firstGoal(tr) }
        : { ...this.goal, i: Math.min(this.goal.i, n - 1), j: Math.min(this.goal.j, nk - 1) }
      this.base = tr
      this.result = null
      this.setGoal({}, false)
    }
    this.fillSelects()
    this.recompute()
    if (ctx.state.seed !== this.sweepSeed) {
      this.sweepSeed = ctx.state.seed
      this.drawSweep()
    }
  }

  /**
   * Opens the view on other numbers (the Train tab's "look inside this step": a trained model's last layer);
   * `labels` name its tokens. They stay until the page's own numbers change.
   */
  showTrained(trace: Trace, labels: string[]): void {
    this.external = true
    this.labels = labels
    this.base = trace
    this.result = null
    this.weights = null
    this.history = []
    this.setGoal({ kind: 'attend', i: trace.tokens.length - 1, j: 0 }, false)
    this.fillSelects()
    this.recompute()
  }

  private setGoal(patch: Partial<M.Goal>, run = true): void {
    const g = { ...this.goal, ...patch }
    g.target = g.kind === 'output' && this.base ? M.outputRow(this.result ?? this.base, g.j) : null
    this.goal = g
    this.history = []
    if (run) this.recompute()
  }

  private fillSelects(): void {
    const tr = this.base
    if (!tr) return
    const q = this.labels ?? tr.tokens,
      k = this.labels ?? tr.sourceTokens ?? tr.tokens
    const opts = (sel: HTMLSelectElement, toks: string[], v: number) => {
      sel.replaceChildren(...toks.map((tok, i) => h('option', { value: i, text: `${i}: ${tokLabel(tok)}` })))
      sel.value = String(v)
    }
    this.goalSel.replaceChildren(
      h('option', { value: 'attend', text: this.tx('goalAttend') }),
      h('option', { value: 'output', text: this.tx('goalOutput') }),
    )
    this.goalSel.value = this.goal.kind
    opts(this.iSel, q, this.goal.i)
    opts(this.jSel, this.goal.kind === 'output' ? q : k, this.goal.j)
    setText(this.lrOut, String(this.lrValue()))
  }

  private lrValue(): number {
    return Number((10 ** Number(this.lr.value)).toPrecision(2))
  }

  private recompute(): void {
    if (!this.base) return
    try {
      this.result = M.backward(this.engine, this.base, this.weights, this.goal)
      this.error.hidden = true
    } catch (e) {
      this.result = null
      const o = this.base.options
      setText(this.error, RULE_TRAITS[o.score].dotProduct ? errorMessage(e) : this.tx('notDot'))
      this.error.hidden = false
      this.el.dataset.loss = ''
      return
    }
    if (!this.history.length) this.history.push(this.result.loss)
    this.draw(this.result)
  }

  private takeStep(): void {
    if (!this.result) return
    this.weights = M.step(this.result, this.lrValue())
    this.result = M.backward(this.engine, this.base!, this.weights, this.goal)
    this.history.push(this.result.loss)
    this.draw(this.result)
  }

  private draw(r: RunBackwardResult): void {
    const tx = this.tx
    this.el.dataset.loss = String(r.loss)
    this.el.dataset.steps = String(this.history.length - 1)
    setText(this.lossOut, fmt(r.loss, 5))
    setText(this.stepsOut, String(this.history.length - 1))
    this.headNote.hidden = r.heads === 1
    setText(this.headNote, tx('headNote'))
    const q = (this.labels ?? r.tokens).map(tokLabel),
      k = (this.labels ?? r.sourceTokens ?? r.tokens).map(tokLabel)
    for (const s of STEPS) {
      const m = s.tensor(r)
      const rows = s.rows === 'q' ? q : s.rows === 'k' ? k : numbered(m.shape[0])
      this.boxes.get(s.name)!.show(tx(s.name), tx(s.help), m, rows, s.cols === 'k' ? k : numbered(m.shape[1]))
    }
    const jr = M.jacobianRow(M.head0(r.weights), M.head0(r.gradWeights), this.goal.i)
    const one = [q[this.goal.i]]
    setText(this.jacRow, `${tx('jacRow')} = ${this.goal.i}: ${q[this.goal.i]}`)
    this.jac.a.show(tx('jacA'), '', { data: jr.a, shape: [1, jr.n] }, one, k)
    this.jac.J.show(tx('jacJ'), '', { data: jr.J, shape: [jr.n, jr.n] }, k, k)
    this.jac.dA.show(tx('jacDA'), '', { data: jr.dA, shape: [1, jr.n] }, one, k)
    this.jac.dS.show(tx('jacDS'), '', { data: jr.dS, shape: [1, jr.n] }, one, k)
    this.drawPlot()
    setText(this.program, backwardProgram(r, this.goal))
  }

  private drawPlot(): void {
    const { W, H, L, R, T, B } = PLOT
    const ys = this.history
    const top = Math.max(...ys, 1e-9) * 1.05
    const x = (i: number) => L + (i / Math.max(1, ys.length - 1)) * (W - L - R)
    const y = (v: number) => H - B - (v / top) * (H - T - B)
    const s = svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': this.tx('plotTitle') })
    s.append(
      svg('line', { x1: L, y1: H - B, x2: W - R, y2: H - B, class: 'axis' }),
      svg('line', { x1: L, y1: T, x2: L, y2: H - B, class: 'axis' }),
      svg('text', { x: L - 4, y: T + 8, 'text-anchor': 'end', text: fmt(top, 3) }),
      svg('text', { x: L - 4, y: H - B, 'text-anchor': 'end', text: '0' }),
      svg('text', { x: W - R, y: H - 6, 'text-anchor': 'end', text: String(ys.length - 1) }),
    )
    const d = ys.map((v, i) => `${i ? 'L' : 'M'} ${x(i).toFixed(1)} ${y(v).toFixed(1)}`).join(' ')
    s.append(svg('path', { d, class: 'scaled', 'data-points': ys.length }))
    for (const [i, v] of ys.entries()) s.append(svg('circle', { cx: x(i), cy: y(v), r: 2.5, class: 'scaled' }))
    this.plot.replaceChildren(s)
  }

  private drawSweep(): void {
    let pts: M.GradPoint[]
    try {
      pts = M.gradientSweep(this.engine, this.sweepSeed * 7 + 1)
    } catch (e) {
      setText(this.sqrtTable, errorMessage(e))
      return
    }
    const tx = this.tx
    const th = (text: string) => {
      const e = h('th', { scope: 'col' })
      setRich(e, text)
      return e
    }
    this.sqrtTable.replaceChildren(
      h(
        'table',
        { class: 'compare' },
        h('thead', {}, h('tr', {}, th('d_k'), th(tx('sqrtRaw')), th(tx('sqrtScaled')), th(tx('sqrtMax')))),
        h(
          'tbody',
          {},
          ...pts.map((p) =>
            h(
              'tr',
              { 'data-dk': p.dk, 'data-raw': p.raw, 'data-scaled': p.scaled },
              h('th', { scope: 'row', text: String(p.dk) }),
              h('td', { text: fmt(p.raw, 4) }),
              h('td', { text: fmt(p.scaled, 4) }),
              h('td', { text: `${fmt(p.rawMax, 3)} / ${fmt(p.scaledMax, 3)}` }),
            ),
          ),
        ),
      ),
    )
  }

  private async copy(): Promise<void> {
    const text = this.program.textContent ?? ''
    try {
      await navigator.clipboard.writeText(text)
      setRich(this.copyStatus, this.tx('copied'))
    } catch {
      setText(this.copyStatus, this.tx('copyFailed'))
      ;(this.program.parentElement as HTMLDetailsElement).open = true
    }
  }

  dispose(): void {
    for (const b of this.boxes.values()) b.map.dispose()
    for (const b of Object.values(this.jac)) b.map.dispose()
  }
}

function numbered(n: number): string[] {
  return Array.from({ length: n }, (_, i) => String(i))
}
