// The "Write a poem" view (issue 37): a small GPT writes a five-character poem one character at a time after the
// reader's first line, and for each character shows how it was chosen — the bars before and after temperature /
// top-k / top-p and the one drawn, the KV cache growing, each head's weights on the poem's lines (labelled only
// from its measured scores), the residual stream and the logit lens. It opens on the sample model
// (compute/poems-sample.ts), or a nanoGPT checkpoint the reader opens (file, drop, `src`), or the Train tab's
// current weights (`showLanguageModel`). Every number is the package's (compute/generate.ts); `data-poem` on the
// poem's element holds the text written so far.

import type { Ctx, Panel } from '../context'
import type { Engine, LanguageModel } from 'attention-playground'
import { afterPaint, h, setText } from '../dom'
import { errorMessage, fmt, grouped } from '../format'
import { isTouchScreen, Labels, translate, type T } from '../i18n'
import { GENERATE, POEM_PRESETS, type GenerateKey } from '../i18n/generate'
import {
  POEM_DEFAULTS,
  fileMetadata,
  HeadMeter,
  missingCharacters,
  openLanguageModel,
  poemText,
  readablePoems,
  tracePoem,
  writePoem,
  type HeadMeasure,
  type Poem,
  type PoemSettings,
} from '../compute/generate'
import { StepPlayer } from './player'
import { DownloadLimitError, isAbort, onFileDrop, readFileBytes, readUrlBytes } from './model-file'
import { fetchPoems, poemsSample, takeSampleModel } from '../compute/poems-sample'
import { charLabel } from './generate-draw'
import { createControls, createOutputs, drawStep, layout } from './generate-layout'

type Tr = T<GenerateKey>
/** Where the model on show came from. */
type Source = 'sample' | 'file' | 'url' | 'trained'
/** Reads a model file's bytes, given the load's AbortSignal. */
type Reader = (signal: AbortSignal) => Promise<Uint8Array>

/** The event the view dispatches when a poem is drawn (detail: { text }), bubbling out of the widget's shadow root. */
export const POEM_EVENT = 'ap-poem'

/** What the view shows, for tests and the page's handle: the model's shape, the poem and its step. */
export interface GenerateData {
  name: string
  source: Source
  poem: Poem
  /** Characters written so far (1 … steps.length). */
  written: number
  /** The residual stream's position. */
  position: number
  heads: HeadMeasure | null
}

export class GenerateView implements Panel {
  readonly el: HTMLElement
  private labels = new Labels<GenerateKey>()
  private tr: Tr = translate(GENERATE, 'en')
  private ctx: Ctx
  private ui = createControls(this.labels)
  private out = createOutputs(this.labels)
  private model: LanguageModel | null = null
  private name = ''
  private source: Source = 'sample'
  private settings: PoemSettings = { ...POEM_DEFAULTS, prompt: POEM_PRESETS.genPresetJingyesi }
  private poem: Poem | null = null
  /** The step shown, 0-based: characters written = k + 1. */
  private k = 0
  /** The residual stream's position chosen by a click (null: the query of the step shown). */
  private chosen: number | null = null
  private heads: HeadMeasure | null = null
  private headsNote = ''
  /** The model file's `__metadata__` (its val_loss and steps, when it has them). */
  private meta: Record<string, string> = {}
  private loadGen = 0
  private abort: AbortController | null = null
  private started = false
  private loadedSrc = ''
  private firstDrawn = false
  private player = new StepPlayer(
    () => (this.poem && this.poem.steps.length ? { at: this.k, last: this.poem.steps.length - 1 } : null),
    (k) => this.go(k),
    () => this.draw(),
    450,
  )

  constructor(
    private engine: Engine,
    ctx: Ctx,
  ) {
    this.ctx = ctx
    this.el = layout(this.labels, this.ui, this.out)
    this.bind()
  }

  private bind(): void {
    const ui = this.ui
    ui.prompt.value = this.settings.prompt
    ui.prompt.addEventListener('input', (ev) => {
      if (!(ev as InputEvent).isComposing) this.setSettings({ prompt: ui.prompt.value })
    })
    ui.prompt.addEventListener('compositionend', () => this.setSettings({ prompt: ui.prompt.value }))
    for (const [key, text] of Object.entries(POEM_PRESETS)) {
      const b = h(
        'button',
        { type: 'button', class: 'btn-small', 'data-preset': text },
        h('span', { class: 'gen-preset-line', text }),
        this.labels.bind(h('span', { class: 'gen-preset-source' }), key as GenerateKey),
      )
      b.addEventListener('click', () => {
        ui.prompt.value = text
        this.setSettings({ prompt: text })
      })
      ui.presets.append(b)
    }
    const num = (el: HTMLInputElement, field: 'temperature' | 'topK' | 'topP' | 'seed') =>
      el.addEventListener('input', () => {
        const v = Number(el.value)
        if (el.value.trim() !== '' && Number.isFinite(v)) this.setSettings({ [field]: v })
      })
    num(ui.temperature, 'temperature')
    num(ui.topK, 'topK')
    num(ui.topP, 'topP')
    num(ui.seed, 'seed')
    ui.again.addEventListener('click', () => {
      ui.seed.value = String(this.settings.seed + 1)
      this.setSettings({ seed: this.settings.seed + 1 })
    })
    this.out.back.addEventListener('click', () => this.stepTo(this.k - 1))
    this.out.next.addEventListener('click', () => this.stepTo(this.k + 1))
    this.out.play.addEventListener('click', () => this.player.toggle())
    this.bindFiles()
  }

  private bindFiles(): void {
    const { file, sampleBtn } = this.ui
    file.addEventListener('change', () => {
      const f = file.files?.[0]
      if (f) void this.load(f.name, 'file', () => readFileBytes(f))
    })
    sampleBtn.addEventListener('click', () => this.openSample())
    onFileDrop(this.el, (f) => void this.load(f.name, 'file', () => readFileBytes(f)))
    this.out.kvLink.addEventListener('click', (ev) => {
      if (ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return
      ev.preventDefault()
      this.ctx.setState({ view: 'decode' })
      requestAnimationFrame(() =>
        (this.el.getRootNode() as ParentNode)
          .querySelector('[data-step="kv-cache"]')
          ?.scrollIntoView({ block: 'start' }),
      )
    })
  }

  /** What is on show (null before the first poem). */
  get data(): GenerateData | null {
    const p = this.poem
    if (!p || !p.steps.length) return null
    return {
      name: this.name,
      source: this.source,
      poem: p,
      written: this.k + 1,
      position: this.position(),
      heads: this.heads,
    }
  }

  /**
   * Shows a model from safetensors bytes (the Train tab's "look inside" hands `trainer.exportSafetensors()` here):
   * resolves once it writes, or once its error is shown.
   */
  showLanguageModel(bytes: Uint8Array, name = 'model.safetensors', source: Source = 'trained'): Promise<void> {
    this.started = true
    return this.load(name, source, async () => bytes)
  }

  /** Opens a file's bytes as if picked (tests, a host page). */
  openBytes(bytes: Uint8Array, name = 'model.safetensors'): Promise<void> {
    return this.showLanguageModel(bytes, name, 'file')
  }

  render(ctx: Ctx): void {
    this.ctx = ctx
    this.tr = translate(GENERATE, ctx.state.lang, isTouchScreen())
    this.labels.apply(this.tr)
    this.out.kvLink.href = `?lang=${ctx.state.lang}&view=decode`
    const src = ctx.state.src
    if (src && src !== this.loadedSrc) {
      this.loadedSrc = src
      this.started = true
      void this.load(src.slice(src.lastIndexOf('/') + 1) || src, 'url', (signal) => readUrlBytes(src, signal))
    } else if (!this.started) this.openSample()
    this.draw()
  }

  private openSample(): void {
    this.started = true
    const s = poemsSample()
    if (!s) {
      this.showError(this.tr('genNoModel'))
      return
    }
    const early = takeSampleModel(s.model)
    void this.load(s.model.slice(s.model.lastIndexOf('/') + 1), 'sample', (signal) =>
      early ? early.catch(() => readUrlBytes(s.model, signal)) : readUrlBytes(s.model, signal),
    )
  }

  /** Reads and opens a model; a newer load replaces one still running; a failure keeps the model on show. */
  private async load(name: string, source: Source, read: Reader): Promise<void> {
    const gen = ++this.loadGen
    this.abort?.abort()
    const abort = (this.abort = new AbortController())
    this.player.stop()
    setText(this.ui.status, source === 'sample' ? this.tr('genLoadingSample') : this.tr('genLoading', { name }))
    this.ui.error.hidden = true
    try {
      const bytes = await read(abort.signal)
      if (gen !== this.loadGen) return
      const model = openLanguageModel(this.engine, bytes)
      this.model?.dispose()
      this.model = model
      this.name = name
      this.source = source
      this.meta = fileMetadata(bytes)
      this.heads = null
      this.headsNote = ''
      setText(this.ui.status, '')
      this.write(true)
      this.measure(gen)
    } catch (e) {
      if (gen !== this.loadGen) return
      setText(this.ui.status, '')
      if (isAbort(e)) return
      const why = errorMessage(e)
      const said = e instanceof DownloadLimitError ? `${this.tr('genDownloadLimit')} ${why}` : why
      this.showError(`${this.tr('genLoadFailed', { name })} ${said}`)
    } finally {
      if (gen === this.loadGen) this.abort = null
      this.draw()
    }
  }

  private showError(text: string): void {
    this.ui.error.hidden = false
    this.ui.error.textContent = text
  }

  /**
   * The head scores of the model on show over the validation poems, after the poem is drawn: a chunk of poems per
   * task (compute/generate.ts HeadMeter), so the page stays responsive; a newer model stops it.
   */
  private measure(gen: number): void {
    const s = poemsSample()
    const model = this.model
    if (!s || !model) return
    const live = () => gen === this.loadGen && model === this.model
    const fail = (e: unknown) => {
      if (!live()) return
      this.headsNote = this.tr('genScoresUnavailable', { why: errorMessage(e) })
      this.draw()
    }
    this.headsNote = this.tr('genScoresMeasuring', { done: 0, n: '…' })
    fetchPoems(s.validation).then((text) => {
      if (!live()) return
      const poems = readablePoems(model, text)
      if (!poems.length) return fail(new Error(this.tr('genScoresNoPoems')))
      const meter = new HeadMeter(model, poems)
      const tick = () => {
        if (!live()) return
        try {
          meter.step()
        } catch (e) {
          return fail(e)
        }
        if (meter.done) this.heads = meter.result()
        else {
          this.headsNote = this.tr('genScoresMeasuring', { done: meter.result()!.poems, n: poems.length })
          setTimeout(tick, 0)
        }
        if (meter.done) this.draw()
        else setText(this.out.scores, this.headsNote)
      }
      afterPaint(tick) // the first chunk once the poem is on screen
    }, fail)
  }

  private setSettings(patch: Partial<PoemSettings>): void {
    this.settings = { ...this.settings, ...patch }
    this.write(true)
    this.draw()
  }

  /** Writes the poem for the current settings; `toEnd`: shows it whole (the last step). */
  private write(toEnd: boolean): void {
    const m = this.model
    this.ui.promptError.hidden = true
    if (!m) return
    const s = this.settings
    const missing = missingCharacters(m, s.prompt)
    const bad = !s.prompt
      ? this.tr('genEmpty')
      : missing.length
        ? this.tr('genMissing', { chars: missing.join(' '), vocab: m.vocab.length })
        : ''
    if (bad) {
      this.poem = null
      this.ui.promptError.hidden = false
      this.ui.promptError.textContent = bad
      return
    }
    try {
      this.poem = writePoem(m, s)
      this.chosen = null
      if (toEnd) this.k = Math.max(0, this.poem.steps.length - 1)
    } catch (e) {
      this.poem = null
      this.ui.promptError.hidden = false
      this.ui.promptError.textContent = `${this.tr('genFailed')} ${errorMessage(e)}`
    }
  }

  private stepTo(k: number): void {
    this.player.stop()
    this.go(k)
  }

  private go(k: number): void {
    if (!this.poem) return
    this.k = Math.max(0, Math.min(this.poem.steps.length - 1, k))
    this.chosen = null
    this.draw()
  }

  /** The residual stream's position: the clicked character, else the query of the step shown. */
  private position(): number {
    const st = this.poem?.steps[this.k]
    return this.chosen ?? (st ? st.position - 1 : 0)
  }

  private draw(): void {
    const t = this.tr
    const m = this.model
    this.drawModelInfo(t)
    const p = this.poem
    const st = p?.steps[this.k]
    this.out.body.hidden = !m || !p || !st
    this.drawControls(t)
    if (!m || !p || !st) return
    drawStep(this.out, p, this.k, this.position(), m, this.heads, this.headsNote, t, (i) => {
      this.chosen = i
      this.draw()
    })
    if (!this.firstDrawn) {
      this.firstDrawn = true
      performance.mark('ap-first-poem')
      // the frame that shows it painted (bench/page_bench.mjs: the goal's measure), before the work queued after it
      afterPaint(() => performance.mark('ap-first-poem-painted'))
    }
    if (!p.trace) this.traceSoon(p)
    this.el.dispatchEvent(
      new CustomEvent(POEM_EVENT, { bubbles: true, composed: true, detail: { text: poemText(p, this.k + 1) } }),
    )
  }

  /** The poem's residual stream, once the poem is on screen (the first poem comes sooner). */
  private traceSoon(p: Poem): void {
    afterPaint(() => {
      const m = this.model
      if (p !== this.poem || !m || p.trace) return
      try {
        tracePoem(m, p)
      } catch (e) {
        return this.showError(`${this.tr('genFailed')} ${errorMessage(e)}`)
      }
      this.draw()
    })
  }

  private drawModelInfo(t: Tr): void {
    const m = this.model
    const { info, meta, note } = this.ui
    info.hidden = meta.hidden = note.hidden = !m
    this.ui.sampleBtn.hidden = !m || this.source === 'sample' || !poemsSample()
    if (!m) return
    const c = m.config
    setText(
      info,
      t('genModelInfo', {
        name: this.name,
        layers: c.layers,
        heads: c.heads,
        d: c.dModel,
        vocab: grouped(c.vocabSize),
        context: c.context,
        params: grouped(c.parameters),
      }),
    )
    const loss = this.meta.val_loss,
      steps = this.meta.steps
    meta.hidden = !loss || !steps
    if (loss && steps) setText(meta, t('genModelMeta', { loss, steps }))
    note.hidden = this.source !== 'sample' && this.source !== 'trained'
    setText(note, t(this.source === 'trained' ? 'genTrainedNote' : 'genSampleNote'))
  }

  private drawControls(t: Tr): void {
    const { back, next, play, counter, reason } = this.out
    const ui = this.ui
    const s = this.settings
    if (ui.prompt.value !== s.prompt && document.activeElement !== ui.prompt) ui.prompt.value = s.prompt
    setText(ui.temperatureOut, fmt(s.temperature, 2))
    setText(ui.topPOut, fmt(s.topP, 2))
    if (this.model) ui.topK.max = String(this.model.config.vocabSize)
    const p = this.poem
    const n = p?.steps.length ?? 0
    setText(back, t('genBack'))
    setText(next, t('genNext'))
    setText(play, this.player.playing ? t('genPause') : t('genPlay'))
    play.setAttribute('aria-pressed', String(this.player.playing))
    back.disabled = !p || this.k <= 0
    next.disabled = !p || this.k >= n - 1
    play.disabled = !p || n < 2
    const st = p?.steps[this.k]
    setText(
      counter,
      st
        ? t('genCounter', { k: this.k + 1, total: n, char: st.token === '\n' ? t('genEnd') : charLabel(st.token) })
        : '',
    )
    if (p) {
      const key = p.reason === 'stop' ? 'genReasonStop' : p.reason === 'context' ? 'genReasonContext' : 'genReasonMax'
      setText(reason, this.k === n - 1 ? t(key, { total: n, context: this.model?.config.context ?? 0 }) : '')
    }
  }

  dispose(): void {
    this.loadGen++
    this.abort?.abort()
    this.player.stop()
    this.model?.dispose()
    this.model = null
  }
}
