// The Train panel: play / pause / step a small attention model training in a Web Worker, with its
// learning rate, loss and accuracy curves, the attention map of a chosen sentence and a 2-D PCA of the
// embeddings, all redrawn as it learns. Every text goes in through textContent (or canvas fillText).
//
//   import { mountTrainPanel } from './train/panel'
//   const panel = mountTrainPanel(container, { lang: 'en' })   // later: panel.setLang('zh'); panel.dispose()
import type { FromWorker, ReadyInfo, Snapshot, ToWorker, TrainSettings } from './protocol'
import { trainText, type TrainKey, type TrainLang } from './strings'
import { adoptStyles } from '../dom'

export interface TrainPanelOptions {
  lang: TrainLang
  /** Where the worker script is (default: ./worker.ts beside this module, bundled by Vite). */
  workerUrl?: URL
  /** First settings (defaults: coreference, scaled-dot, 1 head, dModel 32, Adam, lr 0.01, seed 0). */
  settings?: Partial<TrainSettings>
}

export interface TrainPanelHandle {
  readonly el: HTMLElement
  setLang(lang: TrainLang): void
  /** Resolves with the next snapshot (tests and the benchmark wait on it). */
  nextSnapshot(): Promise<Snapshot>
  dispose(): void
}

const CSS = `
.ap-train{font:14px/1.45 system-ui,"Noto Sans CJK SC","Microsoft YaHei",sans-serif;display:grid;gap:.75rem}
.ap-train [hidden]{display:none!important}
.ap-train h2{margin:0;font-size:1.15rem}
.ap-train p{margin:0}
.ap-train .tr-error:empty,.ap-train .tr-note:empty{display:none}
.ap-train .tr-intro{margin:0;max-width:60rem}
.ap-train .tr-row{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:end}
.ap-train label{display:flex;flex-direction:column;font-size:.85rem;gap:.15rem}
.ap-train input,.ap-train select,.ap-train textarea,.ap-train button{font:inherit}
.ap-train input[type=number]{width:6.5rem}
.ap-train textarea{width:min(40rem,100%);min-height:4rem}
.ap-train .tr-sentence{width:min(32rem,100%)}
.ap-train label.tr-sentence-label{flex:1 1 22rem;max-width:34rem}
.ap-train label.tr-sentence-label .tr-sentence{width:100%}
.ap-train button{padding:.3rem .8rem;border:1px solid #888;border-radius:4px;background:#f5f5f5;cursor:pointer}
.ap-train button[aria-pressed=true]{background:#1f4e79;color:#fff}
.ap-train .tr-status{font-variant-numeric:tabular-nums}
.ap-train .tr-error{color:#a00}
.ap-train .tr-charts{display:flex;flex-wrap:wrap;gap:1rem}
.ap-train figure{margin:0;display:flex;flex-direction:column;gap:.25rem}
.ap-train figcaption{font-size:.85rem}
.ap-train canvas{border:1px solid #ddd;background:#fff}
`

// viridis at 9 stops (colour-blind safe), linearly interpolated
const VIRIDIS = [
  [68, 1, 84], [71, 44, 122], [59, 81, 139], [44, 113, 142], [33, 144, 141], [39, 173, 129], [92, 200, 99],
  [170, 220, 50], [253, 231, 37],
]
function viridis(t: number): string {
  const x = Math.min(1, Math.max(0, t)) * (VIRIDIS.length - 1)
  const i = Math.min(VIRIDIS.length - 2, Math.floor(x))
  const f = x - i
  const c = VIRIDIS[i].map((v, k) => Math.round(v + (VIRIDIS[i + 1][k] - v) * f))
  return `rgb(${c[0]},${c[1]},${c[2]})`
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...kids: Node[]) {
  const e = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v)
  e.append(...kids)
  return e
}

function canvas(w: number, h: number): HTMLCanvasElement {
  const c = document.createElement('canvas')
  const r = Math.min(2, globalThis.devicePixelRatio || 1)
  c.width = w * r
  c.height = h * r
  c.style.width = `${w}px`
  c.style.height = `${h}px`
  c.getContext('2d')?.scale(r, r)
  return c
}

const pct = (x: number | undefined) => (x === undefined || Number.isNaN(x) ? '–' : `${(x * 100).toFixed(1)} %`)
const num = (x: number | undefined) => (x === undefined || Number.isNaN(x) ? '–' : x.toFixed(3))

export function mountTrainPanel(root: HTMLElement, opts: TrainPanelOptions): TrainPanelHandle {
  let lang: TrainLang = opts.lang === 'zh' ? 'zh' : 'en'
  let t = trainText(lang)
  const labels: Array<[Element, TrainKey, string | null]> = []
  const bind = <E extends Element>(e: E, key: TrainKey, attr: string | null = null): E => {
    labels.push([e, key, attr])
    return e
  }

  const settings: TrainSettings = {
    task: 'coreference', score: 'scaled-dot', heads: 1, dModel: 32, optimizer: 'adam', lr: 0.01, seed: 0,
    text: '', ...opts.settings,
  }

  const section = el('section', { class: 'ap-train', 'data-step': 'train', 'data-panel': 'train' })
  const title = bind(el('h2'), 'title')
  const intro = bind(el('p', { class: 'tr-intro' }), 'intro')

  const select = (key: TrainKey, name: string, options: Array<[string, TrainKey | null]>, value: string) => {
    const s = el('select', { name })
    for (const [v, k] of options) {
      const o = el('option', { value: v })
      if (k) bind(o, k)
      else o.textContent = v
      s.append(o)
    }
    s.value = value
    const l = el('label', {}, bind(el('span'), key), s)
    return { label: l, input: s }
  }
  const task = select('task', 'task', [['coreference', 'taskCoreference'], ['reverse', 'taskReverse'], ['next-char', 'taskNextChar']], settings.task)
  const score = select('score', 'score', ['scaled-dot', 'dot', 'general', 'additive', 'concat'].map((s) => [s, null]), settings.score)
  const heads = select('heads', 'heads', ['1', '2', '4'].map((s) => [s, null]), String(settings.heads))
  const optim = select('optimizer', 'optimizer', [['adam', null], ['sgd', null]], settings.optimizer)
  const lrInput = el('input', { type: 'number', name: 'lr', min: '0.0001', max: '10', step: '0.001' })
  lrInput.value = String(settings.lr)
  const seedInput = el('input', { type: 'number', name: 'seed', min: '0', step: '1' })
  seedInput.value = String(settings.seed)
  const lrLabel = el('label', {}, bind(el('span'), 'lr'), lrInput)
  const seedLabel = el('label', {}, bind(el('span'), 'seed'), seedInput)
  const resetBtn = bind(el('button', { type: 'button', name: 'reset' }), 'reset')
  const textArea = el('textarea', { name: 'text', spellcheck: 'false' })
  textArea.value = settings.text ?? ''
  const textLabel = el('label', {}, bind(el('span'), 'text'), textArea)

  const playBtn = el('button', { type: 'button', name: 'play', 'aria-pressed': 'false' })
  const stepBtn = bind(el('button', { type: 'button', name: 'step' }), 'step')
  const status = el('p', { class: 'tr-status', role: 'status', 'aria-live': 'polite' })
  const note = el('p', { class: 'tr-note' })
  const error = el('p', { class: 'tr-error', role: 'alert' })
  const sentenceInput = el('input', { type: 'text', name: 'sentence', class: 'tr-sentence' })
  const sentenceLabel = el('label', { class: 'tr-sentence-label' }, bind(el('span'), 'sentence'), sentenceInput)

  const curves = canvas(440, 190)
  const attn = canvas(340, 340)
  const pcaCanvas = canvas(340, 340)
  const fig = (c: HTMLCanvasElement, key: TrainKey, name: string) =>
    el('figure', { 'data-train-view': name }, bind(el('figcaption'), key), c)
  curves.setAttribute('role', 'img')
  attn.setAttribute('role', 'img')
  pcaCanvas.setAttribute('role', 'img')

  section.append(
    title, intro,
    el('div', { class: 'tr-row' }, task.label, score.label, heads.label, optim.label, lrLabel, seedLabel, resetBtn),
    textLabel,
    el('div', { class: 'tr-row' }, playBtn, stepBtn, sentenceLabel),
    status, note, error,
    el('div', { class: 'tr-charts' }, fig(curves, 'curves', 'curves'), fig(attn, 'attention', 'attention'), fig(pcaCanvas, 'pca', 'pca')),
  )
  root.append(section)
  const removeStyles = adoptStyles(section, CSS)

  // ---- state drawn on screen
  let info: ReadyInfo | null = null
  let snap: Snapshot | null = null
  const history: Array<{ steps: number; loss: number; trainAcc: number; testAcc: number }> = []
  const waiters: Array<(s: Snapshot) => void> = []
  let disposed = false

  const worker = opts.workerUrl
    ? new Worker(opts.workerUrl, { type: 'module' })
    : new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' })
  const send = (m: ToWorker) => worker.postMessage(m)

  function relabel() {
    t = trainText(lang)
    for (const [e, key, attr] of labels) {
      if (attr) e.setAttribute(attr, t(key))
      else e.textContent = t(key)
    }
    section.lang = lang === 'zh' ? 'zh-CN' : 'en'
    playBtn.textContent = snap?.playing ? t('pause') : t('play')
    drawAll()
  }

  function showStatus() {
    if (!snap) {
      status.textContent = t('starting')
      return
    }
    status.textContent = t('status', {
      steps: snap.steps, loss: num(snap.train.loss), train: pct(snap.train.accuracy), test: pct(snap.test?.accuracy),
    })
    note.textContent = info && settings.task === 'coreference' ? t('heldOutNote', { test: info.testSize }) : ''
    playBtn.textContent = snap.playing ? t('pause') : t('play')
    playBtn.setAttribute('aria-pressed', String(snap.playing))
  }

  function drawCurves() {
    const g = curves.getContext('2d')!
    const W = 440, H = 190, L = 36, R = 36, T = 10, B = 34
    g.clearRect(0, 0, W, H)
    g.font = '11px system-ui, sans-serif'
    g.strokeStyle = '#ccc'
    g.strokeRect(L, T, W - L - R, H - T - B)
    if (history.length < 1) return
    const maxStep = Math.max(1, history[history.length - 1].steps)
    const maxLoss = Math.max(1e-6, ...history.map((p) => p.loss).filter(Number.isFinite))
    const x = (s: number) => L + ((W - L - R) * s) / maxStep
    const yl = (v: number) => T + (H - T - B) * (1 - v / maxLoss)
    const ya = (v: number) => T + (H - T - B) * (1 - v)
    const line = (color: string, y: (p: (typeof history)[number]) => number, dash: number[] = []) => {
      g.strokeStyle = color
      g.setLineDash(dash)
      g.lineWidth = 1.5
      g.beginPath()
      let started = false
      for (const p of history) {
        const v = y(p)
        if (!Number.isFinite(v)) continue
        if (started) g.lineTo(x(p.steps), v)
        else g.moveTo(x(p.steps), v)
        started = true
      }
      g.stroke()
      g.setLineDash([])
    }
    // blue / orange / dark: distinguishable with common colour-vision deficiencies, plus dash styles
    line('#1f77b4', (p) => yl(p.loss))
    line('#ff7f0e', (p) => ya(p.trainAcc), [4, 3])
    line('#333', (p) => ya(p.testAcc), [1, 2])
    g.fillStyle = '#333'
    g.textAlign = 'right'
    g.fillText(maxLoss.toFixed(2), L - 3, T + 9)
    g.fillText('0', L - 3, H - B)
    g.textAlign = 'left'
    g.fillText('100%', W - R + 3, T + 9)
    g.fillText('0%', W - R + 3, H - B)
    g.textAlign = 'center'
    g.fillText(String(maxStep), W - R, H - B + 12)
    const legend: Array<[string, TrainKey, number[]]> = [['#1f77b4', 'trainLoss', []], ['#ff7f0e', 'trainAcc', [4, 3]], ['#333', 'testAcc', [1, 2]]]
    let lx = L
    g.textAlign = 'left'
    for (const [c, k, d] of legend) {
      g.strokeStyle = c
      g.setLineDash(d)
      g.beginPath()
      g.moveTo(lx, H - 8)
      g.lineTo(lx + 16, H - 8)
      g.stroke()
      g.setLineDash([])
      g.fillText(t(k), lx + 20, H - 4)
      lx += 24 + g.measureText(t(k)).width + 8
    }
    const last = history[history.length - 1]
    curves.setAttribute('aria-label', `${t('curves')}: ${t('trainLoss')} ${num(last.loss)}, ${t('testAcc')} ${pct(last.testAcc)}`)
  }

  function drawAttention() {
    const g = attn.getContext('2d')!
    const S = 340
    g.clearRect(0, 0, S, S)
    const a = snap?.attention
    if (!a) return
    const n = a.tokens.length
    const pad = 70
    const cell = Math.max(4, Math.floor((S - pad - 4) / Math.max(1, n)))
    g.font = `${Math.min(12, Math.max(8, cell - 6))}px system-ui, "Noto Sans CJK SC", sans-serif`
    g.textBaseline = 'middle'
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        g.fillStyle = viridis(a.weights[i * n + j])
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

  function drawPca() {
    const g = pcaCanvas.getContext('2d')!
    const S = 340
    g.clearRect(0, 0, S, S)
    if (!snap || !info) return
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
      (a, b) => Number(watched.has(info!.vocab[b])) - Number(watched.has(info!.vocab[a])))
    const placed: [number, number, number, number][] = []
    for (const i of order) {
      const x = S / 2 + p[2 * i] * sc
      const y = S / 2 - p[2 * i + 1] * sc
      const hot = watched.has(info.vocab[i])
      g.fillStyle = hot ? '#d62728' : '#1f77b4'
      g.beginPath()
      g.arc(x, y, hot ? 3.5 : 2.5, 0, 2 * Math.PI)
      g.fill()
      const w = g.measureText(info.vocab[i]).width
      const box: [number, number, number, number] = [x + 4, y - 6, x + 4 + w, y + 6]
      if (placed.some((b) => box[0] < b[2] && b[0] < box[2] && box[1] < b[3] && b[1] < box[3])) continue
      placed.push(box)
      g.fillStyle = hot ? '#111' : '#555'
      g.fillText(info.vocab[i], x + 4, y)
    }
    pcaCanvas.setAttribute('aria-label', t('pca'))
  }

  function drawAll() {
    showStatus()
    drawCurves()
    drawAttention()
    drawPca()
  }

  let frame = 0
  function schedule() {
    if (frame || disposed) return
    frame = requestAnimationFrame(() => {
      frame = 0
      drawAll()
    })
  }

  worker.onmessage = (e: MessageEvent<FromWorker>) => {
    const m = e.data
    if (m.type === 'error') {
      error.textContent = `${t('workerFailed')} ${m.message}`
      if (snap) snap = { ...snap, playing: false }
      showStatus()
      return
    }
    if (m.type === 'ready') {
      info = m.info
      history.length = 0
      error.textContent = ''
      if (!sentenceInput.value || sentenceInput.dataset.auto === '1') {
        sentenceInput.value = m.info.sample
        sentenceInput.dataset.auto = '1'
      }
    }
    snap = m.snapshot
    error.textContent = snap.attentionError ?? (m.type === 'ready' ? '' : error.textContent)
    const last = history[history.length - 1]
    if (!last || last.steps !== snap.steps) {
      history.push({
        steps: snap.steps, loss: snap.steps === 0 ? (snap.test?.loss ?? NaN) : snap.train.loss,
        trainAcc: snap.steps === 0 ? (snap.test?.accuracy ?? NaN) : snap.train.accuracy, testAcc: snap.test?.accuracy ?? NaN,
      })
      if (history.length > 2000) history.splice(0, history.length - 2000)
    }
    for (const w of waiters.splice(0)) w(snap)
    schedule()
  }
  worker.onerror = (e) => {
    error.textContent = `${t('workerFailed')} ${e.message || 'worker error'}`
  }

  function readSettings(): TrainSettings {
    const lr = Number(lrInput.value)
    const seed = Number(seedInput.value)
    return {
      task: task.input.value as TrainSettings['task'],
      score: score.input.value as TrainSettings['score'],
      heads: Number(heads.input.value),
      dModel: settings.dModel,
      optimizer: optim.input.value as TrainSettings['optimizer'],
      lr: Number.isFinite(lr) && lr > 0 ? lr : 0.01,
      seed: Number.isInteger(seed) && seed >= 0 ? seed : 0,
      text: textArea.value,
    }
  }

  function reset() {
    Object.assign(settings, readSettings())
    textLabel.hidden = settings.task !== 'next-char'
    sentenceInput.dataset.auto = '1'
    sentenceInput.value = ''
    snap = null
    info = null
    drawAll()
    send({ type: 'reset', settings: { ...settings } })
  }

  playBtn.addEventListener('click', () => send({ type: snap?.playing ? 'pause' : 'play' }))
  stepBtn.addEventListener('click', () => send({ type: 'step', n: 10 }))
  resetBtn.addEventListener('click', reset)
  for (const s of [task.input, score.input, heads.input, optim.input]) s.addEventListener('change', reset)
  seedInput.addEventListener('change', reset)
  textArea.addEventListener('change', () => {
    if (task.input.value === 'next-char') reset()
  })
  lrInput.addEventListener('change', () => {
    const lr = Number(lrInput.value)
    if (Number.isFinite(lr) && lr > 0 && lr <= 10) send({ type: 'lr', lr })
  })
  sentenceInput.addEventListener('input', () => {
    sentenceInput.dataset.auto = '0'
    send({ type: 'sentence', text: sentenceInput.value })
  })

  relabel()
  reset()

  return {
    el: section,
    setLang(l: TrainLang) {
      lang = l === 'zh' ? 'zh' : 'en'
      relabel()
    },
    nextSnapshot() {
      return new Promise<Snapshot>((resolve) => waiters.push(resolve))
    },
    dispose() {
      disposed = true
      if (frame) cancelAnimationFrame(frame)
      worker.terminate()
      section.remove()
      removeStyles()
    },
  }
}
