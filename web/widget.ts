// <attention-playground>: the playground as a custom element for course pages. One shared engine
// (wasm) instance serves every element on the page; each element has its own state, shadow root and
// playground. Attributes use the page's URL parameter names, so a link and a tag read the same.
//
//   <script type="module" src="…/attention-playground/dist/widget/widget.js"></script>
//   <attention-playground text="我爱中国" tokenizer="char" lang="zh" mask="causal"></attention-playground>

import { init } from 'attention-playground'
import type { Engine, Trace } from './engine-types'
import { STEP_NAMES } from './engine-types'
import { mountPlayground, RENDERED_EVENT, type PlaygroundHandle } from './playground'
import { browserLang, defaultState, parseParams, type Lang, type Notice, type PlaygroundState } from './state'
import { translator } from './i18n'
import { exportPanelPng, matrixCsv, panelMatrix, pytorchCode } from './export'

export { exportPanelPng, matrixCsv, pytorchCode } from './export'

/**
 * Attributes that map one to one onto URL parameters (parsed and validated by state.ts), as
 * [attribute, parameter]: HTML lower-cases attribute names, the URL keeps dModel.
 */
const STATE_ATTRS: ReadonlyArray<readonly [string, string]> = [
  ['text', 'text'], ['source', 'source'], ['target', 'target'], ['tokenizer', 'tokenizer'], ['score', 'score'],
  ['mask', 'mask'], ['heads', 'heads'], ['dmodel', 'dModel'], ['dq', 'dq'], ['dk', 'dk'], ['dv', 'dv'], ['seed', 'seed'],
  ['lang', 'lang'], ['temperature', 'temperature'], ['scale', 'scale'], ['mode', 'mode'], ['view', 'view'],
]
const OBSERVED = [...STATE_ATTRS.map(([a]) => a), 'steps', 'guided']

/** The state fields attributes decide; a changed attribute patches only these (the learner's other choices stay). */
const ATTR_FIELDS: Array<keyof PlaygroundState> = [
  'mode', 'text', 'source', 'target', 'tokenizer', 'score', 'mask', 'heads', 'dModel', 'dq', 'dk', 'dv', 'seed', 'lang',
  'temperature', 'scale', 'view', 'guided',
]

/** Panel names `steps` accepts: the engine's step names and the page's other panels. */
const PANEL_NAMES = new Set<string>([
  ...STEP_NAMES, 'sourceEmbeddings', 'tokens', 'params', 'lines', 'arith', 'guided', 'decoderSelfAttention', 'why',
  'origin', 'train',
])

const STRINGS = {
  en: {
    png: 'PNG', csv: 'CSV', pngLabel: 'Download this panel as a PNG image', csvLabel: 'Download this matrix as CSV',
    pytorch: 'Copy as PyTorch code', pytorchDownload: 'Download .py', copied: 'Copied: paste it into a .py file and run it with python3.',
    copyFailed: 'The clipboard is not available here: select the code below and copy it.', exportFailed: 'Export failed:',
    trainMissing: 'The training panel is not part of this build.',
  },
  zh: {
    png: 'PNG', csv: 'CSV', pngLabel: '将此面板下载为 PNG 图片', csvLabel: '将此矩阵下载为 CSV',
    pytorch: '复制为 PyTorch 代码', pytorchDownload: '下载 .py', copied: '已复制：粘贴到 .py 文件中，用 python3 运行。',
    copyFailed: '此处无法使用剪贴板：请选中下面的代码并复制。', exportFailed: '导出失败：',
    trainMissing: '此版本不包含训练面板。',
  },
} as const

const WIDGET_CSS = `
:host { display: block; container-type: inline-size; }
/* A course column is narrower than the window: stack the controls by the widget's width, not the viewport's. */
@container (max-width: 860px) { .ap-layout { grid-template-columns: minmax(0, 1fr) !important; } .controls { position: static !important; max-height: none !important; } }
.apw { background: #f6f7f9; font-family: system-ui, -apple-system, "Segoe UI", "Noto Sans CJK SC", "WenQuanYi Micro Hei", "Microsoft YaHei", sans-serif;
  font-size: 14px; line-height: 1.5; color: #1d2330; }
.apw [hidden] { display: none !important; }
.apw-bar { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; padding: 8px 20px 0; }
.apw-bar button, .ap-export button { font: inherit; font-size: 12px; cursor: pointer; border: 1px solid #c9ced6; background: #fff;
  border-radius: 7px; padding: 2px 8px; color: #1d2330; }
.apw-bar button:hover, .ap-export button:hover { border-color: #1c64d1; }
.apw-bar button:focus-visible, .ap-export button:focus-visible { outline: 2px solid #1c64d1; outline-offset: 2px; }
.apw-status { font-size: 12px; color: #5b6475; }
.apw-code { width: 100%; min-height: 12em; font: 12px ui-monospace, "DejaVu Sans Mono", monospace; margin: 6px 20px; box-sizing: border-box; max-width: calc(100% - 40px); }
.apw-notice { margin: 8px 20px 0; border-radius: 10px; padding: 8px 12px; background: #fff8e1; border: 1px solid #f3dd9a; color: #5c4400; }
.apw-notice p, .apw-error p { margin: 0; }
.apw-error { margin: 8px 20px 0; border-radius: 10px; padding: 8px 12px; background: #fdecea; border: 1px solid #f5c2bd; color: #7a1a12; }
.apw-loading { color: #5b6475; padding: 12px 20px; margin: 0; }
.ap-export { display: inline-flex; gap: 4px; margin-left: auto; }
.apw-train { padding: 0 20px 16px; }
`

// ---------------------------------------------------------------------------------------------
// The engine, loaded once for every element on the page.

let enginePromise: Promise<Engine> | null = null
let loadedEngine: Engine | null = null

/** The wasm is the package's dist/attention.wasm, one folder above this module (dist/widget/widget.js). */
function wasmUrl(): string {
  // Built from parts so that no bundler mistakes it for an asset to copy or inline.
  return new URL(['..', 'attention.wasm'].join('/'), import.meta.url).href
}

function loadEngine(): Promise<Engine> {
  if (!enginePromise) {
    const url = wasmUrl()
    enginePromise = (init({ locateFile: () => url }) as Promise<unknown>).then((e) => (loadedEngine = e as Engine))
    enginePromise.catch(() => { enginePromise = null })  // a failed fetch may be retried by the next element
  }
  return enginePromise
}

// The training panel (issue 5) is optional in the build: found at build time if the file exists,
// and only run when an element's `steps` asks for it.
declare global {
  interface ImportMeta {
    glob<T>(pattern: string): Record<string, () => Promise<T>>
  }
}
type TrainModule = { mountTrainPanel(root: HTMLElement, opts: { lang: Lang }): { setLang(l: Lang): void; dispose(): void } }
const trainModules = import.meta.glob<TrainModule>('./train/panel.ts')

// ---------------------------------------------------------------------------------------------
// Attributes → state

interface FromAttributes {
  state: PlaygroundState
  notices: Notice[]
  steps: string[] | undefined
}

function hostLang(el: HTMLElement): Lang {
  // The course page's own language (an ancestor's lang attribute) before the browser's.
  const ancestor = el.parentElement?.closest('[lang]')?.getAttribute('lang')
  if (ancestor) {
    const l = ancestor.toLowerCase()
    if (l.startsWith('zh')) return 'zh'
    if (l.startsWith('en')) return 'en'
  }
  return browserLang(typeof navigator === 'undefined' ? [] : navigator.languages)
}

function readAttributes(el: HTMLElement): FromAttributes {
  const params = new URLSearchParams()
  for (const [attr, param] of STATE_ATTRS) {
    const v = el.getAttribute(attr)
    if (v !== null) params.set(param, v)
  }
  const { state, notices } = parseParams(params, defaultState(hostLang(el)))

  // Values valid one by one can still clash; the engine would refuse them, so fall back here as well.
  if ((state.score === 'dot' || state.score === 'scaled-dot') && state.dq !== state.dk) {
    notices.push({ param: 'dk', value: `${state.dk} (${state.score} needs dk = dq = ${state.dq})` })
    state.dk = state.dq
  }
  if (state.dq % state.heads || state.dk % state.heads || state.dv % state.heads) {
    notices.push({ param: 'heads', value: `${state.heads} (must divide dq = ${state.dq}, dk = ${state.dk}, dv = ${state.dv})` })
    state.heads = 1
    state.head = 0
  }

  const guided = el.getAttribute('guided')
  if (guided !== null) {
    const g = guided.trim().toLowerCase()
    if (g === '' || g === 'true' || g === 'guided') state.guided = 1
    else if (g === 'false') state.guided = 0
    else if (/^[0-5]$/.test(g)) state.guided = Number(g)
    else notices.push({ param: 'guided', value: guided })
  }

  let steps: string[] | undefined
  const stepsAttr = el.getAttribute('steps')
  if (stepsAttr !== null && stepsAttr.trim() !== '') {
    const names = stepsAttr.split(',').map((s) => s.trim()).filter(Boolean)
    const known = names.filter((n) => PANEL_NAMES.has(n))
    const unknown = names.filter((n) => !PANEL_NAMES.has(n))
    if (unknown.length) notices.push({ param: 'steps', value: unknown.join(',') })
    steps = known.length ? known : undefined
  }
  return { state, notices, steps }
}

function sameSteps(a: string[] | undefined, b: string[] | undefined): boolean {
  return (a ?? []).join(',') === (b ?? []).join(',')
}

// ---------------------------------------------------------------------------------------------
// The element

const BaseElement: typeof HTMLElement = typeof HTMLElement === 'undefined' ? (class {} as typeof HTMLElement) : HTMLElement

export class AttentionPlaygroundElement extends BaseElement {
  static get observedAttributes(): string[] {
    return OBSERVED
  }

  /** The shared engine's wasm memory (null before it loads): tests use it to check that removal frees memory. */
  static memoryStats(): { heapBytes: number; allocatedBytes: number } | null {
    const e = loadedEngine as (Engine & { memoryStats?: () => { heapBytes: number; allocatedBytes: number } }) | null
    return e?.memoryStats ? e.memoryStats() : null
  }

  private shadow: ShadowRoot
  private handle: PlaygroundHandle | null = null
  private frame: HTMLElement | null = null
  private attrs: FromAttributes | null = null
  private generation = 0
  private readyResolve: (() => void) | null = null
  private readyReject: ((e: unknown) => void) | null = null
  private train: { setLang(l: Lang): void; dispose(): void } | null = null
  private trainBox: HTMLElement | null = null
  private noticeBox: HTMLElement | null = null
  private statusEl: HTMLElement | null = null
  private codeBox: HTMLTextAreaElement | null = null
  private renders = 0
  /** The language at mount, until the playground (which owns the state) has returned its handle. */
  private mountLang: Lang = 'en'
  readonly ready: Promise<void>

  constructor() {
    super()
    this.shadow = this.attachShadow({ mode: 'open' })
    this.ready = new Promise<void>((resolve, reject) => {
      this.readyResolve = resolve
      this.readyReject = reject
    })
    this.ready.catch(() => undefined)  // the failure is shown in the element; nobody has to await it
  }

  /** The current state (URL parameter names), or null before the first render. */
  get state(): PlaygroundState | null {
    return this.handle?.getState() ?? null
  }

  /** The last successful trace, or null. */
  get trace(): Trace | null {
    return this.handle?.getTrace() ?? null
  }

  /** How many renders have reached the screen (tests wait on it after changing an attribute). */
  get renderCount(): number {
    return this.renders
  }

  connectedCallback(): void {
    if (!this.handle && !this.frame) void this.mount()
  }

  disconnectedCallback(): void {
    this.teardown()
  }

  attributeChangedCallback(name: string, oldValue: string | null, newValue: string | null): void {
    if (oldValue === newValue || !this.handle || !this.attrs) return
    const next = readAttributes(this)
    if (name === 'steps' && !sameSteps(next.steps, this.attrs.steps)) {
      // The panel filter is fixed at mount: mount again, keeping what the learner did.
      const keep = this.handle.getState()
      this.teardown()
      void this.mount(keep)
      return
    }
    const patch: Partial<PlaygroundState> = {}
    for (const k of ATTR_FIELDS) {
      if (next.state[k] !== this.attrs.state[k]) (patch as Record<string, unknown>)[k] = next.state[k]
    }
    this.attrs = next
    this.showNotices(next.notices, next.state.lang)
    if (Object.keys(patch).length) this.handle.setState(patch)
    if (patch.lang) {
      this.train?.setLang(next.state.lang)
      this.frame?.setAttribute('lang', next.state.lang)
      this.labelExports()
    }
  }

  pytorchCode(): string {
    const state = this.handle?.getState()
    const trace = this.handle?.getTrace()
    if (!state || !trace) throw new Error('pytorchCode: the widget has not rendered a result yet (await element.ready)')
    return pytorchCode(state, trace)
  }

  csv(step: string): string {
    const trace = this.handle?.getTrace()
    const state = this.handle?.getState()
    if (!trace || !state) throw new Error('csv: the widget has not rendered a result yet (await element.ready)')
    const m = panelMatrix(trace, step, state.head)
    return matrixCsv(m.tensor, m.rows, m.cols)
  }

  png(step: string): Promise<Blob> {
    const panel = this.shadow.querySelector<HTMLElement>(`[data-step="${CSS.escape(step)}"]`)
    if (!panel) return Promise.reject(new Error(`png: no panel with data-step "${step}" in this widget`))
    return exportPanelPng(panel)
  }

  // -------------------------------------------------------------------------------------------

  private async mount(override?: PlaygroundState): Promise<void> {
    const gen = ++this.generation
    const lang = override?.lang ?? readAttributes(this).state.lang

    const style = document.createElement('style')
    style.textContent = WIDGET_CSS
    const frame = document.createElement('div')
    frame.className = 'apw'
    frame.setAttribute('lang', lang)
    this.frame = frame
    const loading = document.createElement('p')
    loading.className = 'apw-loading'
    loading.textContent = translator(lang)('loading')
    frame.append(loading)
    this.shadow.replaceChildren(style, frame)

    let engine: Engine
    try {
      engine = await loadEngine()
    } catch (e) {
      if (gen !== this.generation) return
      loading.className = 'apw-error'
      loading.setAttribute('role', 'alert')
      loading.textContent = `${translator(lang)('loadFailed')} ${e instanceof Error ? e.message : String(e)}`
      this.readyReject?.(e)
      return
    }
    if (gen !== this.generation) return  // removed (or remounted) while the engine loaded
    loading.remove()
    // Read now: attributes may have changed while the engine loaded.
    const attrs = readAttributes(this)
    this.attrs = attrs
    const state = override ? { ...override, ...pickFields(attrs.state) } : attrs.state
    frame.setAttribute('lang', state.lang)

    this.mountLang = state.lang
    const s = STRINGS[state.lang]
    const bar = document.createElement('div')
    bar.className = 'apw-bar'
    const copyBtn = button('pytorch', s.pytorch)
    const dlBtn = button('pytorch-download', s.pytorchDownload)
    const status = document.createElement('span')
    status.className = 'apw-status'
    status.setAttribute('role', 'status')
    this.statusEl = status
    bar.append(copyBtn, dlBtn, status)
    copyBtn.addEventListener('click', () => void this.copyCode())
    dlBtn.addEventListener('click', () => this.safely(() => download(new Blob([this.pytorchCode()], { type: 'text/x-python' }), 'attention.py')))

    const notice = document.createElement('div')
    notice.className = 'apw-notice'
    notice.setAttribute('role', 'status')
    this.noticeBox = notice
    const root = document.createElement('div')
    frame.append(notice, bar, root)
    this.showNotices(attrs.notices, state.lang)

    root.addEventListener(RENDERED_EVENT, () => this.afterRender())
    this.handle = mountPlayground(root, engine, state, { compact: true, steps: attrs.steps })

    if (attrs.steps?.includes('train')) void this.mountTrain(gen, state.lang)
  }

  private lang(): Lang {
    return this.handle?.getState().lang ?? this.mountLang
  }

  private afterRender(): void {
    this.renders++
    this.addExportButtons()
    this.collapseEmptyGroups()
    if (this.renders === 1) this.readyResolve?.()
    this.dispatchEvent(new CustomEvent('ap-render', { detail: { count: this.renders } }))
  }

  private async mountTrain(gen: number, lang: Lang): Promise<void> {
    const box = document.createElement('div')
    box.className = 'apw-train'
    this.frame?.append(box)
    this.trainBox = box
    const load = trainModules['./train/panel.ts']
    if (!load) {
      box.textContent = STRINGS[lang].trainMissing
      return
    }
    const mod = await load()
    if (gen !== this.generation) return
    this.train = mod.mountTrainPanel(box, { lang: this.handle?.getState().lang ?? lang })
  }

  /** With `steps`, a row of panels whose panels are all hidden would still take its gap: hide the row. */
  private collapseEmptyGroups(): void {
    if (!this.attrs?.steps) return
    for (const g of this.shadow.querySelectorAll<HTMLElement>('.pipeline > .grid')) {
      const kids = Array.from(g.children) as HTMLElement[]
      g.hidden = kids.length > 0 && kids.every((k) => k.hidden)
    }
  }

  /** PNG and CSV buttons in every step panel's header (mountPlayground has no hook for them yet). */
  private addExportButtons(): void {
    const lang = this.lang()
    for (const panel of this.shadow.querySelectorAll<HTMLElement>('section[data-step]')) {
      const step = panel.dataset.step!
      if (!(STEP_NAMES as readonly string[]).includes(step)) continue
      const head = panel.querySelector(':scope > header')
      if (!head || head.querySelector('.ap-export')) continue
      const box = document.createElement('span')
      box.className = 'ap-export'
      const png = button('png', STRINGS[lang].png)
      const csv = button('csv', STRINGS[lang].csv)
      png.addEventListener('click', () => this.safely(async () => download(await this.png(step), `${step}.png`)))
      // A BOM so spreadsheet programs read the Chinese tokens as UTF-8.
      csv.addEventListener('click', () => this.safely(() => download(new Blob(['\ufeff' + this.csv(step)], { type: 'text/csv;charset=utf-8' }), `${step}.csv`)))
      box.append(png, csv)
      head.append(box)
    }
    this.labelExports()
  }

  private labelExports(): void {
    const lang = this.lang()
    const s = STRINGS[lang]
    for (const b of this.shadow.querySelectorAll<HTMLButtonElement>('button[data-export]')) {
      const kind = b.dataset.export!
      if (kind === 'png') { b.textContent = s.png; b.setAttribute('aria-label', s.pngLabel) }
      else if (kind === 'csv') { b.textContent = s.csv; b.setAttribute('aria-label', s.csvLabel) }
      else if (kind === 'pytorch') b.textContent = s.pytorch
      else if (kind === 'pytorch-download') b.textContent = s.pytorchDownload
    }
  }

  private async copyCode(): Promise<void> {
    const lang = this.lang()
    let code: string
    try {
      code = this.pytorchCode()
    } catch (e) {
      this.say(`${STRINGS[lang].exportFailed} ${e instanceof Error ? e.message : String(e)}`)
      return
    }
    try {
      await navigator.clipboard.writeText(code)
      this.say(STRINGS[lang].copied)
    } catch {
      // No clipboard (insecure context, denied permission): show the code to copy by hand.
      this.say(STRINGS[lang].copyFailed)
      if (!this.codeBox) {
        this.codeBox = document.createElement('textarea')
        this.codeBox.className = 'apw-code'
        this.codeBox.readOnly = true
        this.statusEl?.parentElement?.after(this.codeBox)
      }
      this.codeBox.value = code
      this.codeBox.select()
    }
  }

  private safely(fn: () => unknown): void {
    const lang = this.lang()
    Promise.resolve().then(fn).catch((e) => this.say(`${STRINGS[lang].exportFailed} ${e instanceof Error ? e.message : String(e)}`))
  }

  private say(msg: string): void {
    if (this.statusEl) this.statusEl.textContent = msg
  }

  private showNotices(notices: Notice[], lang: Lang): void {
    if (!this.noticeBox) return
    const t = translator(lang)
    // Attribute values are learner- or author-supplied: text nodes only.
    this.noticeBox.replaceChildren(...notices.map((n) => {
      const p = document.createElement('p')
      p.textContent = `${t('noticeInvalid')} ${n.param} = “${n.value.length > 80 ? n.value.slice(0, 80) + '…' : n.value}”`
      return p
    }))
    this.noticeBox.hidden = notices.length === 0
  }

  private teardown(): void {
    this.generation++
    this.train?.dispose()
    this.train = null
    this.trainBox = null
    this.handle?.dispose()
    this.handle = null
    this.frame = null
    this.noticeBox = null
    this.statusEl = null
    this.codeBox = null
    this.attrs = null
    // Dropping the shadow tree drops every listener attached inside it.
    this.shadow.replaceChildren()
  }
}

function pickFields(s: PlaygroundState): Partial<PlaygroundState> {
  const out: Partial<PlaygroundState> = {}
  for (const k of ATTR_FIELDS) (out as Record<string, unknown>)[k] = s[k]
  return out
}

function button(kind: string, label: string): HTMLButtonElement {
  const b = document.createElement('button')
  b.type = 'button'
  b.dataset.export = kind
  b.textContent = label
  return b
}

function download(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob)
  const a = document.createElement('a')
  a.href = url
  a.download = name
  a.rel = 'noopener'
  a.click()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

if (typeof customElements !== 'undefined' && !customElements.get('attention-playground')) {
  customElements.define('attention-playground', AttentionPlaygroundElement)
}
