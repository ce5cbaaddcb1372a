// The Train panel's induction view: each head's previous-token, induction and duplicate-token scores
// over time, the role each head's scores show, the step where the induction score rises (marked on the
// loss curve too), and the watched sequence's attention in every layer and head. No DOM here beyond
// canvases and text nodes built by the panel; the roles and the phase step are plain functions (tested).

import { oneBased } from '../format'
import { viridis } from '../palette'
import type { HeadScores } from 'attention-playground'
import type { InductionSnapshot } from './protocol'
import type { T } from '../i18n/core'
import type { TrainKey } from '../i18n/train'

type Translate = T<TrainKey>

export type HeadRole = 'previousToken' | 'induction' | 'duplicateToken'

/** A score at or above this marks a head's role (chance is about 0.1 for these sequences). */
export const ROLE_THRESHOLD = 0.4

/** The induction score counts as risen once its largest value over heads is this far above its first. */
export const RISE = 0.15

export interface ScorePoint {
  steps: number
  scores: HeadScores
}

/** Each head's role, [layer][head]: the largest of its three scores if it reaches ROLE_THRESHOLD. */
export function headRoles(s: HeadScores): Array<Array<HeadRole | null>> {
  return s.induction.map((row, l) =>
    row.map((_, h) => {
      const cand: Array<[HeadRole, number]> = [
        ['previousToken', s.previousToken[l][h]],
        ['induction', s.induction[l][h]],
        ['duplicateToken', s.duplicateToken[l][h]],
      ]
      cand.sort((a, b) => b[1] - a[1])
      return cand[0][1] >= ROLE_THRESHOLD ? cand[0][0] : null
    }),
  )
}

const maxInduction = (s: HeadScores) => Math.max(...s.induction.flat())

/** The first recorded step where the largest induction score is RISE above its first value (null: not yet). */
export function phaseStep(history: readonly ScorePoint[]): number | null {
  if (history.length < 2) return null
  const base = maxInduction(history[0].scores)
  for (const p of history) if (maxInduction(p.scores) >= base + RISE) return p.steps
  return null
}

const ROLE_KEY: Record<HeadRole, TrainKey> = {
  previousToken: 'rolePrevious',
  induction: 'roleInduction',
  duplicateToken: 'roleDuplicate',
}

const HEAD_COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f']

/** The heads' roles as list items (text only), with data-head-role for each labelled head. */
export function roleItems(s: HeadScores | null, t: Translate): HTMLLIElement[] {
  if (!s) return []
  const roles = headRoles(s)
  const items: HTMLLIElement[] = []
  roles.forEach((row, l) =>
    row.forEach((role, h) => {
      const li = document.createElement('li')
      li.dataset.head = `${l}.${h}`
      if (role) li.dataset.headRole = role
      const f = (x: number) => x.toFixed(2)
      li.textContent = t('headLine', {
        layer: oneBased(l),
        head: oneBased(h),
        role: role ? t(ROLE_KEY[role]) : t('roleNone'),
        prev: f(s.previousToken[l][h]),
        ind: f(s.induction[l][h]),
        dup: f(s.duplicateToken[l][h]),
      })
      li.style.color = HEAD_COLORS[(l * row.length + h) % HEAD_COLORS.length]
      items.push(li)
    }),
  )
  return items
}

/** Scores over time: one colour per head, induction solid, previous-token dashed, duplicate-token dotted. */
export function drawScores(c: HTMLCanvasElement, history: readonly ScorePoint[], t: Translate): void {
  const g = c.getContext('2d')!
  const W = 440,
    H = 190,
    L = 34,
    R = 10,
    T = 10,
    B = 36
  g.clearRect(0, 0, W, H)
  g.font = '11px system-ui, sans-serif'
  g.strokeStyle = '#ccc'
  g.strokeRect(L, T, W - L - R, H - T - B)
  g.fillStyle = '#333'
  g.textAlign = 'right'
  g.fillText('1', L - 3, T + 9)
  g.fillText('0', L - 3, H - B)
  if (history.length < 1) return
  const maxStep = Math.max(1, history[history.length - 1].steps)
  const x = (s: number) => L + ((W - L - R) * s) / maxStep
  const y = (v: number) => T + (H - T - B) * (1 - v)
  const first = history[0].scores
  const kinds: Array<[keyof HeadScores, number[]]> = [
    ['induction', []],
    ['previousToken', [5, 3]],
    ['duplicateToken', [1, 2]],
  ]
  first.induction.forEach((row, l) =>
    row.forEach((_, h) => {
      for (const [kind, dash] of kinds) {
        g.strokeStyle = HEAD_COLORS[(l * row.length + h) % HEAD_COLORS.length]
        g.setLineDash(dash)
        g.lineWidth = 1.5
        g.beginPath()
        history.forEach((p, i) => {
          const v = y(p.scores[kind][l][h])
          if (i) g.lineTo(x(p.steps), v)
          else g.moveTo(x(p.steps), v)
        })
        g.stroke()
      }
    }),
  )
  g.setLineDash([])
  g.textAlign = 'center'
  g.fillText(String(maxStep), W - R, H - B + 12)
  g.textAlign = 'left'
  g.fillText(t('scoresLegend'), L, H - 4, W - L - R)
  c.setAttribute('aria-label', t('scores'))
}

/** One heatmap of a head's attention on the watched tokens (rows: queries, columns: keys). */
export function drawHeadMap(c: HTMLCanvasElement, tokens: readonly string[], w: Float32Array, size: number): void {
  const g = c.getContext('2d')!
  g.clearRect(0, 0, size, size)
  const n = tokens.length
  if (!n) return
  const pad = 44
  const cell = Math.max(3, Math.floor((size - pad - 2) / n))
  g.font = `${Math.min(10, Math.max(7, cell - 2))}px system-ui, sans-serif`
  g.textBaseline = 'middle'
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const [r, gr, b] = viridis(w[i * n + j]).map(Math.round)
      g.fillStyle = `rgb(${r},${gr},${b})`
      g.fillRect(pad + j * cell, pad + i * cell, cell - 1, cell - 1)
    }
    g.fillStyle = '#222'
    g.textAlign = 'right'
    g.fillText(tokens[i], pad - 3, pad + i * cell + cell / 2, pad - 4)
    g.save()
    g.translate(pad + i * cell + cell / 2, pad - 3)
    g.rotate(-Math.PI / 2)
    g.textAlign = 'left'
    g.fillText(tokens[i], 0, 0, pad - 4)
    g.restore()
  }
}

const MAP_SIZE = 200

/**
 * The induction task's part of the panel: the explanation, the heads' roles, the scores chart and every
 * layer's and head's attention map. Hidden for the other tasks.
 */
export class InductionView {
  readonly el: HTMLElement
  private readonly explain = document.createElement('p')
  private readonly roles = document.createElement('ul')
  private readonly scoresCanvas: HTMLCanvasElement
  private readonly scoresCaption = document.createElement('figcaption')
  private readonly maps = document.createElement('div')
  private readonly history: ScorePoint[] = []
  private last: InductionSnapshot | null = null

  constructor(private readonly canvas: (w: number, h: number) => HTMLCanvasElement) {
    this.el = document.createElement('div')
    this.el.className = 'tr-induction'
    this.el.dataset.trainView = 'induction'
    this.explain.className = 'tr-intro'
    this.roles.className = 'tr-roles'
    this.roles.dataset.trainView = 'roles'
    this.scoresCanvas = canvas(440, 190)
    const fig = document.createElement('figure')
    fig.dataset.trainView = 'scores'
    fig.append(this.scoresCaption, this.scoresCanvas)
    this.maps.className = 'tr-charts'
    this.maps.dataset.trainView = 'layers'
    this.el.append(this.explain, this.roles, fig, this.maps)
  }

  /** Forget the curves (a new model). */
  clear(): void {
    this.history.length = 0
    this.last = null
  }

  /** The step where the induction score rose, for the loss curve's mark. */
  phase(): number | null {
    return phaseStep(this.history)
  }

  record(s: InductionSnapshot | undefined): void {
    if (!s) return
    this.last = s
    const h = this.history
    if (s.scores && (!h.length || h[h.length - 1].steps !== s.scoresAt)) h.push({ steps: s.scoresAt, scores: s.scores })
    if (h.length > 2000) h.splice(1, h.length - 2000)
  }

  draw(t: Translate): void {
    this.explain.textContent = t('inductionExplain')
    this.scoresCaption.textContent = t('scores')
    const s = this.last
    this.roles.replaceChildren(...roleItems(s?.scores ?? null, t))
    drawScores(this.scoresCanvas, this.history, t)
    this.drawMaps(s, t)
  }

  private drawMaps(s: InductionSnapshot | null, t: Translate): void {
    const figs = this.maps.children
    const want = s ? s.maps.flat().length : 0
    while (figs.length > want) figs[figs.length - 1].remove()
    if (!s) return
    let k = 0
    s.maps.forEach((row, l) =>
      row.forEach((w, h) => {
        let fig = figs[k] as HTMLElement | undefined
        if (!fig) {
          fig = document.createElement('figure')
          fig.append(document.createElement('figcaption'), this.canvas(MAP_SIZE, MAP_SIZE))
          this.maps.append(fig)
        }
        fig.dataset.head = `${l}.${h}`
        const label = t('layerMap', { layer: oneBased(l), head: oneBased(h) })
        fig.firstElementChild!.textContent = label
        const c = fig.lastElementChild as HTMLCanvasElement
        c.setAttribute('aria-label', label)
        drawHeadMap(c, s.tokens, w, MAP_SIZE)
        k++
      }),
    )
  }
}
