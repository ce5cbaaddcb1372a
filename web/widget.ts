// <attention-playground>: the playground as a custom element for course pages. One shared engine
// (wasm) instance serves every element on the page; each element has its own state, shadow root and
// playground. Attributes use the page's URL parameter names, so a link and a tag read the same.
//
//   <script type="module" src="…/attention-playground/dist/widget/widget.js"></script>
//   <attention-playground text="我爱中国" tokenizer="char" lang="zh" mask="causal"></attention-playground>

import { init } from 'attention-playground'
import { type Engine, type MemoryStats, type Trace } from 'attention-playground'
import { mountPlayground, RENDERED_EVENT, type PlaygroundHandle } from './playground'
import { browserLang, defaultState, parseParams, type Lang, type Notice, type PlaygroundState } from './state'
import { translator } from './i18n'
import { PARAMS } from './params'
import { adoptStyles } from './dom'
import { loadFailureText } from './engine-errors'
import { setPoemsSample } from './compute/poems-sample'

export { exportPanelPng } from './export/png'
export { matrixCsv } from './export/csv'
export { pytorchCode } from './export/pytorch'

/** The attributes that set the state: PARAMS rows with an attribute (HTML lower-cases names, the URL keeps dModel). */
const STATE_PARAMS = PARAMS.filter((p) => p.attr !== null)
const OBSERVED = STATE_PARAMS.map((p) => p.attr!)

/**
 * The state fields attributes decide; a changed attribute patches only these (the learner's other choices stay).
 * `steps` is not patched: the panel filter is fixed at mount, so a new list mounts the widget again.
 */
const ATTR_FIELDS: Array<keyof PlaygroundState> = STATE_PARAMS.map((p) => p.field).filter((f) => f !== 'steps')

const WIDGET_CSS = `
:host { display: block; container-type: inline-size; }
/* A course column is narrower than the window: stack the controls by the widget's width, not the viewport's. */
@container (max-width: 860px) { .ap-layout { grid-template-columns: minmax(0, 1fr) !important; } .controls { position: static !important; max-height: none !important; } }
.apw { background: #f6f7f9; font-family: system-ui, -apple-system, "Segoe UI", "Noto Sans CJK SC", "WenQuanYi Micro Hei", "Microsoft YaHei", sans-serif;
  font-size: 14px; line-height: 1.5; color: #1d2330; }
.apw [hidden] { display: none !important; }
.apw-error p { margin: 0; }
.apw-error { margin: 8px 20px 0; border-radius: 10px; padding: 8px 12px; background: #fdecea; border: 1px solid #f5c2bd; color: #7a1a12; }
.apw-loading { color: #5b6475; padding: 12px 20px; margin: 0; }
`

// ---------------------------------------------------------------------------------------------
// The engine, loaded once for every element on the page.

let enginePromise: Promise<Engine> | null = null
let loadedEngine: Engine | null = null

/** The engine's wasm (dist/attention-relaxed.wasm where relaxed SIMD runs, else dist/attention.wasm), one folder
 * above this module (dist/widget/widget.js). */
function wasmUrl(file: string): string {
  // Built from parts so that the widget's own build leaves them alone; vite.widget.config.ts makes them literals in
  // dist/widget/widget.js, where course authors' bundlers (Vite, webpack) then emit the wasm files as assets.
  // The trainer modules too (loadTrainer asks locateFile for them): mapping them to attention.wasm gave the trainer's
  // glue the page engine's wasm, and a widget with weights="trained" never drew.
  if (file === 'attention-relaxed.wasm')
    return new URL(['..', 'attention-relaxed.wasm'].join('/'), import.meta.url).href
  if (file === 'attention-train.wasm') return new URL(['..', 'attention-train.wasm'].join('/'), import.meta.url).href
  if (file === 'attention-train-relaxed.wasm')
    return new URL(['..', 'attention-train-relaxed.wasm'].join('/'), import.meta.url).href
  return new URL(['..', 'attention.wasm'].join('/'), import.meta.url).href
}

/** The engine's bytes handed over by setEngineWasm (a page that inlines everything), else null: fetch the file. */
let engineWasm: ArrayBuffer | Uint8Array | null = null

/**
 * Hands the widget the engine's wasm (the bytes of the package's `dist/attention.wasm`, the SIMD128 engine) instead
 * of fetching `../attention.wasm` beside this module: for a page that carries everything inline, such as a notebook's
 * output (python/attention_playground), where this module is imported from a `blob:` URL and has no folder. Call it
 * before the first `<attention-playground>` connects: the engine is loaded once per page, and afterwards this throws.
 */
export function setEngineWasm(wasm: ArrayBuffer | Uint8Array): void {
  if (!(wasm instanceof ArrayBuffer) && !(wasm instanceof Uint8Array)) {
    throw new TypeError(
      `setEngineWasm: expected an ArrayBuffer or Uint8Array, got ${wasm === null ? 'null' : typeof wasm}`,
    )
  }
  if (enginePromise) {
    throw new Error(
      'setEngineWasm: the engine is already loading or loaded (it is loaded once per page); call it before the first <attention-playground> connects',
    )
  }
  engineWasm = wasm
}

function loadEngine(): Promise<Engine> {
  if (!enginePromise) {
    // One thread: the widget is one file, and a pthread worker would have to import the engine glue on its own.
    const source = engineWasm ? { wasmBinary: engineWasm } : { locateFile: wasmUrl }
    enginePromise = init({ ...source, threads: 1 }).then((e) => (loadedEngine = e))
    enginePromise.catch(() => {
      enginePromise = null
    }) // a failed fetch may be retried by the next element
  }
  return enginePromise
}

/**
 * The "Write a poem" view's sample and validation poems, the copies the package ships in dist/samples/ (one folder
 * above this module, like the wasm); none where this module has no folder (imported from a blob: URL, as in a
 * notebook's output): the view then asks for a model file.
 */
function besideThePackage(file: string): string | null {
  try {
    return new URL(['..', 'samples', file].join('/'), import.meta.url).href
  } catch {
    return null
  }
}
const poemsModel = besideThePackage('poems.safetensors')
const poemsValidation = besideThePackage('poems-validation.txt')
setPoemsSample(poemsModel && poemsValidation ? { model: poemsModel, validation: poemsValidation } : null)

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

/** `guided` as an attribute: present (or `true`) starts the tour, `false` does not, `0`–`5` as in a link. */
function guidedValue(v: string): string {
  const g = v.trim().toLowerCase()
  if (g === '' || g === 'true' || g === 'guided') return '1'
  return g === 'false' ? '0' : v
}

function readAttributes(el: HTMLElement): FromAttributes {
  const params = new URLSearchParams()
  for (const p of STATE_PARAMS) {
    const v = el.getAttribute(p.attr!)
    if (v !== null) params.set(p.name, p.name === 'guided' ? guidedValue(v) : v)
  }
  const { state, notices } = parseParams(params, defaultState(hostLang(el)))
  return { state, notices, steps: state.steps.length ? state.steps : undefined }
}

function sameSteps(a: string[] | undefined, b: string[] | undefined): boolean {
  return (a ?? []).join(',') === (b ?? []).join(',')
}

// ---------------------------------------------------------------------------------------------
// The element

const BaseElement: typeof HTMLElement =
  typeof HTMLElement === 'undefined' ? (class {} as typeof HTMLElement) : HTMLElement

export class AttentionPlaygroundElement extends BaseElement {
  static get observedAttributes(): string[] {
    return OBSERVED
  }

  /** The shared engine's wasm memory (null before it loads): tests use it to check that removal frees memory. */
  static memoryStats(): MemoryStats | null {
    return loadedEngine ? loadedEngine.memoryStats() : null
  }

  private shadow: ShadowRoot
  private handle: PlaygroundHandle | null = null
  private frame: HTMLElement | null = null
  private attrs: FromAttributes | null = null
  private generation = 0
  private readyResolve: (() => void) | null = null
  private readyReject: ((e: unknown) => void) | null = null
  private renders = 0
  /** Resolves once the engine is loaded and the first render is on screen. */
  readonly ready: Promise<void>

  constructor() {
    super()
    this.shadow = this.attachShadow({ mode: 'open' })
    this.ready = new Promise<void>((resolve, reject) => {
      this.readyResolve = resolve
      this.readyReject = reject
    })
    this.ready.catch(() => undefined) // the failure is shown in the element; nobody has to await it
  }

  /** The current state (URL parameter names), or null before the first render. */
  get state(): PlaygroundState | null {
    return this.handle?.getState() ?? null
  }

  /** The last successful trace, or null. */
  get trace(): Trace | null {
    return this.handle?.getTrace() ?? null
  }

  /** The engine and its threads in words, e.g. 'relaxed-simd, 1 thread: init({ threads: 1 })' (null before `ready`). */
  get backend(): string | null {
    return this.handle?.backend() ?? null
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
    this.handle.setNotices(next.notices)
    if (Object.keys(patch).length) this.handle.setState(patch)
    if (patch.lang) this.frame?.setAttribute('lang', next.state.lang)
  }

  /** view=model: the model file on show, its layer and head, and the engine's recomputation of that head. */
  get model(): ReturnType<PlaygroundHandle['model']> {
    return this.handle?.model() ?? null
  }

  /** view=model: shows one layer and head of the model file. */
  selectModelHead(layer: number, head: number): void {
    this.handle?.selectModelHead(layer, head)
  }

  /** A Python program (torch) that reproduces the numbers on screen when run. */
  pytorchCode(): string {
    if (!this.handle) throw new Error('pytorchCode: the widget has not rendered a result yet (await element.ready)')
    return this.handle.pytorchCode()
  }

  /** CSV of one step's matrix (the selected head for per-head steps), with token labels. */
  csv(step: string): string {
    if (!this.handle) throw new Error('csv: the widget has not rendered a result yet (await element.ready)')
    return this.handle.csv(step)
  }

  /** PNG of one step's panel. */
  png(step: string): Promise<Blob> {
    if (!this.handle)
      return Promise.reject(new Error('png: the widget has not rendered a result yet (await element.ready)'))
    return this.handle.png(step)
  }

  // -------------------------------------------------------------------------------------------

  private async mount(override?: PlaygroundState): Promise<void> {
    const gen = ++this.generation
    const lang = override?.lang ?? readAttributes(this).state.lang

    const frame = document.createElement('div')
    frame.className = 'apw'
    frame.setAttribute('lang', lang)
    this.frame = frame
    const loading = document.createElement('p')
    loading.className = 'apw-loading'
    loading.textContent = translator(lang)('loading')
    frame.append(loading)
    this.shadow.replaceChildren(frame)
    adoptStyles(this.shadow, WIDGET_CSS) // the shadow root's sheets go with the element

    let engine: Engine
    try {
      engine = await loadEngine()
    } catch (e) {
      if (gen !== this.generation) return
      loading.className = 'apw-error'
      loading.setAttribute('role', 'alert')
      // The URL tried and what to serve there, in the widget's language (never Emscripten's "Aborted(…)").
      loading.textContent = loadFailureText(translator(lang), e)
      this.readyReject?.(e)
      return
    }
    if (gen !== this.generation) return // removed (or remounted) while the engine loaded
    loading.remove()
    // Read now: attributes may have changed while the engine loaded.
    const attrs = readAttributes(this)
    this.attrs = attrs
    const state = override ? { ...override, ...pickFields(attrs.state) } : attrs.state
    frame.setAttribute('lang', state.lang)

    const root = document.createElement('div')
    frame.append(root)
    root.addEventListener(RENDERED_EVENT, () => this.afterRender())
    // With `steps`, the listed panels alone (the page's embed layout: no tabs, controls or tour around them).
    this.handle = mountPlayground(root, engine, state, {
      compact: true,
      steps: attrs.steps,
      embed: !!attrs.steps,
      notices: attrs.notices,
    })
    // The notices box keeps the widget's class name: hosts and tests look for .apw-notice.
    root.querySelector('.banner.notice')?.classList.add('apw-notice')
  }

  /** Runs inside the shadow root before the render event reaches the element's own listeners. */
  private afterRender(): void {
    this.renders++
    // The element carries the root's data-weights too (the first render runs before mountPlayground returns).
    const w = this.shadow.querySelector<HTMLElement>('.ap-root')?.dataset.weights
    if (w) this.dataset.weights = w
    if (this.renders === 1) this.readyResolve?.()
  }

  private teardown(): void {
    this.generation++
    this.handle?.dispose()
    this.handle = null
    this.frame = null
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

if (typeof customElements !== 'undefined' && !customElements.get('attention-playground')) {
  customElements.define('attention-playground', AttentionPlaygroundElement)
}

declare global {
  interface HTMLElementTagNameMap {
    'attention-playground': AttentionPlaygroundElement
  }
}
