// The model view: a real model's attention from a safetensors file (python/export_attention.py), opened
// by the file picker, a drop, or a URL (?src= / the widget's src). BertViz's two views — the grid of
// layers × heads as small heatmaps, and one head large with lines between tokens — and, where the file has
// a layer's Q, K and V, the pipeline on those tensors recomputed by our engine next to the file's weights,
// with the largest difference between the two.

import type { Ctx, Panel } from '../context'
import type { Engine, Tensor } from 'attention-playground'
import { h, setText, tokLabel } from '../dom'
import { Heatmap } from '../heatmap'
import { LinesPanel } from '../panels/lines'
import { LongPanel } from '../panels/long'
import { LONG_TOKENS, type LongData, type RowData } from '../compute/long-rows'
import { headOf, recompute, PIPELINE_CELLS, type Recomputed } from '../compute/attention-file'
import { viridis } from '../palette'
import { fmt, shapeOf, oneBased } from '../format'
import type { Translate } from '../i18n'
import {
  DownloadLimitError,
  MODEL_FILE_BYTES,
  isAbort,
  onFileDrop,
  readModelBytes,
  readModelFile,
  readModelUrl,
  type AttentionFile,
  type AttentionFileLayer,
  type DownloadProgress,
} from './model-file'

/** Reads a file, given the load's AbortSignal and a progress callback (downloads use both). */
type Reader = (signal: AbortSignal, onProgress: (p: DownloadProgress) => void) => Promise<AttentionFile>

const THUMB = 52
/** The long view's data source for a file's layer: rows come from the file (scores from Q·Kᵀ when it has Q and K). */
function longSource(layer: AttentionFileLayer): LongData {
  const [, n, nk] = layer.weights.shape
  const src = {
    n,
    heads: layer.heads,
    rowCalls: 0,
    trace: { tokens: layer.queryTokens },
    rows(head: number, rows: readonly number[]): RowData[] {
      return rows.map((i) => {
        const weights = layer.weights.data.slice((head * n + i) * nk, (head * n + i + 1) * nk)
        let scores = weights
        if (layer.q && layer.k) {
          const d = layer.q.shape[2]
          const qi = layer.q.data.subarray((head * n + i) * d, (head * n + i + 1) * d)
          scores = new Float32Array(nk)
          for (let j = 0; j < nk; j++) {
            const kj = layer.k.data.subarray((head * nk + j) * d, (head * nk + j + 1) * d)
            let s = 0
            for (let c = 0; c < d; c++) s += qi[c] * kj[c]
            scores[j] = s
          }
        }
        return { weights, scores }
      })
    },
  }
  return src as unknown as LongData
}

const STEPS = ['Q', 'K', 'V', 'scores', 'scaledScores', 'maskedScores', 'weights', 'output'] as const
type ModelStep = (typeof STEPS)[number]

export class ModelView implements Panel {
  readonly el: HTMLElement
  private title = h('h2')
  private help = h('p', { class: 'help' })
  private fileInput = h('input', { type: 'file', accept: '.safetensors,application/octet-stream', name: 'modelFile' })
  private fileLabelText = h('span')
  private dropText = h('span', { class: 'model-drop-text' })
  private status = h('p', { class: 'model-status', role: 'status' })
  /** A download's bytes so far (its text in `status`) and the button that cancels it. */
  private progress = h('progress', { class: 'model-progress', max: 1, hidden: true })
  private cancelBtn = h('button', { type: 'button', class: 'btn-small model-cancel', hidden: true })
  private abort: AbortController | null = null
  private sampleNote = h('p', { class: 'model-sample-note help', hidden: true })
  private error = h('p', { class: 'model-error', role: 'alert', hidden: true })
  private info = h('p', { class: 'model-info' })
  private gridTitle = h('h3')
  private grid = h('div', { class: 'model-grid' })
  private headTitle = h('h3')
  private headShape = h('span', { class: 'shape' })
  private big: Heatmap
  private bigBox = h('div', { class: 'model-big' })
  private lines = new LinesPanel()
  private long: LongPanel
  private pipeTitle = h('h3')
  private pipeNote = h('p', { class: 'help' })
  private diff = h('p', { class: 'model-diff mono' })
  private pipeGrid = h('div', { class: 'grid grid-2 model-pipeline' })
  private maps = new Map<ModelStep, { map: Heatmap; label: HTMLElement; shape: HTMLElement; box: HTMLElement }>()
  private file: AttentionFile | null = null
  private fileName = ''
  private layer = 0
  private head = 0
  private loadGen = 0
  private loadedSrc = ''
  private hl = { q: null as number | null, k: null as number | null }
  private t: Translate
  private rec: Recomputed | null = null
  private thumbs: HTMLButtonElement[] = []
  private lastCtx: Ctx
  /** A model file to open when the view is shown with no file and no src (the page's first visit). */
  sample = ''
  private sampleTried = false
  private showingSample = false

  constructor(
    private ctx: Ctx,
    private engine: Engine,
  ) {
    this.t = ctx.t
    this.lastCtx = ctx
    const hover = (i: number | null, j: number | null) => this.setHl(i, j)
    this.big = new Heatmap({ name: 'modelWeights', rowAxis: 'q', colAxis: 'k', unit: true, t: ctx.t, onHover: hover })
    for (const s of STEPS) {
      const unit = s === 'weights'
      const rowAxis = s === 'K' || s === 'V' ? 'k' : 'q'
      const colAxis = s === 'Q' || s === 'K' || s === 'V' || s === 'output' ? null : 'k'
      const map = new Heatmap({
        name: `model-${s}`,
        rowAxis,
        colAxis,
        unit,
        t: ctx.t,
        onHover: (i, j) => this.setHl(rowAxis === 'q' ? i : null, colAxis === 'k' ? j : rowAxis === 'k' ? i : null),
      })
      const label = h('h4'),
        shape = h('span', { class: 'shape' })
      const box = h(
        'div',
        { class: 'model-step', 'data-model-step': s },
        h('header', { class: 'panel-head' }, label, shape),
        map.el,
      )
      this.maps.set(s, { map, label, shape, box })
      this.pipeGrid.append(box)
    }
    this.long = new LongPanel(this.linesCtx())
    // Not the pipeline's "lines" and "long" panels: out of reach of their selectors and of the steps filter.
    for (const [el, cls] of [
      [this.long.el, 'model-long'],
      [this.lines.el, 'model-lines'],
    ] as const) {
      delete el.dataset.panel
      el.classList.add(cls)
    }
    const fileLabel = h('label', { class: 'btn-small model-open' }, this.fileLabelText, this.fileInput)
    this.el = h(
      'section',
      { class: 'panel model-view', 'data-step': 'model' },
      h('header', { class: 'panel-head' }, this.title),
      this.help,
      h('div', { class: 'model-load' }, fileLabel, this.dropText),
      this.sampleNote,
      h('div', { class: 'model-download' }, this.status, this.progress, this.cancelBtn),
      this.error,
      this.info,
      h(
        'div',
        { class: 'model-body', hidden: true },
        this.gridTitle,
        this.grid,
        h('header', { class: 'panel-head' }, this.headTitle, this.headShape),
        h('div', { class: 'grid grid-2' }, this.bigBox, this.lines.el),
        this.long.el,
        this.pipeTitle,
        this.pipeNote,
        this.diff,
        this.pipeGrid,
      ),
    )
    this.bigBox.append(this.big.el)
    this.bindFileDrop()
  }

  /** A model file comes in through the file input or by dropping it on the view; a download can be cancelled. */
  private bindFileDrop(): void {
    this.cancelBtn.addEventListener('click', () => this.abort?.abort())
    this.fileInput.addEventListener('change', () => {
      const f = this.fileInput.files?.[0]
      if (f) void this.openFile(f)
    })
    onFileDrop(this.el, (f) => void this.openFile(f))
  }

  /** The loaded file and the engine's recomputation of the shown head (tests, the widget's `model`). */
  get data(): { file: AttentionFile; name: string; layer: number; head: number; recomputed: Recomputed | null } | null {
    return (
      this.file && { file: this.file, name: this.fileName, layer: this.layer, head: this.head, recomputed: this.rec }
    )
  }

  /** Shows layer `layer`, head `head` (out-of-range values are clamped). */
  selectHead(layer: number, head: number): void {
    if (!this.file) return
    this.layer = Math.max(0, Math.min(layer, this.file.layers.length - 1))
    this.head = Math.max(0, Math.min(head, this.file.layers[this.layer].heads - 1))
    this.showHead()
  }

  /** Loads the file at `url` unless it is the one already loaded (state.src changes call this). */
  loadSrc(url: string): void {
    if (!url || url === this.loadedSrc) return
    this.loadedSrc = url
    void this.load(url, (signal, onProgress) => readModelUrl(url, signal, onProgress))
  }

  /** Opens the sample once, when the view is shown with nothing else to open. */
  private loadSample(ctx: Ctx): void {
    if (!this.sample || this.sampleTried || this.file || ctx.state.src || ctx.state.view !== 'model') return
    this.sampleTried = true
    const url = this.sample
    const name = url.slice(url.lastIndexOf('/') + 1)
    void this.load(name, (signal, onProgress) => readModelUrl(url, signal, onProgress), true)
  }

  openFile(f: File): Promise<void> {
    return this.load(f.name, () => readModelFile(f))
  }

  /** Bytes already in memory (tests, or a host page that fetched them itself). */
  openBytes(bytes: ArrayBuffer | Uint8Array, name = 'file'): Promise<void> {
    return this.load(name, async () => readModelBytes(bytes))
  }

  private async load(name: string, read: Reader, sample = false): Promise<void> {
    const gen = ++this.loadGen
    this.abort?.abort() // a newer load replaces a download still running
    const abort = (this.abort = new AbortController())
    setText(this.status, `${this.t('modelLoading')} ${name}…`)
    this.error.hidden = true
    try {
      const file = await read(abort.signal, (p) => this.showProgress(name, p))
      if (gen !== this.loadGen) return
      this.endDownload()
      this.file = file
      this.fileName = name
      this.showingSample = sample
      this.layer = 0
      this.head = 0
      setText(this.status, '')
      this.buildGrid()
      this.showHead()
    } catch (e) {
      if (gen !== this.loadGen) return
      this.endDownload()
      setText(this.status, isAbort(e) ? `${this.t('modelCancelled')} ${name}` : '')
      this.error.hidden = isAbort(e)
      if (isAbort(e)) return this.rendered()
      // The previous file, if any, stays on screen.
      const why = e instanceof Error ? e.message : String(e)
      // the limit in the page's language, then the sizes as the reader gave them
      const said = e instanceof DownloadLimitError ? `${this.t('modelDownloadLimit')} ${why}` : why
      this.error.textContent = `${this.t('modelLoadFailed')} ${name}: ${said}`
    }
    this.rendered()
  }

  /** Renders and tells the page a load ended (`detail.error`: it failed; a cancelled download is no error). */
  private rendered(): void {
    this.render(this.lastCtx)
    this.el.dispatchEvent(
      new CustomEvent('ap-model', { bubbles: true, composed: true, detail: { error: !this.error.hidden } }),
    )
  }

  /** A download's progress: the bar after every chunk, the (spoken) text when the percentage or the megabyte changes. */
  private showProgress(name: string, p: DownloadProgress): void {
    const t = this.t
    if (p.total !== null && p.got >= p.total && this.progress.hidden) return // all in one chunk: a small file
    this.progress.hidden = this.cancelBtn.hidden = false
    setText(this.cancelBtn, t('modelCancel'))
    const mb = (n: number) => (n / 1e6).toFixed(1)
    if (p.total) this.progress.value = p.got / p.total
    else this.progress.removeAttribute('value') // indeterminate: the size is not known
    const text = p.total
      ? `${t('modelDownloading')} ${name}: ${mb(p.got)} ${t('modelBytesOf')} ${mb(p.total)} MB (${Math.floor((100 * p.got) / p.total)} %)`
      : `${t('modelDownloading')} ${name}: ${mb(p.got)} MB`
    if (this.status.textContent !== text) setText(this.status, text)
  }

  private endDownload(): void {
    this.abort = null
    this.progress.hidden = this.cancelBtn.hidden = true
  }

  private linesCtx(): Ctx {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the getters below read the live fields
    const self = this
    const layer = () => self.file?.layers[self.layer]
    return {
      get state() {
        return {
          ...self.ctx.state,
          head: self.head,
          heads: layer()?.heads ?? 1,
          mode: layer()?.kind === 'cross' ? 'cross' : 'self',
        }
      },
      get t() {
        return self.t
      },
      texts: self.ctx.texts,
      get trace() {
        const l = layer()
        return l ? { weights: l.weights, tokens: l.queryTokens, sourceTokens: l.keyTokens } : null
      },
      get hl() {
        return self.hl
      },
      sel: null,
      setState: () => {},
      setHighlight: (q: number | null, k: number | null) => self.setHl(q, k),
      select: () => {},
    } as unknown as Ctx
  }

  private setHl(q: number | null, k: number | null): void {
    if (q === this.hl.q && k === this.hl.k) return
    this.hl = { q, k }
    this.big.setHighlight(q, k)
    for (const { map } of this.maps.values()) map.setHighlight(q, k)
    this.lines.highlight(this.linesCtx())
  }

  private buildGrid(): void {
    const f = this.file!
    this.thumbs = []
    const rows = f.layers.map((l) => {
      const label = h('span', { class: 'model-layer-label', text: `${oneBased(l.index)}` })
      label.title = l.name
      const cells = Array.from({ length: l.heads }, (_, hd) => {
        const c = h('canvas', { width: THUMB, height: THUMB, 'aria-hidden': 'true' })
        drawThumb(c, l, hd)
        const b = h('button', { type: 'button', class: 'model-thumb', 'data-layer': l.index, 'data-head': hd }, c)
        b.addEventListener('click', () => this.selectHead(l.index, hd))
        this.thumbs.push(b)
        return b
      })
      return h('div', { class: 'model-row', 'data-kind': l.kind }, label, ...cells)
    })
    this.grid.replaceChildren(...rows)
  }

  private showHead(): void {
    const f = this.file
    if (!f) return
    const l = f.layers[this.layer]
    const [, nq, nk] = l.weights.shape
    const isLong = Math.max(nq, nk) > LONG_TOKENS && nq === nk
    const w = l.weights.data.subarray(this.head * nq * nk, (this.head + 1) * nq * nk)
    const qLabels = l.queryTokens.map(tokLabel),
      kLabels = l.keyTokens.map(tokLabel)
    this.bigBox.hidden = isLong
    this.lines.el.hidden = isLong
    if (!isLong) this.big.setData(w, nq, nk, qLabels, kLabels)
    this.long.setData(this.linesCtx(), isLong ? longSource(l) : null)
    this.rec = null
    try {
      if (nq * nk <= PIPELINE_CELLS) this.rec = recompute(this.engine, l, this.head)
    } catch (e) {
      this.error.hidden = false
      this.error.textContent = `${this.t('modelLoadFailed')} ${l.name}: ${e instanceof Error ? e.message : String(e)}`
    }
    const r = this.rec
    this.pipeGrid.hidden = !r || isLong
    if (r && !isLong) {
      const hq = headOf(l.q!, this.head),
        hk = headOf(l.k!, this.head),
        hv = headOf(l.v!, this.head)
      const tensors: Record<ModelStep, Tensor> = {
        Q: hq,
        K: hk,
        V: hv,
        scores: r.scores,
        scaledScores: r.scaledScores,
        maskedScores: r.maskedScores,
        weights: r.weights,
        output: r.output,
      }
      for (const s of STEPS) {
        const t = tensors[s],
          { map, shape } = this.maps.get(s)!
        const rows = s === 'K' || s === 'V' ? kLabels : qLabels
        const cols =
          t.shape[1] === nk && s !== 'Q' && s !== 'K' && s !== 'V' && s !== 'output'
            ? kLabels
            : Array.from({ length: t.shape[1] }, (_, c) => String(c))
        map.setData(t.data, t.shape[0], t.shape[1], rows, cols)
        setText(shape, shapeOf(t.shape))
      }
    }
    for (const b of this.thumbs) {
      const on = Number(b.dataset.layer) === this.layer && Number(b.dataset.head) === this.head
      b.setAttribute('aria-pressed', String(on))
    }
    this.lines.render(this.linesCtx())
    this.render(this.lastCtx)
  }

  render(ctx: Ctx): void {
    this.lastCtx = ctx
    const t = (this.t = ctx.t)
    setText(this.title, t('modelTitle'))
    setText(this.help, t('modelHelp'))
    setText(this.fileLabelText, t('modelOpen'))
    setText(this.dropText, t('modelDrop'))
    this.fileInput.setAttribute('aria-label', t('modelOpen'))
    this.big.setLang(t)
    for (const { map } of this.maps.values()) map.setLang(t)
    this.loadSrc(ctx.state.src)
    this.loadSample(ctx)
    this.sampleNote.hidden = !this.showingSample
    setText(this.sampleNote, t('modelSampleNote'))
    const f = this.file
    const body = this.el.querySelector<HTMLElement>('.model-body')!
    body.hidden = !f
    if (!f) {
      setText(this.info, t('modelNone'))
      return
    }
    const l = f.layers[this.layer]
    const heads = new Set(f.layers.map((x) => x.heads))
    setText(
      this.info,
      `${this.fileName} · ${f.layers.length} ${t('modelLayers')} · ${[...heads].join('/')} ${t('modelHeads')} · ` +
        `${f.tokens.length} ${t('modelTokens')}${f.sourceTokens ? ` · ${f.sourceTokens.length} ${t('modelSourceTokens')}` : ''}`,
    )
    setText(this.gridTitle, t('modelGrid'))
    for (const b of this.thumbs) {
      const li = Number(b.dataset.layer),
        hd = Number(b.dataset.head),
        lay = f.layers[li]
      b.setAttribute(
        'aria-label',
        `${t('modelLayer')} ${oneBased(li)} (${lay.kind === 'cross' ? t('modelCross') : t('modelSelf')}) · ${t('headN')} ${oneBased(hd)}`,
      )
      b.title = lay.headNames[hd]
    }
    const kind = l.kind === 'cross' ? t('modelCross') : t('modelSelf')
    setText(
      this.headTitle,
      `${t('modelLayer')} ${oneBased(l.index)} · ${t('headN')} ${oneBased(this.head)} · ${kind} — ${l.name}`,
    )
    setText(
      this.headShape,
      `${shapeOf([l.queryTokens.length, l.keyTokens.length])} · ${t('modelQueries')} × ${t('modelKeys')}`,
    )
    setText(this.pipeTitle, t('modelPipeline'))
    const r = this.rec
    setText(this.pipeNote, r ? t('modelPipelineHelp') : l.q ? t('modelPipelineTooBig') : t('modelNoQkv'))
    this.diff.hidden = !r
    if (r) {
      setText(this.diff, `${t('modelDiff')} ${r.maxDiff.toExponential(2)}`)
      this.diff.dataset.maxDiff = String(r.maxDiff)
    }
    const names: Record<ModelStep, string> = {
      Q: 'Q',
      K: 'K',
      V: 'V',
      scores: t('modelScores'),
      scaledScores: `${t('modelScaled')} ${fmt(l.scale ?? 1, 4)}`,
      maskedScores: t('modelMasked'),
      weights: t('modelEngineWeights'),
      output: t('modelOutput'),
    }
    for (const s of STEPS) setText(this.maps.get(s)!.label, names[s])
    this.maps.get('maskedScores')!.box.hidden = !l.mask
    this.lines.render(this.linesCtx())
    this.long.render(this.linesCtx())
  }

  dispose(): void {
    this.loadGen++
    this.abort?.abort()
    this.big.dispose()
    for (const { map } of this.maps.values()) map.dispose()
    this.long.dispose?.()
  }
}

/** A head's weights as a THUMB×THUMB image: each pixel the largest weight of the cells it covers. */
function drawThumb(c: HTMLCanvasElement, l: AttentionFileLayer, head: number): void {
  const g = c.getContext('2d')
  if (!g) return
  const [, nq, nk] = l.weights.shape
  const w = l.weights.data.subarray(head * nq * nk, (head + 1) * nq * nk)
  let max = 0
  for (let i = 0; i < w.length; i++) max = Math.max(max, w[i])
  const img = g.createImageData(THUMB, THUMB)
  for (let y = 0; y < THUMB; y++) {
    const i0 = Math.floor((y * nq) / THUMB),
      i1 = Math.max(i0 + 1, Math.floor(((y + 1) * nq) / THUMB))
    for (let x = 0; x < THUMB; x++) {
      const j0 = Math.floor((x * nk) / THUMB),
        j1 = Math.max(j0 + 1, Math.floor(((x + 1) * nk) / THUMB))
      let v = 0
      for (let i = i0; i < i1; i++) for (let j = j0; j < j1; j++) v = Math.max(v, w[i * nk + j])
      const [r, gg, b] = viridis(max > 0 ? v / max : 0)
      const k = (y * THUMB + x) * 4
      img.data[k] = r
      img.data[k + 1] = gg
      img.data[k + 2] = b
      img.data[k + 3] = 255
    }
  }
  g.putImageData(img, 0, 0)
}

export { MODEL_FILE_BYTES }

/** The model view's own rules (appended to the playground's sheet). */
export const MODEL_STYLES = `
.model-load { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 12px; padding: 10px; border: 2px dashed var(--line); border-radius: var(--radius); }
.model-view.dropping .model-load { border-color: var(--accent); background: var(--accent-soft); }
.model-open { position: relative; cursor: pointer; }
.model-open input { position: absolute; inset: 0; opacity: 0; cursor: pointer; width: 100%; }
.model-open:focus-within { outline: 2px solid var(--accent); outline-offset: 2px; }
.model-drop-text, .model-info, .model-status { color: var(--muted); font-size: 13px; }
.model-grid { display: flex; flex-direction: column; gap: 4px; overflow-x: auto; padding-bottom: 6px; }
.model-row { display: flex; align-items: center; gap: 4px; }
.model-row[data-kind="cross"] .model-layer-label { color: var(--warm); }
.model-layer-label { min-width: 2.2em; text-align: right; font: 12px ui-monospace, "DejaVu Sans Mono", monospace; color: var(--muted); }
.model-thumb { padding: 1px; border: 2px solid transparent; border-radius: 4px; background: none; line-height: 0; }
.model-thumb[aria-pressed="true"] { border-color: var(--warm); }
.model-thumb canvas { width: 52px; height: 52px; image-rendering: pixelated; }
.model-diff { font-weight: 600; }
.model-download { display: flex; flex-wrap: wrap; align-items: center; gap: 6px 12px; }
.model-download .model-status { margin: 6px 0; }
.model-progress { width: min(240px, 100%); height: 10px; }
.model-sample-note { border-left: 3px solid var(--accent); padding: 4px 10px; }
/* The page's error banner look, under its own class: the pipeline's .banner.error stays unique. */
.model-error { border-radius: var(--radius); padding: 10px 14px; background: #fdecea; border: 1px solid #f5c2bd; color: #7a1a12; }
.model-view h2 { margin: 0 0 4px; font-size: 18px; }
.model-view h3 { margin: 12px 0 6px; font-size: 15px; }
.model-step h4 { margin: 4px 0; font-size: 13px; }
`
