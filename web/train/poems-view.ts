// The Train panel's task `poems`: what the worker's poems session measures (poems-session.ts), drawn as it
// learns — the model's shape (trainer.config), the loss curves with the share of sampled poems in the form, the
// latest sample poem laid out in its lines (and the same prompt's earlier poems), the heads' scores (named only at
// the threshold, and saying so when none specialises), and "look inside". Text goes in through textContent.
import { grouped, oneBased } from '../format'
import { Labels, translate, type Lang, type T } from '../i18n/core'
import { TRAIN_POEMS, type TrainPoemsKey } from '../i18n/train-poems'
import type { PoemShot, PoemsInfo, PoemsSnapshot } from './protocol'
import {
  bestScore,
  drawPoemsCurves,
  drawScoresByStep,
  HEAD_KINDS,
  KIND_KEY,
  lineInForm,
  SHORT_KEY,
  maxOf,
  poemLines,
  type LossPoint,
} from './poems-charts'
import type { LanguageModelHeadScores } from 'attention-playground'

type Translate = T<TrainPoemsKey>

const num = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? '–' : x.toFixed(3))

/** How many earlier poems of the same prompt stay listed under the latest. */
const EARLIER = 6

export const POEMS_CSS = `
.ap-train .tr-poem{font:22px/1.5 "Noto Serif CJK SC","Songti SC",serif;margin:.25rem 0;letter-spacing:.08em}
.ap-train .tr-poem>span{display:block;width:fit-content}
.ap-train .tr-poem>span.tr-off{color:#8a1c1c;text-decoration:underline dotted}
.ap-train .tr-earlier{margin:0;padding-left:1.2rem;font-size:.9rem}
.ap-train .tr-heads-box{max-width:100%;overflow-x:auto}
.ap-train .tr-heads{border-collapse:collapse;font-variant-numeric:tabular-nums;font-size:.9rem}
.ap-train .tr-heads caption{text-align:left;font-size:.85rem;padding-bottom:.25rem}
.ap-train .tr-heads th,.ap-train .tr-heads td{border:1px solid #e2e6ec;padding:3px 8px;text-align:right}
.ap-train .tr-heads th[scope=row],.ap-train .tr-heads td:last-child{text-align:left}
.ap-train .tr-heads th[scope=row]{white-space:nowrap}
@media (max-width:480px){.ap-train .tr-heads th,.ap-train .tr-heads td{padding:3px 4px}}
.ap-train .tr-shape{font-variant-numeric:tabular-nums;color:#3d4556}
`

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}) {
  const e = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v)
  return e
}

export class PoemsView {
  readonly el = el('div', { class: 'tr-poems', 'data-train-view': 'poems' })
  readonly stepsInput = el('input', { type: 'number', name: 'steps', min: '50', max: '5000', step: '25' })
  readonly stepsLabel = el('label')
  readonly lookInside = el('button', { type: 'button', name: 'lookInside', 'data-train': 'look-inside' })
  private readonly labels = new Labels<TrainPoemsKey>()
  private tp: Translate = translate(TRAIN_POEMS, 'en')
  private readonly ui = {
    explain: el('p', { class: 'tr-intro' }),
    shape: el('p', { class: 'tr-shape', 'data-train': 'shape' }),
    curves: null as unknown as HTMLCanvasElement,
    scores: null as unknown as HTMLCanvasElement,
    scoresCaption: el('figcaption'),
    sampleCaption: el('figcaption'),
    poem: el('p', { class: 'tr-poem', 'data-train': 'poem', lang: 'zh-CN' }),
    form: el('p', { 'data-train': 'poem-form' }),
    earlier: el('ol', { class: 'tr-earlier', 'data-train': 'earlier' }),
    heads: el('table', { class: 'tr-heads', 'data-train': 'heads' }),
    /** The table scrolls sideways inside this box on a narrow phone (the page does not). */
    headsBox: el('div', { class: 'tr-heads-box', role: 'region', tabindex: '0' }),
    headsKey: el('p', { class: 'tr-note' }),
    headsNote: el('p', { 'data-train': 'heads-note' }),
    finished: el('p', { class: 'tr-goal', role: 'status', 'data-train': 'finished' }),
    lookNote: el('p', { class: 'tr-note' }),
  }
  private info: PoemsInfo | null = null
  private snap: PoemsSnapshot | null = null
  private readonly train: LossPoint[] = []
  private readonly validation: LossPoint[] = []
  private readonly form: LossPoint[] = []
  private readonly scoreHistory: Array<{ steps: number; scores: LanguageModelHeadScores }> = []
  private readonly samples: PoemShot[] = []
  private finishedAt: PoemsSnapshot | null = null
  private inspected = -1

  constructor(canvas: (w: number, h: number) => HTMLCanvasElement) {
    const { ui, labels } = this
    ui.curves = canvas(440, 190)
    ui.scores = canvas(440, 190)
    this.stepsInput.value = '500'
    this.stepsLabel.append(labels.bind(el('span'), 'runSteps'), this.stepsInput)
    labels.bind(this.lookInside, 'lookInside')
    labels.bind(ui.explain, 'explain')
    labels.bind(ui.headsKey, 'headsKey')
    ui.headsBox.append(ui.heads)
    const figure = (view: string, ...kids: Node[]) => {
      const f = el('figure', { 'data-train-view': view })
      f.append(...kids)
      return f
    }
    const charts = el('div', { class: 'tr-charts' })
    charts.append(
      figure('poems-curves', labels.bind(el('figcaption'), 'curves'), ui.curves),
      figure('poems-scores', ui.scoresCaption, ui.scores),
    )
    const look = el('div', { class: 'tr-row' })
    look.append(this.lookInside)
    this.el.append(
      ui.explain,
      ui.shape,
      ui.finished,
      charts,
      figure('poem', ui.sampleCaption, ui.poem, ui.form, ui.earlier),
      figure('heads', ui.headsBox, ui.headsKey, ui.headsNote),
      look,
      ui.lookNote,
    )
  }

  /** A new model: nothing measured yet. */
  clear(): void {
    this.info = null
    this.snap = null
    this.finishedAt = null
    this.inspected = -1
    for (const a of [this.train, this.validation, this.form, this.scoreHistory, this.samples]) a.length = 0
  }

  /** The run's length from the steps field (50–5,000; 500 when it holds something else). */
  runLength(): number {
    const n = Math.round(Number(this.stepsInput.value))
    return Number.isFinite(n) && n >= 50 && n <= 5000 ? n : 500
  }

  get playing(): boolean {
    return this.snap?.playing ?? false
  }

  get steps(): number {
    return this.snap?.steps ?? 0
  }

  ready(info: PoemsInfo, snap: PoemsSnapshot): void {
    this.clear()
    this.info = info
    this.record(snap)
  }

  record(snap: PoemsSnapshot): void {
    this.snap = snap
    const first = snap.steps - snap.losses.length + 1
    snap.losses.forEach((loss, i) => this.train.push({ steps: first + i, loss }))
    const add = (list: LossPoint[], p: LossPoint | null) => {
      if (p && list.at(-1)?.steps !== p.steps) list.push(p)
    }
    add(this.validation, snap.validation)
    add(this.form, snap.form && { steps: snap.form.steps, loss: snap.form.kept / snap.form.total })
    if (snap.heads && this.scoreHistory.at(-1)?.steps !== snap.heads.steps) this.scoreHistory.push(snap.heads)
    if (snap.sample && this.samples.at(-1)?.steps !== snap.sample.steps) this.samples.push(snap.sample)
    if (snap.finished) this.finishedAt = snap
  }

  /** The worker stopped (an error, or it died): not playing any more. */
  stopped(): void {
    if (this.snap) this.snap = { ...this.snap, playing: false }
  }

  /** "Look inside" sent the weights of `steps` to the Write a poem view. */
  inspectedAt(steps: number): void {
    this.inspected = steps
  }

  setLang(lang: Lang): void {
    this.tp = translate(TRAIN_POEMS, lang)
    this.labels.apply(this.tp)
  }

  /** The panel's top paragraph for this task. */
  intro(): string {
    return this.tp('intro')
  }

  /** The panel's status line for this task (before the first snapshot: loading). */
  status(): string {
    const s = this.snap
    if (!s) return this.tp('loading')
    return this.tp('status', {
      steps: s.steps,
      loss: num(this.train.at(-1)?.loss),
      val: num(s.validation?.loss),
      valAt: s.validation?.steps ?? '–',
      kept: s.form?.kept ?? '–',
      total: s.form?.total ?? '–',
      lr: s.lrInUse.toPrecision(3),
    })
  }

  draw(): void {
    const { ui, tp } = this
    ui.shape.textContent = this.shapeText()
    const run = this.info?.config.decaySteps ?? this.runLength()
    drawPoemsCurves(ui.curves, { train: this.train, validation: this.validation, form: this.form, runLength: run }, tp)
    ui.curves.setAttribute(
      'aria-label',
      tp('curvesLabel', {
        loss: num(this.train.at(-1)?.loss),
        val: num(this.validation.at(-1)?.loss),
        form: this.form.length ? `${Math.round(this.form.at(-1)!.loss * 100)} %` : '–',
      }),
    )
    const threshold = this.snap?.heads?.scores.threshold ?? 0.4
    ui.scoresCaption.textContent = tp('scoresChart', { threshold })
    drawScoresByStep(ui.scores, this.scoreHistory, run, tp)
    const h = this.snap?.heads?.scores
    ui.scores.setAttribute(
      'aria-label',
      h
        ? tp('scoresLabel', {
            pl: maxOf(h, 'previousLine').toFixed(2),
            pc: maxOf(h, 'previousChar').toFixed(2),
            le: maxOf(h, 'lineEnd').toFixed(2),
          })
        : tp('headsNone'),
    )
    this.drawSample()
    this.drawHeads()
    const f = this.finishedAt
    ui.finished.textContent = f
      ? tp('finished', {
          steps: f.steps,
          val: num(f.validation?.loss),
          kept: f.form?.kept ?? '–',
          total: f.form?.total ?? '–',
        })
      : ''
    ui.lookNote.textContent = this.inspected >= 0 ? tp('lookInsideNote', { steps: this.inspected }) : ''
  }

  private shapeText(): string {
    const c = this.info?.config
    if (!c) return ''
    return this.tp('shape', {
      layers: c.layers,
      heads: c.heads,
      dModel: c.dModel,
      headSize: c.dModel / c.heads,
      mlp: 4 * c.dModel,
      vocab: grouped(c.vocabSize),
      context: c.context,
      batch: c.batch,
      positions: this.tp(c.positions === 'rope' ? 'posRope' : 'posLearned'),
      parameters: grouped(c.parameters),
      lr: c.lr,
      warmup: c.warmup,
      minLr: Number(c.minLr.toPrecision(3)),
      decay: c.decaySteps,
    })
  }

  private drawSample(): void {
    const { ui, tp } = this
    const s = this.samples.at(-1)
    ui.sampleCaption.textContent = s ? tp('sample', { steps: s.steps, first: [...s.written][0] ?? '' }) : ''
    ui.poem.replaceChildren(
      ...(s
        ? poemLines(s.written).map((line) => {
            const span = el('span')
            if (!lineInForm(line)) span.className = 'tr-off'
            span.textContent = line
            return span
          })
        : []),
    )
    ui.poem.dataset.poemText = s?.written ?? ''
    ui.form.textContent = !s
      ? tp('sampleNone')
      : s.keepsForm
        ? tp('keeps', { lines: poemLines(s.written).length })
        : `${tp('breaks')}${s.poem === null ? ` ${tp('noEnd')}` : ''}`
    ui.form.dataset.keepsForm = String(s?.keepsForm ?? false)
    const earlier = this.samples.slice(-1 - EARLIER, -1).reverse()
    ui.earlier.replaceChildren(
      ...earlier.map((p) => {
        const li = el('li')
        li.append(`${tp('earlierStep', { steps: p.steps })}: `)
        const text = el('span', { lang: 'zh-CN' })
        text.textContent = p.written
        li.append(text)
        return li
      }),
    )
    ui.earlier.setAttribute('aria-label', tp('earlier'))
    ui.earlier.hidden = earlier.length === 0
  }

  private drawHeads(): void {
    const { ui, tp } = this
    const h = this.snap?.heads
    if (!h) {
      ui.heads.replaceChildren()
      ui.headsBox.setAttribute('aria-label', tp('headsNone'))
      ui.headsNote.textContent = tp('headsNone')
      return
    }
    const s = h.scores
    const caption = el('caption')
    caption.textContent = tp('heads', { poems: this.info?.scorePoems ?? '–', steps: h.steps })
    const head = el('tr')
    for (const k of ['colHead', ...HEAD_KINDS.map((kind) => SHORT_KEY[kind]), 'colRole'] as TrainPoemsKey[]) {
      const th = el('th', { scope: 'col' })
      th.textContent = tp(k)
      head.append(th)
    }
    const thead = el('thead')
    thead.append(head)
    const body = el('tbody')
    s.labels.forEach((row, l) =>
      row.forEach((role, hd) => {
        const tr = el('tr', { 'data-head': `${l}.${hd}` })
        if (role) tr.dataset.headRole = role
        const name = el('th', { scope: 'row' })
        name.textContent = tp('headName', { layer: oneBased(l), head: oneBased(hd) })
        tr.append(name)
        for (const kind of HEAD_KINDS) {
          const td = el('td', { 'data-score': kind })
          const v = s[kind][l][hd]
          td.textContent = v.toFixed(3)
          td.dataset.value = String(v)
          td.style.background = `rgba(28,100,209,${(0.35 * Math.max(0, Math.min(1, v))).toFixed(3)})`
          tr.append(td)
        }
        const named = el('td')
        named.textContent = role ? tp(SHORT_KEY[role]) : tp('roleNone')
        tr.append(named)
        body.append(tr)
      }),
    )
    ui.heads.replaceChildren(caption, thead, body)
    ui.headsBox.setAttribute('aria-label', caption.textContent)
    const named = s.labels.flat().some((r) => r !== null)
    const b = bestScore(s)
    ui.headsNote.textContent = named
      ? tp('someSpecialise', { threshold: s.threshold })
      : tp('noneSpecialise', {
          score: b.score.toFixed(2),
          kind: tp(KIND_KEY[b.kind]),
          layer: oneBased(b.layer),
          head: oneBased(b.head),
          threshold: s.threshold,
        })
  }
}
