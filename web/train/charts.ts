// The Train panel's three charts, drawn on canvases: loss and accuracy curves, the watched sentence's
// attention, and the 2-D PCA of the embeddings. Labels go in through fillText (never HTML).

import { chartFrame, type ChartFrame } from '../chart-frame'
import { viridis } from '../palette'
import type { ReadyInfo, Snapshot } from './protocol'
import type { T } from '../i18n/core'
import type { TrainKey } from '../i18n/train'

export type TrainTranslate = T<TrainKey>

export interface HistoryPoint {
  steps: number
  loss: number
  trainAcc: number
  testAcc: number
  /** The snapshot's gradient norms, in its gradNorms order. */
  grads: number[]
}

export const pct = (x: number | undefined) => (x === undefined || Number.isNaN(x) ? '–' : `${(x * 100).toFixed(1)} %`)
export const num = (x: number | undefined) => (x === undefined || Number.isNaN(x) ? '–' : x.toFixed(3))

/** The page's viridis (palette.ts) as a CSS colour. */
function viridisCss(t: number): string {
  const [r, g, b] = viridis(t).map(Math.round)
  return `rgb(${r},${g},${b})`
}

/** At most `max` points: consecutive points averaged in equal buckets (the last step of each kept). */
export function bucketMeans(history: readonly HistoryPoint[], max: number): readonly HistoryPoint[] {
  if (history.length <= max) return history
  const size = Math.ceil(history.length / max)
  const out: HistoryPoint[] = []
  for (let i = 0; i < history.length; i += size) {
    const b = history.slice(i, i + size)
    const mean = (f: (p: HistoryPoint) => number) => {
      const v = b.map(f).filter(Number.isFinite)
      return v.length ? v.reduce((a, x) => a + x, 0) / v.length : NaN
    }
    out.push({
      steps: b[b.length - 1].steps,
      loss: mean((p) => p.loss),
      trainAcc: mean((p) => p.trainAcc),
      testAcc: mean((p) => p.testAcc),
      grads: b[b.length - 1].grads.map((_, k) => mean((p) => p.grads[k] ?? NaN)),
    })
  }
  return out
}

/** A step marked on the loss curve (induction: where the induction score rose). */
export interface CurveMark {
  step: number
  label: TrainKey
}

/** A 440 × 190 chart cleared, with its plot area framed; insets [top, right, bottom, left]. */
export function framed(c: HTMLCanvasElement, insets: [number, number, number, number]) {
  const g = c.getContext('2d')!
  const f = chartFrame(440, 190, insets)
  g.clearRect(0, 0, f.W, f.H)
  g.font = '11px system-ui, sans-serif'
  g.strokeStyle = '#ccc'
  g.strokeRect(f.L, f.T, f.W - f.L - f.R, f.H - f.T - f.B)
  return { g, ...f }
}

export function drawCurves(
  curves: HTMLCanvasElement,
  history: readonly HistoryPoint[],
  t: TrainTranslate,
  mark?: CurveMark,
): void {
  // The top margin holds the mark's label, above the plot, where no curve runs.
  const { g, W, H, L, R, T, B } = framed(curves, [24, 36, 34, 36])
  if (history.length < 1) return
  // Thousands of steps: one point per bucket (their mean), so the loss reads as a curve, not as noise.
  history = bucketMeans(history, 240)
  const maxStep = Math.max(1, history[history.length - 1].steps)
  const maxLoss = Math.max(1e-6, ...history.map((p) => p.loss).filter(Number.isFinite))
  const x = (s: number) => L + ((W - L - R) * s) / maxStep
  const yl = (v: number) => T + (H - T - B) * (1 - v / maxLoss)
  const ya = (v: number) => T + (H - T - B) * (1 - v)
  const line = (color: string, y: (p: HistoryPoint) => number, dash: number[] = []) =>
    polyline(
      g,
      history.flatMap((p): Array<[number, number]> => (Number.isFinite(y(p)) ? [[x(p.steps), y(p)]] : [])),
      color,
      dash,
    )
  // blue / orange / dark: distinguishable with common colour-vision deficiencies, plus dash styles
  line('#1f77b4', (p) => yl(p.loss))
  line('#ff7f0e', (p) => ya(p.trainAcc), [4, 3])
  line('#333', (p) => ya(p.testAcc), [1, 2])
  lossAxes(g, { W, H, L, R, T, B }, maxLoss.toFixed(2), maxStep)
  drawLegend(g, t, L, H)
  if (mark) {
    g.strokeStyle = '#d62728'
    g.setLineDash([3, 3])
    g.beginPath()
    g.moveTo(x(mark.step), T)
    g.lineTo(x(mark.step), H - B)
    g.stroke()
    g.setLineDash([])
    g.fillStyle = '#d62728'
    g.textAlign = x(mark.step) > W / 2 ? 'right' : 'left'
    g.fillText(`${t(mark.label)} (${mark.step})`, x(mark.step) + (x(mark.step) > W / 2 ? -3 : 3), T - 8)
  }
  const last = history[history.length - 1]
  curves.setAttribute(
    'aria-label',
    `${t('curves')}: ${t('trainLoss')} ${num(last.loss)}, ${t('testAcc')} ${pct(last.testAcc)}` +
      (mark ? `, ${t(mark.label)} ${mark.step}` : ''),
  )
}

/** A line through `pts` in `color` and `dash`, 1.5 px (a chart's curve). */
export function polyline(
  g: CanvasRenderingContext2D,
  pts: Array<[number, number]>,
  color: string,
  dash: number[] = [],
) {
  g.strokeStyle = color
  g.setLineDash(dash)
  g.lineWidth = 1.5
  g.beginPath()
  pts.forEach(([x, y], i) => (i ? g.lineTo(x, y) : g.moveTo(x, y)))
  g.stroke()
  g.setLineDash([])
}

/** The loss chart's axis labels: the loss from 0 to `top` on the left, 0–100 % on the right, the last step. */
export function lossAxes(g: CanvasRenderingContext2D, f: ChartFrame, top: string, maxStep: number): void {
  const { W, H, L, R, T, B } = f
  g.fillStyle = '#333'
  g.textAlign = 'right'
  g.fillText(top, L - 3, T + 9)
  g.fillText('0', L - 3, H - B)
  g.textAlign = 'left'
  g.fillText('100%', W - R + 3, T + 9)
  g.fillText('0%', W - R + 3, H - B)
  g.textAlign = 'center'
  g.fillText(String(maxStep), W - R, H - B + 12)
}

/** Line styles of the three curves, drawn under the chart. */
function drawLegend(g: CanvasRenderingContext2D, t: TrainTranslate, L: number, H: number): void {
  legend(
    g,
    [
      ['#1f77b4', t('trainLoss'), []],
      ['#ff7f0e', t('trainAcc'), [4, 3]],
      ['#333', t('testAcc'), [1, 2]],
    ],
    L,
    H,
  )
}

/** A legend under a chart: a short line in each colour and dash, then its label, left to right from x = L. */
export function legend(g: CanvasRenderingContext2D, items: Array<[string, string, number[]]>, L: number, H: number) {
  let lx = L
  g.textAlign = 'left'
  for (const [c, label, d] of items) {
    g.strokeStyle = c
    g.setLineDash(d)
    g.beginPath()
    g.moveTo(lx, H - 8)
    g.lineTo(lx + 16, H - 8)
    g.stroke()
    g.setLineDash([])
    g.fillText(label, lx + 20, H - 4)
    lx += 24 + g.measureText(label).width + 8
  }
}

const GRAD_COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#9467bd', '#555']

/** 10^k as an axis reads it: 1000, 10, 1, 0.1, 0.001, then 1e-4. */
export function decade(k: number): string {
  if (k >= 0 && k <= 4) return String(10 ** k)
  if (k < 0 && k >= -3) return (10 ** k).toFixed(-k)
  return `1e${k}`
}

/** ‖dL/dW‖ per snapshot for each matrix of `names` (the last snapshot's), on a log scale, with a legend. */
export function drawGradNorms(
  c: HTMLCanvasElement,
  history: readonly HistoryPoint[],
  names: Snapshot['gradNorms'],
  t: TrainTranslate,
): void {
  const { g, W, H, L, R, T, B } = framed(c, [10, 12, 34, 44])
  const pts = history.filter((p) => p.grads.length === names.length && names.length > 0)
  if (!pts.length) return
  const all = pts.flatMap((p) => p.grads).filter((v) => v > 0 && Number.isFinite(v))
  // Whole decades: the axis reads 0.01, 0.1, 1 (not 1e-0.9).
  const lo = Math.floor(Math.log10(Math.min(...all, 1))),
    hi = Math.max(lo + 1, Math.ceil(Math.log10(Math.max(...all, 1e-6))))
  const span = hi - lo
  const maxStep = Math.max(1, pts[pts.length - 1].steps)
  const x = (s: number) => L + ((W - L - R) * s) / maxStep
  const y = (v: number) => T + (H - T - B) * (1 - (Math.log10(Math.max(v, 1e-12)) - lo) / span)
  g.fillStyle = '#333'
  g.textAlign = 'right'
  g.textBaseline = 'middle'
  const every = Math.ceil(span / 5)
  for (let k = lo; k <= hi; k += every) {
    const yy = y(10 ** k)
    g.fillText(decade(k), L - 3, yy)
    g.strokeStyle = '#eee'
    g.lineWidth = 1
    g.beginPath()
    g.moveTo(L, yy)
    g.lineTo(W - R, yy)
    g.stroke()
  }
  g.textBaseline = 'alphabetic'
  g.textAlign = 'left'
  names.forEach((n, k) => {
    g.strokeStyle = GRAD_COLORS[k % GRAD_COLORS.length]
    g.lineWidth = 1.5
    g.beginPath()
    pts.forEach((p, i) => (i ? g.lineTo(x(p.steps), y(p.grads[k])) : g.moveTo(x(p.steps), y(p.grads[k]))))
    g.stroke()
    g.fillStyle = g.strokeStyle
    const label = n.name.replace(/^layers\.\d+\./, '')
    g.fillText(label, L + 4 + k * 70, H - 6)
  })
  const last = pts[pts.length - 1]
  c.setAttribute(
    'aria-label',
    `${t('gradNorms')}: ${names.map((n, k) => `${n.name} ${last.grads[k].toPrecision(3)}`).join(', ')}`,
  )
}

export function drawAttention(attn: HTMLCanvasElement, a: Snapshot['attention'] | undefined, t: TrainTranslate): void {
  const g = attn.getContext('2d')!
  const S = 340
  g.clearRect(0, 0, S, S)
  if (!a) return
  const n = a.tokens.length
  const pad = 70
  const cell = Math.max(4, Math.floor((S - pad - 4) / Math.max(1, n)))
  g.font = `${Math.min(12, Math.max(8, cell - 6))}px system-ui, "Noto Sans CJK SC", sans-serif`
  g.textBaseline = 'middle'
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      g.fillStyle = viridisCss(a.weights[i * n + j])
      g.fillRect(pad + j * cell, pad + i * cell, cell - 1, cell - 1)
    }
    g.fillStyle = '#222'
    g.textAlign = 'right'
    g.fillText(a.tokens[i], pad - 4, pad + i * cell + cell / 2, pad - 6)
    g.save()
    g.translate(pad + i * cell + cell / 2, pad - 4)
    g.rotate(-Math.PI / 3)
    g.textAlign = 'left'
    g.fillText(a.tokens[i], 0, 0, pad)
    g.restore()
  }
  // the row of "it", where the lesson looks
  const it = a.tokens.indexOf('it')
  if (it >= 0) {
    g.strokeStyle = '#d62728'
    g.lineWidth = 2
    g.strokeRect(pad - 1, pad + it * cell - 1, n * cell + 1, cell + 1)
    let best = 0
    for (let j = 1; j < n; j++) if (a.weights[it * n + j] > a.weights[it * n + best]) best = j
    attn.setAttribute('aria-label', `${t('attention')}: it → ${a.tokens[best]} (${pct(a.weights[it * n + best])})`)
  } else {
    attn.setAttribute('aria-label', t('attention'))
  }
}

export function drawPca(
  pcaCanvas: HTMLCanvasElement,
  snap: Snapshot | null,
  info: ReadyInfo | null,
  t: TrainTranslate,
): void {
  const g = pcaCanvas.getContext('2d')!
  const S = 340
  g.clearRect(0, 0, S, S)
  if (!snap || !info) return
  const vocab = info.vocab
  const p = snap.pca
  const n = p.length / 2
  let mx = 1e-9
  for (let i = 0; i < p.length; i++) mx = Math.max(mx, Math.abs(p[i]))
  const sc = (S / 2 - 30) / mx
  g.font = '10px system-ui, "Noto Sans CJK SC", sans-serif'
  g.textAlign = 'left'
  g.textBaseline = 'middle'
  const watched = new Set(snap.attention?.tokens ?? [])
  // Points for every word; labels where they fit: the watched sentence's words first, then the rest
  // wherever they do not overlap a label already placed (a full vocabulary would be an unreadable pile).
  const order = Array.from({ length: n }, (_, i) => i).sort(
    (a, b) => Number(watched.has(vocab[b])) - Number(watched.has(vocab[a])),
  )
  const placed: [number, number, number, number][] = []
  for (const i of order) {
    const x = S / 2 + p[2 * i] * sc
    const y = S / 2 - p[2 * i + 1] * sc
    const hot = watched.has(vocab[i])
    g.fillStyle = hot ? '#d62728' : '#1f77b4'
    g.beginPath()
    g.arc(x, y, hot ? 3.5 : 2.5, 0, 2 * Math.PI)
    g.fill()
    const w = g.measureText(vocab[i]).width
    const box: [number, number, number, number] = [x + 4, y - 6, x + 4 + w, y + 6]
    if (placed.some((b) => box[0] < b[2] && b[0] < box[2] && box[1] < b[3] && b[1] < box[3])) continue
    placed.push(box)
    g.fillStyle = hot ? '#111' : '#555'
    g.fillText(vocab[i], x + 4, y)
  }
  pcaCanvas.setAttribute('aria-label', t('pca'))
}
