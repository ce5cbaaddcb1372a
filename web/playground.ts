// mountPlayground: the whole UI as one component, mounted full-size by the page and inside a shadow
// root by the <attention-playground> widget. It owns the state, runs the engine (compute/run.ts) and
// re-renders the panels; bad input shows the engine's message and keeps the last good result on screen.
// The pieces around the panels (header, tabs, scheduler, train box, export buttons) live in shell/.

import type { AttentionFile, Engine, Trace } from 'attention-playground'
import type { Ctx, Highlight, Panel, Selection } from './context'
import { adoptStyles, h, setText } from './dom'
import { flushHeatmaps } from './heatmap'
import { errorMessage } from './format'
import { isTouchScreen, Texts, translator, type Translate } from './i18n'
import { cloneState, withoutCrossCausal, type Notice, type PlaygroundState } from './state'
import { advancedInUse } from './params'
import { STYLES } from './styles'
import { matrixCsv, panelMatrix } from './export/csv'
import { exportPanelPng } from './export/png'
import { settingsCaption } from './export/caption'
import { pytorchCode } from './export/pytorch'
import { needsCompute, resetsPositions } from './compute/changes'
import { normalize } from './compute/normalize'
import { isPerHeadStep } from './compute/heads'
import { LONG_TOKENS, type LongData } from './compute/long-rows'
import { computeAny } from './compute/run'
import { withTrainedDims } from './compute/trained'
import { addExportButtons } from './shell/export-buttons'
import { createHeader, type Header } from './shell/header'
import { createEmbed, type Embed } from './shell/embed'
import { applyStepFilter, createPanels, type PanelSet } from './shell/panels'
import { createScheduler, type Scheduler } from './shell/scheduler'
import { createTabs, type Tabs } from './shell/tabs'
import { createPath, type Path } from './shell/path'
import { createTrainBox, type TrainBox } from './shell/train-box'
import { VIEWS_CSS } from './shell/view-factories'
import type { PoemsCorpusUrls } from './train/protocol'
import type { Recomputed } from './compute/attention-file'
import { viewEntry } from './view-table'

export interface PlaygroundOptions {
  /** Called after every state change (the page writes it into the URL). */
  onStateChange?: (state: PlaygroundState) => void
  /** Invalid URL parameters or attributes, shown once as notices. */
  notices?: Notice[]
  /** Only these panels (data-step or data-panel names) are shown; all when absent. */
  steps?: string[]
  /** Hide the header (title, language switch): a course page has its own. */
  compact?: boolean
  /**
   * The page in an iframe (`steps` in its URL), or the widget with `steps`: only the listed panels, at the top, with
   * no header, tab bar or controls column (and on the page, a link to the full page below them).
   */
  embed?: boolean
  /** The link that reproduces the current view; a "copy link" button appears when given. */
  shareUrl?: () => string
  /**
   * Export buttons (default on): PNG and CSV in every step panel's header, "copy as PyTorch code"
   * and "download .py" in the header (which stays visible, as a button bar, when `compact`).
   */
  exports?: boolean
  /**
   * A model file (URL) the "Your model" view opens when it is shown with no file and no `src` (the page's
   * sample; the widget has none).
   */
  sampleModel?: string
  /** The poems corpus's files (URLs) the Train tab's task poems trains on (the page's public/poems/). */
  poemsCorpus?: PoemsCorpusUrls
}

export interface PlaygroundHandle {
  setState(patch: Partial<PlaygroundState>): void
  getState(): PlaygroundState
  /** The last successful trace (for tests and the benchmark). */
  getTrace(): Trace | null
  /** The engine and its threads in words (the package's `backendInfo`), e.g. 'relaxed-simd, 1 thread: not cross-origin isolated'. */
  backend(): string
  /** Replaces the notices (invalid parameters or attributes) shown above the panels. */
  setNotices(notices: Notice[]): void
  /** A Python program (torch) that prints the numbers on screen. Throws before the first result. */
  pytorchCode(): string
  /** One step's matrix as CSV (the shown head for per-head steps), rows and columns labelled. */
  csv(step: string): string
  /** One step's panel (title, shape, heatmap) as a PNG. */
  png(step: string): Promise<Blob>
  /** The model view's file (view=model), its shown layer and head, and the engine's recomputation of that head. */
  model(): { file: AttentionFile; name: string; layer: number; head: number; recomputed: Recomputed | null } | null
  /** Opens a model file's bytes in the model view (and switches to it); resolves when it is shown or refused. */
  openModel(bytes: ArrayBuffer | Uint8Array, name?: string): Promise<void>
  /** Shows one layer and head of the model file. */
  selectModelHead(layer: number, head: number): void
  /**
   * Opens a language model's safetensors bytes (nanoGPT's layout: the Train tab's `trainer.exportSafetensors()`, or
   * a checkpoint) in the views that write with one (Panel.showLanguageModel) and switches to the first of them
   * (`generate`); resolves when it writes or its error is shown.
   */
  openLanguageModel(bytes: Uint8Array, name?: string): Promise<void>
  dispose(): void
}

/**
 * Dispatched (bubbling, through the widget's shadow root) after every render; the widget's users
 * listen for it on the element. detail: { error, ms, computeMs, long }.
 */
export const RENDERED_EVENT = 'ap-render'

/** Quiet time after typing in a long text before it is recomputed (one recompute per pause, not per key). */
const LONG_TYPING_MS = 120

export function mountPlayground(
  root: ShadowRoot | HTMLElement,
  engine: Engine,
  initialState: PlaygroundState,
  opts: PlaygroundOptions = {},
): PlaygroundHandle {
  return new Playground(root, engine, initialState, opts).handle
}

class Playground {
  readonly handle: PlaygroundHandle
  private state: PlaygroundState
  private t: Translate
  private trace: Trace | null = null
  private error: string | null = null
  private notices: Notice[]
  private droppedEdits = false
  private hl: Highlight = { q: null, k: null }
  private sel: Selection | null = null
  private disposed = false
  private lastComputed: PlaygroundState | null = null
  private computeMs = 0
  private long: LongData | null = null
  /** Bumped by every update: the stages of a long text's update stop when a newer one starts. */
  private stage = 0
  private readonly app: HTMLElement
  private readonly removeStyles: () => void
  private readonly ctx: Ctx
  private readonly header: Header
  private readonly embed: Embed | null
  private readonly tabs: Tabs
  private readonly path: Path
  private readonly trainBox: TrainBox
  private readonly trainInline: boolean
  private readonly panels: PanelSet
  private readonly footer = h('footer', { class: 'ap-footer' })
  /** The "More options" fold is open; it opens by itself when the state starts using one of them (PARAMS' advanced). */
  private more = false
  private usesAdvanced = false
  /** The embed layout's link to the full page (null otherwise). */
  private fullPage: HTMLAnchorElement | null = null
  private embedTitle: HTMLElement | null = null
  private embedSub: HTMLElement | null = null
  private readonly labelExports: (t: Translate) => void
  private readonly scheduler: Scheduler

  constructor(
    root: ShadowRoot | HTMLElement,
    private readonly engine: Engine,
    initial: PlaygroundState,
    private readonly opts: PlaygroundOptions,
  ) {
    this.state = withoutCrossCausal(withTrainedDims(cloneState(initial)))
    this.t = translator(this.state.lang, isTouchScreen())
    this.notices = [...(opts.notices ?? [])]
    this.removeStyles = adoptStyles(root, STYLES + VIEWS_CSS)
    this.app = h('div', { class: 'ap-root', lang: this.state.lang })
    root.append(this.app)
    this.ctx = this.makeCtx()
    this.handle = this.makeHandle()
    const withExports = opts.exports !== false
    this.embed = opts.shareUrl ? createEmbed(opts.shareUrl, opts.steps) : null
    this.header = createHeader({
      embed: this.embed ?? undefined,
      compact: !!opts.compact,
      exports: withExports,
      shareUrl: opts.shareUrl,
      t: () => this.t,
      toggleLang: () => this.setState({ lang: this.state.lang === 'zh' ? 'en' : 'zh' }),
      pytorchCode: () => this.handle.pytorchCode(),
      rerender: () => this.render(),
      disposed: () => this.disposed,
    })
    this.tabs = createTabs((view) => this.setState({ view }), !!opts.compact)
    // With steps listing 'train' the panel sits inline after the others (no tab needed); otherwise it is the Train tab.
    this.trainInline = !!opts.steps?.includes('train')
    this.trainBox = createTrainBox({
      onInspect: (trace, labels) => this.inspect(trace, labels),
      poemsCorpus: opts.poemsCorpus,
      // task poems' "look inside": the current weights open in the Write a poem view
      onLookInside: (bytes, steps) => void this.openLanguageModel(bytes, `poems-step-${steps}.safetensors`),
    })
    this.panels = createPanels(this.ctx, engine, () => this.app, this.trainBox, this.trainInline, !!opts.compact)
    this.panels.model.sample = opts.sampleModel ?? ''
    this.path = createPath(
      (view) => this.setState({ view }),
      () => this.tabs.bar,
    )
    // The path: under a view, the next one; above a view beyond the lessons, what to read first.
    this.panels.noticeBox.after(this.path.needs)
    this.panels.main.append(this.path.next)
    this.app.append(...this.header.els, this.tabs.bar, this.panels.layout, this.footer)
    if (opts.embed) this.embedLayout()
    // Inline, or filtered out by `steps`: no Train tab.
    if (opts.steps) this.tabs.hide('train')
    this.labelExports = withExports
      ? addExportButtons(this.panels.steps, { png: this.handle.png, csv: this.handle.csv, safely: this.header.safely })
      : () => undefined
    this.scheduler = createScheduler(() => this.update())
    this.update()
  }

  /**
   * The embed layout (opts.embed): the panels alone, then a link that opens this state on the full page. The
   * page's title stays as a heading for screen readers (the header is hidden); the link sits in the main landmark.
   * The widget with `steps` (no page of its own to link to) keeps one heading, below the course page's own h1.
   */
  private embedLayout(): void {
    for (const e of [...this.header.els, this.tabs.bar, this.panels.controls.el]) e.hidden = true
    this.app.classList.add('ap-embedded')
    if (!this.opts.shareUrl) {
      this.embedSub = h('h2', { class: 'sr-only' })
      this.panels.main.prepend(this.embedSub)
      return
    }
    const link = h('a', { class: 'full-page', target: '_blank', rel: 'noopener' })
    // h1 then h2 before the panels' h3 (axe: a page has a level-one heading; heading levels go down by one).
    this.embedTitle = h('h1', { class: 'sr-only' })
    this.embedSub = h('h2', { class: 'sr-only' })
    this.panels.main.prepend(this.embedTitle, this.embedSub)
    this.panels.main.append(h('p', { class: 'full-page-line' }, link))
    this.fullPage = link
  }

  /** The Train tab's "look inside this step": every view that shows a trained model's numbers (Panel.showTrained:
   * the backward view, the sinks view's measure) gets the trained model's last layer; the backward view opens. */
  private inspect(trace: Trace, labels: string[]): void {
    for (const v of this.panels.views) v.panel.showTrained?.(trace, labels)
    this.setState({ view: 'backward' })
  }

  /** A language model's bytes to every view that writes with one; the first of them opens. */
  private openLanguageModel(bytes: Uint8Array, name: string): Promise<void> {
    const writers = this.panels.views.filter((v) => v.panel.showLanguageModel)
    const shown = writers.map((v) => v.panel.showLanguageModel!(bytes, name))
    if (writers.length) this.setState({ view: writers[0].view })
    return Promise.all(shown).then(() => undefined)
  }

  private makeCtx(): Ctx {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the getters below read the live fields
    const self = this
    const each = (f: (p: Panel) => void) => {
      for (const p of self.panels.all) f(p)
    }
    return {
      get state() {
        return self.state
      },
      get t() {
        return self.t
      },
      texts: new Texts(),
      get trace() {
        return self.trace
      },
      get hl() {
        return self.hl
      },
      get sel() {
        return self.sel
      },
      get moreOptions() {
        return self.more
      },
      setMoreOptions: (open) => {
        if (open === self.more || self.disposed) return
        self.more = open
        self.render()
      },
      setState: (patch) => self.setState(patch),
      setHighlight: (q, k) => {
        if (q === self.hl.q && k === self.hl.k) return
        self.hl = { q, k }
        each((p) => p.highlight?.(self.ctx))
      },
      select: (s) => {
        self.sel = s
        each((p) => p.select?.(self.ctx))
      },
    }
  }

  private setState(patch: Partial<PlaygroundState>): void {
    if (this.disposed) return
    const merged = { ...cloneState(this.state), ...patch }
    this.panels.guided.settle(this.state, merged, patch)
    const next = merged
    normalize(next, { prev: this.state, given: new Set(Object.keys(patch)), fromLink: false })
    if (resetsPositions(this.state, next)) {
      this.sel = null
      this.hl = { q: null, k: null }
    }
    this.state = next
    if (patch.lang) {
      this.t = translator(next.lang, isTouchScreen())
      this.app.lang = next.lang
      this.trainBox.setLang(next.lang)
    }
    this.opts.onStateChange?.(cloneState(next))
    // Texts that are (or may have become) long: a text of LONG_TOKENS tokens has well over 2,000
    // characters unless it is Chinese by characters, and then it is already in the long view.
    const typing = 'text' in patch && (this.long !== null || next.text.length > 2000)
    this.scheduler.schedule(typing ? LONG_TYPING_MS : 0)
  }

  private update(): void {
    if (this.disposed) return
    const t0 = performance.now()
    const gen = ++this.stage
    const fresh = needsCompute(this.lastComputed, this.state)
    if (fresh && this.state.weights === 'trained' && !this.engine.trainerLoaded) {
      // The trained weights are the trainer's (compute/trained.ts), whose module the page loads when first asked.
      this.engine.loadTrainer().then(
        () => this.scheduler.schedule(0),
        (e: unknown) => {
          this.error = errorMessage(e)
          this.render()
        },
      )
      return
    }
    if (fresh) this.recompute()
    this.computeMs = performance.now() - t0
    if (this.long && fresh && !this.error) this.finishLong(gen, this.long, this.trace!)
    else this.render()
  }

  private recompute(): void {
    this.lastComputed = cloneState(this.state)
    try {
      const r = computeAny(this.engine, this.state)
      this.trace = r.trace
      this.long = r.long
      this.droppedEdits = r.droppedEdits
      this.error = null
      if (this.sel && this.sel.i >= r.trace.tokens.length) this.sel = null
    } catch (e) {
      this.error = errorMessage(e)
    }
  }

  /**
   * A long text: Q, K, V (done), the output and the drawing each in a task of its own, so that none
   * blocks input for long. A newer update drops the stages of this one.
   */
  private finishLong(gen: number, long: LongData, trace: Trace): void {
    const current = () => !this.disposed && gen === this.stage
    setTimeout(() => {
      if (!current()) return
      const t1 = performance.now()
      try {
        trace.output = long.output()
      } catch (e) {
        this.error = errorMessage(e)
      }
      this.computeMs += performance.now() - t1
      setTimeout(() => {
        if (current()) this.render()
      }, 0)
    }, 0)
  }

  private renderNotices(): void {
    const { t } = this
    const msgs = this.notices.map((n) => {
      if (n.reason === 'crossCausal') return t('noticeCrossCausal')
      const v = n.clash ? t(n.clash.key, n.clash.vars) : n.value
      return `${t('noticeInvalid')} ${n.param} = “${v.length > 80 ? v.slice(0, 80) + '…' : v}”`
    })
    if (this.droppedEdits) msgs.push(t('noticeEditsDropped'))
    const box = this.panels.noticeBox
    box.hidden = msgs.length === 0
    if (box.childNodes.length || msgs.length) box.replaceChildren(...msgs.map((m) => h('p', { text: m })))
  }

  private render(): void {
    const r0 = performance.now()
    const { t, state } = this
    // Only what acts on the open tab is shown: the attention controls and the PyTorch export follow the
    // pipeline alone (Why attention and Origin have their own controls or none, Train has its own).
    const controlsAct = !!viewEntry(state.view).controls
    const trainOpen = viewEntry(state.view).panel === 'train'
    // Trained or random weights, said on the root for scripts (the note above the pipeline says it to people).
    this.app.dataset.weights = state.weights
    this.header.render(t, controlsAct)
    this.embed?.render(t, state)
    this.labelExports(t)
    this.tabs.render(t, state.view)
    // No path where the views are not offered (an embedded panel, a `steps` list).
    if (this.opts.embed || this.opts.steps) this.path.needs.hidden = this.path.next.hidden = true
    else this.path.render(t, state.view, state.lang)
    this.trainBox.el.hidden = !this.trainInline && !trainOpen
    this.panels.controls.el.hidden = !controlsAct || !!this.opts.embed
    this.panels.layout.classList.toggle('full', !controlsAct || !!this.opts.embed)
    if (this.fullPage) this.renderFullPage(t)
    else if (this.embedSub) setText(this.embedSub, t('title'))
    if (this.trainInline || trainOpen) void this.trainBox.show(t, state.lang)
    setText(this.footer, t('footer'))
    const uses = advancedInUse(state).length > 0
    if (uses && !this.usesAdvanced) this.more = true
    this.usesAdvanced = uses
    this.panels.renderError(t, this.error, !!this.trace, state.lang)
    this.renderNotices()
    this.panels.render(this.ctx, this.long)
    applyStepFilter(this.app, this.opts.steps)
    // The canvases last, after every change to the page's nodes (see flushHeatmaps).
    flushHeatmaps()
    // ms: compute plus rendering, read by bench/page_bench.mjs.
    const detail = {
      error: this.error,
      ms: this.computeMs + performance.now() - r0,
      computeMs: this.computeMs,
      long: !!this.long,
    }
    this.app.dispatchEvent(new CustomEvent(RENDERED_EVENT, { bubbles: true, composed: true, detail }))
    this.computeMs = 0
  }

  /** The embed layout's link: this state on the full page (the same URL without `steps`). */
  private renderFullPage(t: Translate): void {
    const link = this.fullPage!
    setText(link, t('embedOpenFull'))
    if (this.embedTitle) setText(this.embedTitle, t('title'))
    if (this.embedSub) setText(this.embedSub, t('embedPanelsHeading'))
    const url = this.opts.shareUrl?.()
    if (!url) return
    const u = new URL(url)
    u.searchParams.delete('steps')
    link.href = u.href
  }

  private csv(step: string): string {
    if (!this.trace) throw new Error('csv: there is no result yet (the first computation failed or has not run)')
    if (this.long && isPerHeadStep(step)) {
      throw new Error(
        `csv: "${step}" is never built for a text of ${this.long.n} tokens (the long view computes the rows on screen only); export embeddings, Wq, Wk, Wv, Q, K, V or output, or use a text of at most ${LONG_TOKENS} tokens`,
      )
    }
    const m = panelMatrix(this.trace, step, this.state.head)
    return matrixCsv(m.tensor, m.rows, m.cols)
  }

  private png(step: string): Promise<Blob> {
    const panel = this.app.querySelector<HTMLElement>(
      `[data-step="${CSS.escape(step)}"], [data-panel="${CSS.escape(step)}"]`,
    )
    if (!panel) return Promise.reject(new Error(`png: no panel named "${step}" here`))
    return exportPanelPng(panel, settingsCaption(this.state, this.t))
  }

  private dispose(): void {
    this.disposed = true
    this.scheduler.cancel()
    for (const p of this.panels.all) p.dispose?.()
    this.trainBox.dispose()
    this.app.remove()
    this.removeStyles()
    this.notices = []
  }

  private makeHandle(): PlaygroundHandle {
    return {
      setState: (patch) => this.setState(patch),
      getState: () => cloneState(this.state),
      getTrace: () => this.trace,
      backend: () => this.engine.backendInfo,
      setNotices: (list) => {
        if (this.disposed) return
        this.notices = [...list]
        this.renderNotices()
      },
      pytorchCode: () => {
        if (!this.trace)
          throw new Error('pytorchCode: there is no result yet (the first computation failed or has not run)')
        return pytorchCode(this.state, this.trace)
      },
      csv: (step) => this.csv(step),
      png: (step) => this.png(step),
      model: () => this.panels.model.data,
      openModel: (bytes, name) => {
        if (this.state.view !== 'model') this.setState({ view: 'model' })
        return this.panels.model.openBytes(bytes, name)
      },
      selectModelHead: (layer, head) => this.panels.model.selectHead(layer, head),
      openLanguageModel: (bytes, name) => this.openLanguageModel(bytes, name ?? 'model.safetensors'),
      dispose: () => this.dispose(),
    }
  }
}
