// mountPlayground: the whole UI as one component, mounted full-size by the page and inside a shadow
// root by the <attention-playground> widget. It owns the state, runs the engine, and re-renders the
// panels; bad input shows the engine's message and keeps the last good result on screen.

import type { Ctx, Highlight, Panel, Selection } from './context'
import type { Engine, RunOptions, Tensor, Trace } from './engine-types'
import { Texts, adoptStyles, h, setText } from './dom'
import { translator, type Translate } from './i18n'
import {
  applyEdits, baseRunOptions, cloneState, resetsEdits, resetsPositions, type EditableTensor, type Notice,
  type PlaygroundState,
} from './state'
import { STYLES } from './styles'
import { ControlsPanel } from './panels/controls'
import { TokensPanel } from './panels/tokens'
import { createStepPanels } from './panels/steps'
import { ArithPanel } from './panels/arith'
import { LinesPanel } from './panels/lines'
import { ParamsPanel } from './panels/params'
import { GuidedPanel } from './panels/guided'
import { WhyPanel } from './panels/why'
import { OriginPanel } from './panels/origin'
import { DecoderPanel } from './panels/decoder'
import { LongPanel } from './panels/long'
import { computeLong, longTokens, type LongData, type Tokenized } from './long'
import { downloadBlob, exportPanelPng, matrixCsv, panelMatrix, pytorchCode } from './export'
import type { Lang } from './state'

/** The Train panel (web/train/panel.ts) is loaded only when shown; absent from a build that lacks it. */
type TrainHandle = { el?: HTMLElement; setLang(l: Lang): void; dispose(): void }
type TrainModule = { mountTrainPanel(root: HTMLElement, opts: { lang: Lang }): TrainHandle }
declare global {
  interface ImportMeta {
    glob<T>(pattern: string): Record<string, () => Promise<T>>
  }
}
const trainModules = import.meta.glob<TrainModule>('./train/panel.ts')

const VIEW_ORDER = ['pipeline', 'why', 'origin', 'train'] as const

export interface PlaygroundOptions {
  /** Called after every state change (the page writes it into the URL). */
  onStateChange?: (state: PlaygroundState) => void
  /** Invalid URL parameters or attributes, shown once as notices. */
  notices?: Notice[]
  /** Only these panels (data-step or data-panel names) are shown; all when absent. */
  steps?: string[]
  /** Hide the header (title, language switch): a course page has its own. */
  compact?: boolean
  /** The link that reproduces the current view; a "copy link" button appears when given. */
  shareUrl?: () => string
  /**
   * Export buttons (default on): PNG and CSV in every step panel's header, "copy as PyTorch code"
   * and "download .py" in the header (which stays visible, as a button bar, when `compact`).
   */
  exports?: boolean
}

export interface PlaygroundHandle {
  setState(patch: Partial<PlaygroundState>): void
  getState(): PlaygroundState
  /** The last successful trace (for tests and the benchmark). */
  getTrace(): Trace | null
  /** Replaces the notices (invalid parameters or attributes) shown above the panels. */
  setNotices(notices: Notice[]): void
  /** A Python program (torch) that prints the numbers on screen. Throws before the first result. */
  pytorchCode(): string
  /** One step's matrix as CSV (the shown head for per-head steps), rows and columns labelled. */
  csv(step: string): string
  /** One step's panel (title, shape, heatmap) as a PNG. */
  png(step: string): Promise<Blob>
  dispose(): void
}

/** Resolves after the next render, for callers that must wait for the panels to update. */
export const RENDERED_EVENT = 'ap-rendered'

/** Quiet time after typing in a long text before it is recomputed (one recompute per pause, not per key). */
const LONG_TYPING_MS = 120

/**
 * The long view for texts of more than LONG_TOKENS tokens where it applies (long.ts), the full
 * trace otherwise. A long text the long view cannot take (cross, bpe, concat) gets the full run.
 */
export function computeAny(engine: Engine, s: PlaygroundState): { trace: Trace; droppedEdits: boolean; long: LongData | null } {
  let tok: Tokenized | null = null
  try { tok = longTokens(engine, s) } catch { tok = null }  // the full run reports the text's error
  if (tok) return computeLong(engine, s, tok)
  return { ...compute(engine, s), long: null }
}

export function compute(engine: Engine, s: PlaygroundState): { trace: Trace; droppedEdits: boolean } {
  const needsSizes = s.mask === 'padding' || s.mask === 'cells' || s.edits.length > 0
  if (!needsSizes) return { trace: engine.run(baseRunOptions(s, 0, 0)), droppedEdits: false }
  // The mask and the edits need the token counts and the seed's tensors: run once without them.
  const base = engine.run({ ...baseRunOptions(s, 0, 0), mask: 'none' })
  const nq = base.tokens.length
  const nk = base.sourceTokens?.length ?? nq
  const opts: RunOptions = baseRunOptions(s, nq, nk)
  let dropped = false
  if (s.edits.length) {
    const tensors: Record<EditableTensor, Tensor | undefined> = {
      embeddings: base.embeddings, sourceEmbeddings: base.sourceEmbeddings, Wq: base.Wq, Wk: base.Wk, Wv: base.Wv,
    }
    const { overrides, dropped: d } = applyEdits(tensors, s.edits)
    Object.assign(opts, overrides)
    dropped = d.length > 0
  }
  return { trace: engine.run(opts), droppedEdits: dropped }
}

export function mountPlayground(
  root: ShadowRoot | HTMLElement,
  engine: Engine,
  initialState: PlaygroundState,
  opts: PlaygroundOptions = {},
): PlaygroundHandle {
  let state = cloneState(initialState)
  let t: Translate = translator(state.lang)
  let trace: Trace | null = null
  let error: string | null = null
  let notices = [...(opts.notices ?? [])]
  let droppedEdits = false
  let hl: Highlight = { q: null, k: null }
  let sel: Selection | null = null
  let scheduled = 0
  let disposed = false
  let lastComputed: PlaygroundState | null = null
  let computeMs = 0
  let long: LongData | null = null
  let stage = 0
  let debounceTimer: ReturnType<typeof setTimeout> | undefined

  const removeStyles = adoptStyles(root, STYLES)
  const app = h('div', { class: 'ap-root', lang: state.lang })
  root.append(app)

  const ctx: Ctx = {
    get state() { return state },
    get t() { return t },
    texts: new Texts(),
    get trace() { return trace },
    get hl() { return hl },
    get sel() { return sel },
    setState: (patch) => setState(patch),
    setHighlight: (q, k) => {
      if (q === hl.q && k === hl.k) return
      hl = { q, k }
      for (const p of panels) p.highlight?.(ctx)
    },
    select: (s) => {
      sel = s
      for (const p of panels) p.select?.(ctx)
    },
  }

  // Header
  const title = h('h1')
  const subtitle = h('p', { class: 'subtitle' })
  const langBtn = h('button', { type: 'button', class: 'btn-small', name: 'lang' })
  const copyBtn = h('button', { type: 'button', class: 'btn-small', name: 'copyLink', hidden: !opts.shareUrl })
  let copiedUntil = 0
  copyBtn.addEventListener('click', async () => {
    if (!opts.shareUrl) return
    try {
      await navigator.clipboard.writeText(opts.shareUrl())
      copiedUntil = performance.now() + 2000
      render()
      setTimeout(() => { if (!disposed) render() }, 2100)
    } catch {
      // No clipboard permission (e.g. an insecure origin): the address bar holds the same link.
    }
  })
  langBtn.addEventListener('click', () => setState({ lang: state.lang === 'zh' ? 'en' : 'zh' }))
  const withExports = opts.exports !== false
  const pyBtn = h('button', { type: 'button', class: 'btn-small', 'data-export': 'pytorch', hidden: !withExports })
  const pyDlBtn = h('button', { type: 'button', class: 'btn-small', 'data-export': 'pytorch-download', hidden: !withExports })
  const status = h('p', { class: 'ap-status', role: 'status' })
  const codeBox = h('textarea', { class: 'ap-code', readonly: true, hidden: true, spellcheck: 'false' })
  pyBtn.addEventListener('click', () => void copyCode())
  pyDlBtn.addEventListener('click', () => safely(() => downloadBlob(new Blob([handle.pytorchCode()], { type: 'text/x-python' }), 'attention.py')))
  const titleBox = h('div', { class: 'ap-titles' }, title, subtitle)
  const header = h('header', { class: 'ap-header' }, titleBox,
    h('div', { class: 'ap-actions' }, pyBtn, pyDlBtn, copyBtn, langBtn))
  // A course page has its own title and language: compact keeps only the export bar.
  titleBox.hidden = !!opts.compact
  langBtn.hidden = !!opts.compact
  header.hidden = !!opts.compact && !withExports
  if (opts.compact) header.classList.add('ap-bar')

  const tabs = VIEW_ORDER.map((v) => {
    const b = h('button', { type: 'button', role: 'tab', class: 'tab', 'data-view': v })
    b.addEventListener('click', () => setState({ view: v }))
    // The tablist pattern: arrows move between tabs (and select them), Tab leaves the list.
    b.addEventListener('keydown', (ev) => {
      const order = VIEW_ORDER
      const d = ev.key === 'ArrowRight' ? 1 : ev.key === 'ArrowLeft' ? -1 : 0
      if (!d) return
      ev.preventDefault()
      const next = order[(order.indexOf(v) + d + order.length) % order.length]
      setState({ view: next })
      tabs[order.indexOf(next)].focus()
    })
    return b
  })
  const tabBar = h('nav', { class: 'tabs', role: 'tablist' }, ...tabs)

  const banner = h('div', { class: 'banner error', role: 'alert', hidden: true })
  const noticeBox = h('div', { class: 'banner notice', role: 'status', hidden: true })

  const controls = new ControlsPanel(ctx)
  const guided = new GuidedPanel(ctx, () => app)
  const tokens = new TokensPanel()
  const steps = createStepPanels(ctx)
  const params = new ParamsPanel()
  const lines = new LinesPanel()
  const arith = new ArithPanel()
  const decoder = new DecoderPanel(engine)
  const why = new WhyPanel()
  const origin = new OriginPanel(ctx)
  const maskedRowsNote = h('p', { class: 'help masked-rows', hidden: true })
  const longPanel = new LongPanel(ctx)
  const longNote = h('p', { class: 'banner long-note', hidden: true })
  const linesGrid = h('div', { class: 'grid grid-2' }, lines.el, arith.el)
  const scoreGroups = steps.groups.slice(3, 5)
  // With steps listing 'train' the panel sits inline after the others (no tab needed); otherwise it is the Train tab.
  const trainInline = !!opts.steps?.includes('train')
  const trainBox = h('div', { class: 'ap-train-box panel', 'data-view-box': 'train' })
  let train: TrainHandle | null = null
  let trainLoading = false

  const pipeline = h('div', { class: 'pipeline' },
    guided.el, tokens.el, ...steps.groups.slice(0, 3), params.el, longNote, longPanel.el, ...steps.groups.slice(3), maskedRowsNote,
    linesGrid, decoder.el)
  if (trainInline) pipeline.append(trainBox)
  const main = h('main', { class: 'ap-main' }, banner, noticeBox, pipeline, why.el, origin.el, trainInline ? null : trainBox)
  const footer = h('footer', { class: 'ap-footer' })
  const layout = h('div', { class: 'ap-layout' }, controls.el, main)
  app.append(header, codeBox, status, tabBar, layout, footer)
  // Inline, or filtered out by `steps`: no Train tab.
  if (opts.steps) tabs[VIEW_ORDER.indexOf('train')].hidden = true

  const panels: Panel[] = [controls, guided, tokens, ...steps.panels.values(), params, lines, arith, decoder, why, origin, longPanel]
  // Panels that need the n×n matrices: not drawn in the long view.
  const notLong = new Set<Panel>([lines, arith, ...['scores', 'scaledScores', 'maskedScores', 'weights'].map((n) => steps.panels.get(n as never)!)])

  // PNG and CSV buttons in the header of every matrix panel (the step panels and the encoder embeddings).
  const exportButtons: HTMLButtonElement[] = []
  if (withExports) {
    for (const p of steps.panels.values()) {
      const name = p.el.dataset.step ?? p.el.dataset.panel ?? ''
      const head = p.el.querySelector(':scope > header')
      if (!name || !head) continue
      const png = h('button', { type: 'button', class: 'btn-small', 'data-export': 'png' })
      const csv = h('button', { type: 'button', class: 'btn-small', 'data-export': 'csv' })
      png.addEventListener('click', () => safely(async () => downloadBlob(await handle.png(name), `${name}.png`)))
      // A BOM so spreadsheet programs read the Chinese tokens as UTF-8.
      csv.addEventListener('click', () => safely(() => downloadBlob(new Blob(['\ufeff' + handle.csv(name)], { type: 'text/csv;charset=utf-8' }), `${name}.csv`)))
      head.append(h('span', { class: 'ap-export' }, png, csv))
      exportButtons.push(png, csv)
    }
  }

  function say(msg: string): void {
    status.textContent = msg
  }

  function safely(fn: () => unknown): void {
    Promise.resolve().then(fn).then(() => { if (status.textContent?.startsWith(t('exportFailed'))) say('') })
      .catch((e) => say(`${t('exportFailed')} ${e instanceof Error ? e.message : String(e)}`))
  }

  async function copyCode(): Promise<void> {
    let code: string
    try {
      code = handle.pytorchCode()
    } catch (e) {
      say(`${t('exportFailed')} ${e instanceof Error ? e.message : String(e)}`)
      return
    }
    try {
      await navigator.clipboard.writeText(code)
      codeBox.hidden = true
      say(t('pytorchCopied'))
    } catch {
      // No clipboard (insecure context, denied permission): show the code to copy by hand.
      say(t('copyFailed'))
      codeBox.hidden = false
      codeBox.value = code
      codeBox.select()
    }
  }

  async function showTrain(): Promise<void> {
    if (train || trainLoading || disposed) return
    const load = trainModules['./train/panel.ts']
    if (!load) { trainBox.textContent = t('trainMissing'); return }
    trainLoading = true
    trainBox.replaceChildren(h('p', { class: 'help', text: t('trainLoading') }))
    try {
      const mod = await load()
      if (disposed) return
      trainBox.replaceChildren()
      train = mod.mountTrainPanel(trainBox, { lang: state.lang })
    } catch (e) {
      trainBox.replaceChildren(h('p', { class: 'banner error', role: 'alert', text: `${t('loadFailed')} ${e instanceof Error ? e.message : String(e)}` }))
    } finally {
      trainLoading = false
    }
  }

  function renderNotices(): void {
    const msgs: string[] = notices.map((n) => `${t('noticeInvalid')} ${n.param} = “${n.value.length > 80 ? n.value.slice(0, 80) + '…' : n.value}”`)
    if (droppedEdits) msgs.push(t('noticeEditsDropped'))
    noticeBox.hidden = msgs.length === 0
    if (noticeBox.childNodes.length || msgs.length) noticeBox.replaceChildren(...msgs.map((m) => h('p', { text: m })))
  }

  function applyStepFilter(): void {
    if (!opts.steps) return
    const show = new Set(opts.steps)
    // The long view stands in for the score and weight panels.
    if (show.has('weights') || show.has('scores')) show.add('long')
    for (const p of app.querySelectorAll<HTMLElement>('[data-step], [data-panel]')) {
      const name = p.dataset.step ?? p.dataset.panel ?? ''
      if (name === 'controls' || name === 'guided') continue
      if (!show.has(name)) p.hidden = true
    }
  }

  function setState(patch: Partial<PlaygroundState>): void {
    if (disposed) return
    const next = { ...cloneState(state), ...patch }
    if (resetsPositions(state, next)) {
      if (!('padKeys' in patch)) next.padKeys = []
      if (!('maskCells' in patch)) next.maskCells = []
      sel = null
      hl = { q: null, k: null }
    }
    if (resetsEdits(state, next) && !('edits' in patch)) next.edits = []
    if (next.head >= next.heads) next.head = 0
    state = next
    if (patch.lang) { t = translator(state.lang); app.lang = state.lang; train?.setLang(state.lang) }
    opts.onStateChange?.(cloneState(state))
    // Texts that are (or may have become) long: a 320-token text has well over 1,000 characters
    // unless it is Chinese by characters, and then it is already in the long view.
    const typing = 'text' in patch && (long !== null || state.text.length > 2000)
    schedule(typing ? LONG_TYPING_MS : 0)
  }

  function schedule(delay = 0): void {
    if (delay > 0) {
      clearTimeout(debounceTimer)
      debounceTimer = setTimeout(() => { debounceTimer = undefined; update() }, delay)
      return
    }
    // Any other change computes at once, and takes a pending typed text along.
    if (debounceTimer !== undefined) { clearTimeout(debounceTimer); debounceTimer = undefined }
    if (scheduled) return
    // A microtask, not the next frame: the update lands in the very next paint, and several
    // setState calls from one event still coalesce into one recompute.
    scheduled = 1
    queueMicrotask(() => { if (scheduled) { scheduled = 0; update() } })
  }

  function needsCompute(prev: PlaygroundState | null, s: PlaygroundState): boolean {
    if (!prev) return true
    const keys: Array<keyof PlaygroundState> = ['mode', 'text', 'source', 'target', 'tokenizer', 'dModel', 'dq', 'dk', 'dv',
      'seed', 'heads', 'score', 'scale', 'mask', 'temperature']
    if (keys.some((k) => prev[k] !== s[k])) return true
    return JSON.stringify([prev.padKeys, prev.maskCells, prev.edits]) !== JSON.stringify([s.padKeys, s.maskCells, s.edits])
  }

  function update(): void {
    if (disposed) return
    const t0 = performance.now()
    const gen = ++stage
    let fresh = false
    if (needsCompute(lastComputed, state)) {
      fresh = true
      lastComputed = cloneState(state)
      try {
        const r = computeAny(engine, state)
        trace = r.trace
        long = r.long
        droppedEdits = r.droppedEdits
        error = null
        if (sel && trace && (sel.i >= trace.tokens.length)) sel = null
      } catch (e) {
        error = e instanceof Error ? e.message : String(e)
      }
    }
    computeMs = performance.now() - t0
    if (!(long && fresh && !error)) { render(); return }
    // A long text: Q, K, V (above), the output and the drawing each in a task of its own, so that
    // none blocks input for long. A newer update drops the stages of this one.
    const lt = long, tr = trace!
    setTimeout(() => {
      if (disposed || gen !== stage) return
      const t1 = performance.now()
      try {
        tr.output = lt.output()
      } catch (e) {
        error = e instanceof Error ? e.message : String(e)
      }
      computeMs += performance.now() - t1
      setTimeout(() => { if (!disposed && gen === stage) render() }, 0)
    }, 0)
  }

  function render(): void {
    const r0 = performance.now()
    setText(title, t('title'))
    setText(subtitle, t('subtitle'))
    setText(langBtn, t('langSwitch'))
    setText(copyBtn, performance.now() < copiedUntil ? `✓ ${t('copied')}` : t('copyLink'))
    langBtn.setAttribute('aria-label', t('langSwitchLabel'))
    setText(pyBtn, t('copyPytorch'))
    setText(pyDlBtn, t('downloadPy'))
    for (const b of exportButtons) {
      const png = b.dataset.export === 'png'
      setText(b, t(png ? 'exportPng' : 'exportCsv'))
      b.setAttribute('aria-label', t(png ? 'exportPngLabel' : 'exportCsvLabel'))
    }
    const tabKeys = { pipeline: 'tabPipeline', why: 'tabWhy', origin: 'tabOrigin', train: 'tabTrain' } as const
    for (const b of tabs) {
      const v = b.dataset.view as keyof typeof tabKeys
      setText(b, t(tabKeys[v]))
      b.setAttribute('aria-selected', String(state.view === v))
      b.tabIndex = state.view === v ? 0 : -1
    }
    pipeline.hidden = state.view !== 'pipeline'
    why.el.hidden = state.view !== 'why'
    origin.el.hidden = state.view !== 'origin'
    trainBox.hidden = !trainInline && state.view !== 'train'
    // The training panel has its own controls: the attention controls would only distract there.
    const trainTab = !trainInline && state.view === 'train'
    controls.el.hidden = trainTab
    layout.classList.toggle('full', trainTab)
    if (trainInline || state.view === 'train') void showTrain()
    setText(footer, t('footer'))

    banner.hidden = !error
    if (banner.childNodes.length) banner.replaceChildren()
    if (error) banner.append(h('strong', { text: t('errorTitle') }), ' ', h('span', { class: 'error-msg', text: error }), ' ', h('span', { text: trace ? t('errorKept') : '' }))
    renderNotices()

    const rows = trace?.maskedRows ?? []
    maskedRowsNote.hidden = rows.length === 0
    if (trace && rows.length) maskedRowsNote.textContent = `${t('maskedRowsNote')} ${rows.map((i) => trace!.tokens[i] ?? i).join(', ')}`

    for (const g of scoreGroups) g.hidden = !!long
    // The panels too (the step filter hides the unlisted ones again below; the widget collapses rows by them).
    for (const p of notLong) p.el.hidden = !!long
    linesGrid.hidden = !!long
    longNote.hidden = !long
    if (long) setText(longNote, t('longModeNote'))
    longPanel.setData(ctx, state.view === 'pipeline' ? long : null)
    for (const p of panels) {
      if ((p === why && state.view !== 'why') || (p === origin && state.view !== 'origin')) continue
      if (long && notLong.has(p)) continue
      p.render(ctx)
    }
    applyStepFilter()
    // ms: compute plus rendering, read by bench/page_bench.mjs.
    const ms = computeMs + performance.now() - r0
    app.dispatchEvent(new CustomEvent(RENDERED_EVENT, { bubbles: true, composed: true, detail: { error, ms, computeMs, long: !!long } }))
    computeMs = 0
  }

  const handle: PlaygroundHandle = {
    setState,
    getState: () => cloneState(state),
    getTrace: () => trace,
    setNotices(list) {
      if (disposed) return
      notices = [...list]
      renderNotices()
    },
    pytorchCode() {
      if (!trace) throw new Error('pytorchCode: there is no result yet (the first computation failed or has not run)')
      return pytorchCode(state, trace)
    },
    csv(step) {
      if (!trace) throw new Error('csv: there is no result yet (the first computation failed or has not run)')
      if (long && ['scores', 'scaledScores', 'maskedScores', 'weights'].includes(step)) {
        throw new Error(`csv: "${step}" is never built for a text of ${long.n} tokens (the long view computes the rows on screen only); export embeddings, Wq, Wk, Wv, Q, K, V or output, or use a text of at most 320 tokens`)
      }
      const m = panelMatrix(trace, step, state.head)
      return matrixCsv(m.tensor, m.rows, m.cols)
    },
    png(step) {
      const panel = app.querySelector<HTMLElement>(`[data-step="${CSS.escape(step)}"], [data-panel="${CSS.escape(step)}"]`)
      if (!panel) return Promise.reject(new Error(`png: no panel named "${step}" here`))
      return exportPanelPng(panel)
    },
    dispose() {
      disposed = true
      scheduled = 0
      clearTimeout(debounceTimer)
      for (const p of panels) p.dispose?.()
      train?.dispose()
      train = null
      app.remove()
      removeStyles()
      notices = []
    },
  }

  update()
  return handle
}
