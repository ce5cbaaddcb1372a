// The Train panel: play / pause / step a small attention model training in a Web Worker, with its
// learning rate, loss and accuracy curves, the attention map of a chosen sentence and a 2-D PCA of the
// embeddings, all redrawn as it learns; or, task `poems`, a small GPT learning Tang poems (poems-view.ts).
// Every text goes in through textContent (or canvas fillText).
//
//   import { mountTrainPanel } from './train/panel'
//   const panel = mountTrainPanel(container, { lang: 'en' })   // later: panel.setLang('zh'); panel.dispose()
import {
  DEFAULT_TRAIN_SETTINGS,
  POEMS_LR,
  type FromWorker,
  type PoemsCorpusUrls,
  type PoemsSnapshot,
  type Pong,
  type ReadyInfo,
  type Snapshot,
  type ToWorker,
  type TrainSettings,
} from './protocol'
import { isTouchScreen, Labels, translate, type Lang } from '../i18n/core'
import { TRAIN, type TrainKey } from '../i18n/train'
import { adoptStyles } from '../dom'
import { engineError } from '../engine-errors'
import {
  drawAttention,
  drawCurves,
  drawGradNorms,
  drawPca,
  num,
  pct,
  type HistoryPoint,
  type TrainTranslate,
} from './charts'
import type { ScoreRule, Trace, TrainTask } from 'attention-playground'
import { InductionView } from './induction'
import { spawnWorker } from './spawn'
import { PoemsView, POEMS_CSS } from './poems-view'

/** What each task lets a learner watch: the intro's second sentence follows the chosen task. */
const TASK_INTROS: Record<TrainTask, TrainKey> = {
  coreference: 'introCoreference',
  reverse: 'introReverse',
  'next-char': 'introNextChar',
  induction: 'introInduction',
}

/** The rules by name in the panel's language (the engine's ids stay the option values). */
const RULE_LABELS: Record<ScoreRule, TrainKey> = {
  'scaled-dot': 'ruleScaledDot',
  dot: 'ruleDot',
  general: 'ruleBilinear',
  additive: 'ruleAdditive',
  concat: 'ruleConcat',
}

export interface TrainPanelOptions {
  lang: Lang
  /** Where the worker script is (default: ./worker.ts beside this module, bundled by Vite). */
  workerUrl?: URL
  /** First settings (defaults: coreference, scaled-dot, 1 head, dModel 32, Adam, lr 0.01, seed 0). */
  settings?: Partial<TrainSettings>
  /** "Look inside this step": called with the last layer's attention as a trace for the backward view. */
  onInspect?: (trace: Trace, labels: string[]) => void
  /** A worker that answers no ping for this long is taken for dead (default WATCHDOG_MS). */
  watchdogMs?: number
  /** The poems corpus's files (the page's public/poems/; URLs relative to the document): task poems. */
  poemsCorpus?: PoemsCorpusUrls
  /** Task poems' "look inside": the current weights as a safetensors file, for the Write a poem view. */
  onLookInside?: (bytes: Uint8Array, steps: number) => void
}

/** A worker killed from outside sends no event: after its first message it is pinged, and silent this long it is dead. */
export const WATCHDOG_MS = 15_000
/**
 * The same for task poems, whose worker answers between steps and measurements of 0.2–1.5 s each on a quiet machine,
 * several times that on a loaded one: it is taken for dead after this long.
 */
export const POEMS_WATCHDOG_MS = 60_000

export interface TrainPanelHandle {
  readonly el: HTMLElement
  setLang(lang: Lang): void
  /** Resolves with the next snapshot (tests and the benchmark wait on it). */
  nextSnapshot(): Promise<Snapshot>
  dispose(): void
}

/** The accuracy at which training pauses once and says so (coreference reaches it in about 100 steps). */
const GOAL = 0.95

const CSS = `
.ap-train{font:14px/1.45 system-ui,"Noto Sans CJK SC","Microsoft YaHei",sans-serif;display:grid;gap:.75rem}
.ap-train [hidden]{display:none!important}
.ap-train h2{margin:0;font-size:1.15rem}
.ap-train p{margin:0}
.ap-train .tr-error:empty,.ap-train .tr-note:empty{display:none}
.ap-train .tr-intro{margin:0;max-width:60rem}
.ap-train .tr-row{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:end}
.ap-train label{display:flex;flex-direction:column;font-size:.85rem;gap:.15rem}
.ap-train input,.ap-train select,.ap-train textarea,.ap-train button{font:inherit;color:inherit}
.ap-train label>span{font-weight:600;color:#5b6475;font-size:12px}
.ap-train select,.ap-train input[type=number],.ap-train input[type=text],.ap-train textarea{min-height:32px;border:1px solid #e2e6ec;border-radius:7px;padding:5px 7px;background:#fff}
.ap-train :focus-visible{outline:2px solid #1c64d1;outline-offset:2px}
.ap-train input[type=number]{width:6.5rem}
.ap-train select{max-width:100%}
.ap-train textarea{width:min(40rem,100%);min-height:4rem}
.ap-train .tr-sentence{width:min(32rem,100%)}
.ap-train label.tr-sentence-label{flex:1 1 22rem;max-width:34rem}
.ap-train label.tr-sentence-label .tr-sentence{width:100%}
.ap-train button{min-height:32px;padding:5px 12px;border:1px solid #e2e6ec;border-radius:8px;background:#fff;cursor:pointer}
.ap-train button:hover:not(:disabled){border-color:#1c64d1}
.ap-train button[name=play]{background:#1c64d1;color:#fff;border-color:#1c64d1;font-weight:600}
.ap-train button[aria-pressed=true]{background:#1552ad;color:#fff}
@media (pointer:coarse){.ap-train button,.ap-train select,.ap-train input[type=number],.ap-train input[type=text]{min-height:44px}}
.ap-train .tr-status,.ap-train .tr-grads{font-variant-numeric:tabular-nums}
.ap-train .tr-error{color:#a00}
.ap-train .tr-goal{padding:6px 10px;border-left:3px solid #1f7a3a;background:#e9f6ee;color:#1f5f36;border-radius:0 8px 8px 0}
.ap-train .tr-goal:empty{display:none}
.ap-train .tr-charts{display:flex;flex-wrap:wrap;gap:1rem}
.ap-train figure{margin:0;display:flex;flex-direction:column;gap:.25rem}
.ap-train figcaption{font-size:.85rem}
.ap-train canvas{border:1px solid #ddd;background:#fff}
.ap-train{grid-template-columns:minmax(0,1fr)}
.ap-train figure{max-width:100%}
.ap-train canvas{max-width:100%;height:auto}
.ap-train .tr-roles{margin:0;padding-left:1.2rem}
${POEMS_CSS}`

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...kids: Node[]) {
  const e = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v)
  e.append(...kids)
  return e
}

function canvas(w: number, h: number, role: string): HTMLCanvasElement {
  const c = document.createElement('canvas')
  c.setAttribute('role', role)
  const r = Math.min(2, globalThis.devicePixelRatio || 1)
  c.width = w * r
  c.height = h * r
  c.style.width = `${w}px`
  c.style.height = `${h}px`
  c.getContext('2d')?.scale(r, r)
  return c
}

type Bind = Labels<TrainKey>['bind']

/** The settings controls (task, rule, heads, optimizer, learning rate, seed, next-char text). */
function buildSettings(settings: TrainSettings, bind: Bind) {
  const select = (key: TrainKey, name: string, options: Array<[string, TrainKey | null]>, value: string) => {
    const s = el('select', { name })
    for (const [v, k] of options) {
      const o = el('option', { value: v })
      if (k) bind(o, k)
      else o.textContent = v
      s.append(o)
    }
    s.value = value
    return { label: el('label', {}, bind(el('span'), key), s), input: s }
  }
  const input = (attrs: Record<string, string>, value: string) => {
    const i = el('input', attrs)
    i.value = value
    return i
  }
  const textArea = el('textarea', { name: 'text', spellcheck: 'false' })
  textArea.value = settings.text ?? ''
  return {
    task: select(
      'task',
      'task',
      [
        ['coreference', 'taskCoreference'],
        ['reverse', 'taskReverse'],
        ['next-char', 'taskNextChar'],
        ['induction', 'taskInduction'],
        ['poems', 'taskPoems'],
      ],
      settings.task,
    ),
    score: select(
      'score',
      'score',
      // The table's order: the default rule first.
      (Object.keys(RULE_LABELS) as ScoreRule[]).map((s) => [s, RULE_LABELS[s]]),
      settings.score,
    ),
    heads: select(
      'heads',
      'heads',
      ['1', '2', '4'].map((s) => [s, null]),
      String(settings.heads),
    ),
    positions: select(
      'positions',
      'positions',
      [
        ['learned', 'posLearned'],
        ['sinusoidal', 'posSinusoidal'],
        ['rope', 'posRope'],
      ],
      settings.positions,
    ),
    optim: select(
      'optimizer',
      'optimizer',
      [
        ['adam', 'optAdam'],
        ['sgd', 'optSgd'],
      ],
      settings.optimizer,
    ),
    lrInput: input({ type: 'number', name: 'lr', min: '0.0001', max: '10', step: '0.001' }, String(settings.lr)),
    seedInput: input({ type: 'number', name: 'seed', min: '0', step: '1' }, String(settings.seed)),
    resetBtn: bind(el('button', { type: 'button', name: 'reset' }), 'reset'),
    textArea,
    textLabel: el('label', {}, bind(el('span'), 'text'), textArea),
  }
}

/** The panel's controls and canvases, built once; the labels are bound to their message keys. */
function buildUi(settings: TrainSettings, bind: Bind) {
  const ui = {
    ...buildSettings(settings, bind),
    playBtn: el('button', { type: 'button', name: 'play', 'aria-pressed': 'false' }),
    stepBtn: bind(el('button', { type: 'button', name: 'step' }), 'step'),
    status: el('p', { class: 'tr-status', role: 'status', 'aria-live': 'polite' }),
    note: el('p', { class: 'tr-note' }),
    error: el('p', { class: 'tr-error', role: 'alert' }),
    restartBtn: bind(el('button', { type: 'button', name: 'restart', 'data-train': 'restart', hidden: '' }), 'restart'),
    goal: el('p', { class: 'tr-goal', role: 'status', 'data-goal': '' }),
    sentenceInput: el('input', { type: 'text', name: 'sentence', class: 'tr-sentence' }),
    curves: canvas(440, 190, 'img'),
    grads: canvas(440, 190, 'img'),
    gradText: el('p', { class: 'tr-grads', 'data-train': 'grad-norms' }),
    inspectBtn: bind(el('button', { type: 'button', name: 'inspect', 'data-train': 'inspect' }), 'inspect'),
    inspectNote: bind(el('p', { class: 'tr-note', hidden: '' }), 'inspectRope'),
    attn: canvas(340, 340, 'img'),
    pca: canvas(340, 340, 'img'),
    section: el('section', { class: 'ap-train', 'data-step': 'train', 'data-panel': 'train' }),
    induction: new InductionView((w, h) => canvas(w, h, 'img')),
    poems: new PoemsView((w, h) => canvas(w, h, 'img')),
    /** The top paragraph: what the task in use teaches (TrainPanel.showIntro). */
    intro: el('p', { class: 'tr-intro', 'data-train': 'intro' }),
  }
  const fig = (c: HTMLCanvasElement, key: TrainKey) =>
    el('figure', { 'data-train-view': key }, bind(el('figcaption'), key), c)
  const sentenceLabel = el('label', { class: 'tr-sentence-label' }, bind(el('span'), 'sentence'), ui.sentenceInput)
  // What the attention tasks show and task poems does not (its own view is ui.poems)
  const attentionOnly = [
    ui.score.label,
    ui.heads.label,
    ui.optim.label,
    sentenceLabel,
    el('div', { class: 'tr-charts' }, fig(ui.curves, 'curves'), fig(ui.grads, 'gradNorms')),
    ui.gradText,
    el('div', { class: 'tr-row' }, ui.inspectBtn),
    el('div', { class: 'tr-charts' }, fig(ui.attn, 'attention'), fig(ui.pca, 'pca')),
  ]
  const [scoreLabel, headsLabel, optimLabel, , charts, gradText, inspectRow, maps] = attentionOnly
  ui.section.append(
    bind(el('h2'), 'title'),
    ui.intro,
    el(
      'div',
      { class: 'tr-row' },
      ui.task.label,
      scoreLabel,
      headsLabel,
      ui.positions.label,
      optimLabel,
      el('label', {}, bind(el('span'), 'lr'), ui.lrInput),
      el('label', {}, bind(el('span'), 'seed'), ui.seedInput),
      ui.poems.stepsLabel,
      ui.resetBtn,
    ),
    ui.textLabel,
    el('div', { class: 'tr-row' }, ui.playBtn, ui.stepBtn, sentenceLabel),
    ui.status,
    ui.goal,
    ui.note,
    ui.error,
    ui.restartBtn,
    charts,
    gradText,
    inspectRow,
    ui.inspectNote,
    maps,
    ui.induction.el,
    ui.poems.el,
  )
  return { ...ui, attentionOnly }
}

type Ui = ReturnType<typeof buildUi>

/** The settings the controls hold (a bad learning rate or seed falls back to the default). */
function readSettings(ui: Ui, dModel: number): TrainSettings {
  const lr = Number(ui.lrInput.value)
  const seed = Number(ui.seedInput.value)
  return {
    task: ui.task.input.value as TrainSettings['task'],
    score: ui.score.input.value as TrainSettings['score'],
    heads: Number(ui.heads.input.value),
    positions: ui.positions.input.value as TrainSettings['positions'],
    dModel,
    optimizer: ui.optim.input.value as TrainSettings['optimizer'],
    lr: Number.isFinite(lr) && lr > 0 ? lr : 0.01,
    seed: Number.isInteger(seed) && seed >= 0 ? seed : 0,
    text: ui.textArea.value,
    steps: ui.poems.runLength(),
  }
}

export function mountTrainPanel(root: HTMLElement, opts: TrainPanelOptions): TrainPanelHandle {
  const panel = new TrainPanel(root, opts)
  return {
    el: panel.ui.section,
    setLang: (l) => panel.setLang(l),
    nextSnapshot: () => new Promise<Snapshot>((resolve) => panel.waiters.push(resolve)),
    dispose: () => panel.dispose(),
  }
}

class TrainPanel {
  readonly ui: Ui
  readonly waiters: Array<(s: Snapshot) => void> = []
  readonly poemsWaiters: Array<(s: PoemsSnapshot) => void> = []
  private lang: Lang
  private t: TrainTranslate
  private readonly labels = new Labels<TrainKey>()
  private readonly settings: TrainSettings
  private worker!: Worker
  /** The watchdog: a ping every WATCHDOG_MS / 5; a worker silent for WATCHDOG_MS after its first answer is dead. */
  private watchdog = 0
  private lastHeard = 0
  /** Why the worker stopped (an error's message, or null: it went silent), while Restart is offered. */
  private crash: { reason: string | null } | null = null
  private readonly removeStyles: () => void
  private info: ReadyInfo | null = null
  private snap: Snapshot | null = null
  private readonly history: HistoryPoint[] = []
  private disposed = false
  private frame = 0
  /** The step at which the accuracy first reached GOAL (training paused there once), 0 before. */
  private goalStep = 0
  private goalWhich: 'goalHeldOut' | 'goalTraining' = 'goalHeldOut'
  private goalAcc = 0
  /** The last attention that could be drawn (kept while the sentence to watch cannot be). */
  private lastAttention: Snapshot['attention'] = null

  constructor(
    root: HTMLElement,
    private readonly opts: TrainPanelOptions,
  ) {
    this.lang = opts.lang === 'zh' ? 'zh' : 'en'
    this.t = translate(TRAIN, this.lang, isTouchScreen())
    this.settings = {
      ...DEFAULT_TRAIN_SETTINGS,
      text: '',
      ...opts.settings,
    }
    this.ui = buildUi(this.settings, this.labels.bind)
    // task poems needs its corpus, and "look inside" a view to open the weights in
    if (!opts.poemsCorpus) this.ui.task.input.querySelector('option[value="poems"]')?.remove()
    this.ui.poems.lookInside.hidden = !opts.onLookInside
    root.append(this.ui.section)
    this.removeStyles = adoptStyles(this.ui.section, CSS)
    this.startWorker()
    this.listen()
    this.relabel()
    this.reset()
  }

  /** A fresh worker (at the start, and when Restart replaces one that crashed). */
  private startWorker(): void {
    // The widget on a course page of another site starts it through a blob: module (spawn.ts).
    const w = (this.worker = this.opts.workerUrl
      ? new Worker(this.opts.workerUrl, { type: 'module' })
      : spawnWorker(() => new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' })))
    this.lastHeard = 0
    w.onmessage = (e: MessageEvent<FromWorker | Pong>) => {
      this.lastHeard = performance.now()
      if (e.data.type !== 'pong') this.receive(e.data)
    }
    // An error nobody caught inside the worker (a throw outside a handler, a failed load): it is gone for us.
    w.onerror = (e) => {
      e.preventDefault()
      this.crashed(e.message || 'worker error')
    }
    w.onmessageerror = () => this.crashed('messageerror')
    clearInterval(this.watchdog)
    this.watchdog = window.setInterval(
      () => {
        if (!this.lastHeard) return // not started yet: a load failure is an error event
        if (performance.now() - this.lastHeard > this.watchdogLimit()) this.crashed(null)
        else this.send({ type: 'ping' })
      },
      (this.opts.watchdogMs ?? WATCHDOG_MS) / 5,
    )
  }

  /** How long the worker may stay silent (task poems: longer; its turns are training steps). */
  private watchdogLimit(): number {
    return this.opts.watchdogMs ?? (this.settings.task === 'poems' ? POEMS_WATCHDOG_MS : WATCHDOG_MS)
  }

  /** The worker died (killed, or an uncaught error): the panel says so and offers Restart; the page goes on. */
  private crashed(reason: string | null): void {
    if (this.disposed || this.crash) return
    this.crash = { reason }
    clearInterval(this.watchdog)
    this.worker.terminate()
    if (this.snap) this.snap = { ...this.snap, playing: false }
    this.ui.poems.stopped()
    this.showStatus()
    this.showCrash()
    this.ui.restartBtn.hidden = false
    this.setWorkerButtons(false)
  }

  /** The buttons that send the worker something: off while there is no worker (after a crash, until Restart). */
  private setWorkerButtons(enabled: boolean): void {
    for (const b of [this.ui.playBtn, this.ui.stepBtn, this.ui.inspectBtn, this.ui.poems.lookInside])
      b.disabled = !enabled
  }

  private showCrash(): void {
    if (!this.crash) return
    const seconds = Math.round(this.watchdogLimit() / 1000)
    const reason = this.crash.reason ?? this.t('workerSilent', { seconds })
    this.ui.error.textContent = this.t('workerCrashed', { reason })
  }

  private restart(): void {
    this.crash = null
    this.ui.restartBtn.hidden = true
    this.ui.error.textContent = ''
    this.setWorkerButtons(true)
    this.startWorker()
    this.reset()
  }

  private send(m: ToWorker): void {
    this.worker.postMessage(m)
  }

  private listen(): void {
    const { ui } = this
    const reset = () => this.reset()
    ui.playBtn.addEventListener('click', () => this.send({ type: this.playing() ? 'pause' : 'play' }))
    ui.stepBtn.addEventListener('click', () => this.send({ type: 'step', n: 10 }))
    ui.inspectBtn.addEventListener('click', () => this.send({ type: 'inspect' }))
    ui.poems.lookInside.addEventListener('click', () => this.send({ type: 'inspect' }))
    ui.resetBtn.addEventListener('click', reset)
    ui.restartBtn.addEventListener('click', () => this.restart())
    // induction's default is 2 heads a layer (the roles need room); the other tasks start at 1. Task poems has its
    // own peak learning rate (the trainer's default, 3e-3); going to or from it sets the field to the task's default.
    let poems = ui.task.input.value === 'poems'
    ui.task.input.addEventListener('change', () => {
      ui.heads.input.value = ui.task.input.value === 'induction' ? '2' : String(DEFAULT_TRAIN_SETTINGS.heads)
      if (poems !== (ui.task.input.value === 'poems')) {
        poems = !poems
        ui.lrInput.value = String(poems ? POEMS_LR : DEFAULT_TRAIN_SETTINGS.lr)
      }
    })
    for (const s of [ui.task.input, ui.score.input, ui.heads.input, ui.positions.input, ui.optim.input, ui.seedInput])
      s.addEventListener('change', reset)
    ui.poems.stepsInput.addEventListener('change', () => {
      if (ui.task.input.value === 'poems') reset()
    })
    ui.textArea.addEventListener('change', () => {
      if (ui.task.input.value === 'next-char') reset()
    })
    ui.lrInput.addEventListener('change', () => {
      const lr = Number(ui.lrInput.value)
      // poems: the learning rate is the peak of the run's schedule, so a new one starts a new model
      if (ui.task.input.value === 'poems') reset()
      else if (Number.isFinite(lr) && lr > 0 && lr <= 10) this.send({ type: 'lr', lr })
    })
    ui.sentenceInput.addEventListener('input', () => {
      ui.sentenceInput.dataset.auto = '0'
      this.send({ type: 'sentence', text: ui.sentenceInput.value })
    })
  }

  setLang(l: Lang): void {
    this.lang = l === 'zh' ? 'zh' : 'en'
    this.relabel()
  }

  private relabel(): void {
    const t = (this.t = translate(TRAIN, this.lang, isTouchScreen()))
    this.labels.apply(t)
    this.ui.poems.setLang(this.lang)
    this.showIntro()
    this.ui.section.lang = this.lang === 'zh' ? 'zh-CN' : 'en'
    this.ui.playBtn.textContent = this.playing() ? t('pause') : t('play')
    // Every chart is named from the start (an img without a name is a violation); a draw adds what it shows.
    for (const [c, key] of [
      [this.ui.curves, 'curves'],
      [this.ui.grads, 'gradNorms'],
      [this.ui.attn, 'attention'],
      [this.ui.pca, 'pca'],
    ] as const)
      c.setAttribute('aria-label', t(key))
    this.showCrash()
    this.drawAll()
  }

  /** Whether the worker is training on (either kind of task). */
  private playing(): boolean {
    return this.settings.task === 'poems' ? this.ui.poems.playing : (this.snap?.playing ?? false)
  }

  /** The top paragraph says what the task in use teaches. */
  private showIntro(): void {
    const task = this.settings.task
    // an attention task: what training does, then what this task shows (TASK_INTROS); task poems: its own paragraph
    this.ui.intro.textContent =
      task === 'poems' ? this.ui.poems.intro() : `${this.t('intro')} ${this.t(TASK_INTROS[task])}`
  }

  private showStatus(): void {
    const { ui, snap, t } = this
    if (this.settings.task === 'poems') {
      ui.status.textContent = ui.poems.status()
      ui.note.textContent = ''
      ui.goal.textContent = ''
      ui.playBtn.textContent = this.playing() ? t('pause') : t('play')
      ui.playBtn.setAttribute('aria-pressed', String(this.playing()))
      return
    }
    if (!snap) {
      ui.status.textContent = t('starting')
      return
    }
    const vars = {
      steps: snap.steps,
      loss: num(snap.train.loss),
      train: pct(snap.train.accuracy),
      test: pct(snap.test?.accuracy),
      lr: snap.lrInUse.toPrecision(3),
      rest: pct(snap.restAccuracy),
    }
    ui.status.textContent = t(this.settings.task === 'induction' ? 'inductionStatus' : 'status', vars)
    ui.note.textContent =
      this.info && this.settings.task === 'coreference' ? t('heldOutNote', { test: this.info.testSize }) : ''
    ui.playBtn.textContent = snap.playing ? t('pause') : t('play')
    ui.playBtn.setAttribute('aria-pressed', String(snap.playing))
    ui.goal.textContent = this.goalStep
      ? t('goalReached', { steps: this.goalStep, which: t(this.goalWhich), acc: pct(this.goalAcc) })
      : ''
  }

  private drawAll(): void {
    this.showStatus()
    if (this.settings.task === 'poems') return this.ui.poems.draw()
    const induction = this.settings.task === 'induction'
    const phase = induction ? this.ui.induction.phase() : null
    drawCurves(this.ui.curves, this.history, this.t, phase === null ? undefined : { step: phase, label: 'phase' })
    if (induction) this.ui.induction.draw(this.t)
    drawGradNorms(this.ui.grads, this.history, this.snap?.gradNorms ?? [], this.t)
    // the norms' names are formulas (code), their values numbers
    this.ui.gradText.replaceChildren(
      ...(this.snap?.gradNorms ?? []).flatMap((g, k) => [
        k ? ' · ' : '',
        el('code', {}, document.createTextNode(`‖dL/d${g.name.replace(/^layers\.\d+\./, '')}‖`)),
        ` = ${g.norm.toPrecision(3)}`,
      ]),
    )
    drawAttention(this.ui.attn, this.snap?.attention ?? this.lastAttention, this.t)
    drawPca(this.ui.pca, this.snap, this.info, this.t)
  }

  private schedule(): void {
    if (this.frame || this.disposed) return
    this.frame = requestAnimationFrame(() => {
      this.frame = 0
      this.drawAll()
    })
  }

  private receive(m: FromWorker): void {
    const { ui } = this
    if (m.type === 'error' && m.fatal) return this.crashed(m.message) // a wasm trap: this worker's engine is lost
    if (m.type === 'error') {
      ui.error.textContent = `${this.t('workerFailed')} ${m.message}`
      if (this.snap) this.snap = { ...this.snap, playing: false }
      ui.poems.stopped()
      this.showStatus()
      return
    }
    if (m.type === 'inspect') {
      this.opts.onInspect?.(m.trace, m.labels)
      return
    }
    if (m.type === 'weights') {
      ui.poems.inspectedAt(m.steps)
      this.opts.onLookInside?.(m.bytes, m.steps)
      this.schedule()
      return
    }
    if (m.type === 'poemsReady' || m.type === 'poems') return this.receivePoems(m)
    if (m.type === 'ready') {
      this.info = m.info
      this.history.length = 0
      ui.error.textContent = ''
      if (!ui.sentenceInput.value || ui.sentenceInput.dataset.auto === '1') {
        ui.sentenceInput.value = m.info.sample
        ui.sentenceInput.dataset.auto = '1'
      }
    }
    const snap = (this.snap = m.snapshot)
    ui.induction.record(snap.induction)
    if (snap.attention) this.lastAttention = snap.attention
    ui.error.textContent = snap.attentionError
      ? this.sentenceError(snap.attentionError)
      : m.type === 'ready'
        ? ''
        : ui.error.textContent
    this.record(snap)
    this.checkGoal(snap)
    for (const w of this.waiters.splice(0)) w(snap)
    this.schedule()
  }

  /** Task poems: its view records the snapshot; the curves and the poem are redrawn at the next frame. */
  private receivePoems(m: Extract<FromWorker, { type: 'poemsReady' | 'poems' }>): void {
    if (m.type === 'poemsReady') {
      this.ui.poems.ready(m.info, m.snapshot)
      this.ui.error.textContent = ''
    } else {
      this.ui.poems.record(m.snapshot)
    }
    for (const w of this.poemsWaiters.splice(0)) w(m.snapshot)
    this.schedule()
  }

  /** Coreference and reverse: the first time the held-out accuracy (else the training one) reaches GOAL, pause and say so. */
  private checkGoal(snap: Snapshot): void {
    // The tasks with a goal to reach: coreference and reverse (next-char and induction are watched as they go).
    const goalTask = this.settings.task === 'coreference' || this.settings.task === 'reverse'
    if (!goalTask || this.goalStep || snap.steps === 0) return
    const acc = snap.test?.accuracy ?? snap.train.accuracy
    if (!(acc >= GOAL)) return
    this.goalStep = snap.steps
    this.goalWhich = snap.test ? 'goalHeldOut' : 'goalTraining'
    this.goalAcc = acc
    if (snap.playing) this.send({ type: 'pause' })
  }

  /** The sentence to watch could not be traced: the reason in the page's language. */
  private sentenceError(message: string): string {
    const m = /'(.+)' is not in the vocabulary of task/.exec(message)
    if (m) return this.t('notInVocab', { word: m[1], words: (this.info?.vocab ?? []).slice(0, 14).join(' ') })
    return `${this.t('sentenceFailed')} ${engineError(this.lang, message).text}`
  }

  /** One point of the curves per step count (before the first step, the held-out numbers). */
  private record(snap: Snapshot): void {
    const h = this.history
    const last = h[h.length - 1]
    if (last && last.steps === snap.steps) return
    h.push({
      steps: snap.steps,
      loss: snap.steps === 0 ? (snap.test?.loss ?? NaN) : snap.train.loss,
      trainAcc: snap.steps === 0 ? (snap.test?.accuracy ?? NaN) : snap.train.accuracy,
      testAcc: snap.test?.accuracy ?? NaN,
      // a point of the norms' chart only where they were measured (every few chunks)
      grads: snap.gradNormsAt === snap.steps ? snap.gradNorms.map((g) => g.norm) : [],
    })
    if (h.length > 2000) h.splice(0, h.length - 2000)
  }

  private reset(): void {
    if (this.crash) return this.restart() // a changed setting with no worker: start one (restart resets)
    const { ui } = this
    const poems = ui.task.input.value === 'poems'
    // the language model has learned positions or RoPE (docs/lm-spec.md), not the sinusoidal table
    const sinusoidal = ui.positions.input.querySelector<HTMLOptionElement>('option[value="sinusoidal"]')!
    sinusoidal.disabled = poems
    if (poems && ui.positions.input.value === 'sinusoidal') ui.positions.input.value = 'learned'
    Object.assign(this.settings, readSettings(ui, this.settings.dModel))
    for (const e of ui.attentionOnly) e.hidden = poems
    ui.poems.el.hidden = !poems
    ui.poems.stepsLabel.hidden = !poems
    ui.poems.clear()
    ui.textLabel.hidden = this.settings.task !== 'next-char'
    // the gradients view runs the course program (no positions): a RoPE model's last layer is not that
    ui.inspectBtn.hidden = this.settings.positions === 'rope'
    ui.inspectNote.hidden = poems || this.settings.positions !== 'rope'
    ui.induction.el.hidden = this.settings.task !== 'induction'
    ui.induction.clear()
    this.showIntro()
    ui.sentenceInput.dataset.auto = '1'
    ui.sentenceInput.value = ''
    this.snap = null
    this.info = null
    this.goalStep = 0
    this.lastAttention = null
    this.drawAll()
    const c = this.opts.poemsCorpus
    const abs = (u: string) => new URL(u, document.baseURI).href
    const corpus = c && { vocab: abs(c.vocab), train: abs(c.train), validation: abs(c.validation) }
    this.send({ type: 'reset', settings: { ...this.settings }, corpus })
  }

  dispose(): void {
    this.disposed = true
    clearInterval(this.watchdog)
    if (this.frame) cancelAnimationFrame(this.frame)
    this.worker.terminate()
    this.ui.section.remove()
    this.removeStyles()
  }
}
