// The "Positions" view: attention alone is blind to word order (a sentence and a shuffled copy, checked on
// the numbers), then the four common ways models add order — the sinusoidal table, RoPE's turning pairs and its
// offset property, ALiBi's distance bias — every number from the engine (compute/positions.ts); this file draws.

import type { Engine, Tensor } from 'attention-playground'
import type { Ctx, Panel } from '../context'
import { h, labelled, viewSection, setText, svg } from '../dom'
import { fmt, oneBased } from '../format'
import { Heatmap } from '../heatmap'
import { Texts, type MsgKey, type Translate } from '../i18n'
import { headMatrix } from '../compute/heads'
import { POSITION_KEYS as ENC_KEYS } from '../i18n/positions'
import {
  alibiRuns,
  causalOrderCheck,
  orderCheck,
  positionDots,
  ropeDials,
  ropeOffset,
  shuffleWords,
  sinusoidalTable,
  viewWords,
  VIEW_SIZES,
  type OrderRow,
} from '../compute/positions'

const SIN_N = 32
const SIN_D = 32
const ROPE_BASE = 10000
const ROPE_D = VIEW_SIZES.dq

const numInput = (name: string, min: number, max: number, value: number) =>
  h('input', { type: 'number', name, min, max, step: 1, value })

const heatmap = (name: string, t: Translate, unit = false) =>
  new Heatmap({ name, rowAxis: null, colAxis: null, unit, tokenCols: true, t, maxCell: 40 })

export class PositionsView implements Panel {
  readonly el: HTMLElement
  private texts = new Texts()
  private ctx: Ctx | null = null
  private shuffleSeed = 1
  // order blindness
  private sentence = h('p', { class: 'pos-sentence', 'data-order': 'original' })
  private shuffled = h('p', { class: 'pos-sentence', 'data-order': 'shuffled' })
  private shuffleBtn = h('button', { type: 'button', class: 'btn-small', name: 'shuffle' })
  private orderTable = h('div', { class: 'table-scroll' })
  private verdict = h('p', { class: 'help', 'data-order-verdict': '' })
  private causalVerdict = h('p', { class: 'help', 'data-order-causal': '' })
  private orderPick = h('select', { name: 'orderPositions' })
  private outA: Heatmap
  private outB: Heatmap
  // sinusoidal
  private sinMap: Heatmap
  private dotMap: Heatmap
  // rope
  private ropeM = h('input', { type: 'range', name: 'ropePosition', min: 0, max: 63, step: 1, value: 3 })
  private ropeMOut = h('output', { class: 'val' })
  private dials = h('div', { class: 'pos-dials' })
  private wordI = h('select', { name: 'ropeWordI' })
  private wordJ = h('select', { name: 'ropeWordJ' })
  private shift = numInput('ropeShift', 0, 1000, 5)
  private offsetOut = h('p', { class: 'pos-offset', 'data-rope-offset': '' })
  // alibi
  private alibiHeads = h('select', { name: 'alibiHeads' })
  private alibiHead = h('select', { name: 'alibiHead' })
  private slopes = h('p', { class: 'help', 'data-alibi-slopes': '' })
  private biasMap: Heatmap
  private wNoMap: Heatmap
  private wYesMap: Heatmap
  private maps: Heatmap[]

  constructor(
    private engine: Engine,
    ctx: Ctx,
  ) {
    const t = ctx.t
    this.outA = heatmap('orderOriginal', t)
    this.outB = heatmap('orderShuffled', t)
    this.sinMap = heatmap('sinusoidalTable', t)
    this.dotMap = heatmap('positionDots', t)
    this.biasMap = heatmap('alibiBias', t)
    this.wNoMap = heatmap('alibiWithout', t, true)
    this.wYesMap = heatmap('alibiWith', t, true)
    this.maps = [this.outA, this.outB, this.sinMap, this.dotMap, this.biasMap, this.wNoMap, this.wYesMap]
    this.el = viewSection(
      this.texts,
      { class: 'panel positions-view', 'data-step': 'positions' },
      { title: 'posViewTitle', lead: 'posViewLead' },
      this.orderPart(),
      this.sinPart(),
      this.ropePart(),
      this.alibiPart(),
    )
    this.bind(ctx)
  }

  private sub(title: MsgKey, lead: MsgKey, part: string, ...children: Array<Node | null>): HTMLElement {
    const tx = this.texts.bind
    return h('div', { class: 'pos-part', 'data-pos-part': part }, tx(h('h3'), title), tx(h('p'), lead), ...children)
  }

  private figure(map: Heatmap, caption: MsgKey): HTMLElement {
    return h('figure', { class: 'pos-fig' }, this.texts.bind(h('figcaption'), caption), map.el)
  }

  private readonly field = (key: MsgKey, control: HTMLElement): HTMLElement => labelled(this.texts.bind, key, control)

  private orderPart(): HTMLElement {
    return this.sub(
      'posOrderTitle',
      'posOrderLead',
      'order',
      h('div', { class: 'pos-pair' }, this.sentence, this.shuffled, this.shuffleBtn),
      this.orderTable,
      this.verdict,
      this.causalVerdict,
      this.field('posOrderShow', this.orderPick),
      h(
        'div',
        { class: 'grid grid-2' },
        this.figure(this.outA, 'posOutOriginal'),
        this.figure(this.outB, 'posOutShuffled'),
      ),
    )
  }

  private sinPart(): HTMLElement {
    return this.sub(
      'posSinTitle',
      'posSinLead',
      'sinusoidal',
      h(
        'div',
        { class: 'grid grid-2' },
        this.figure(this.sinMap, 'posSinTable'),
        this.figure(this.dotMap, 'posSinDots'),
      ),
    )
  }

  private ropePart(): HTMLElement {
    const tx = this.texts.bind
    const lab = this.field
    return this.sub(
      'posRopeTitle',
      'posRopeLead',
      'rope',
      lab('posRopePosition', h('div', { class: 'range' }, this.ropeM, this.ropeMOut)),
      this.dials,
      tx(h('h4'), 'posRopeOffsetTitle'),
      tx(h('p', { class: 'help' }), 'posRopeOffsetLead'),
      h(
        'div',
        { class: 'sizes' },
        lab('posRopeWordI', this.wordI),
        lab('posRopeWordJ', this.wordJ),
        lab('posRopeShift', this.shift),
      ),
      this.offsetOut,
    )
  }

  private alibiPart(): HTMLElement {
    const lab = this.field
    return this.sub(
      'posAlibiTitle',
      'posAlibiLead',
      'alibi',
      h('div', { class: 'sizes' }, lab('heads', this.alibiHeads), lab('head', this.alibiHead)),
      this.slopes,
      h(
        'div',
        { class: 'grid grid-3' },
        this.figure(this.biasMap, 'posAlibiBias'),
        this.figure(this.wNoMap, 'posAlibiWithout'),
        this.figure(this.wYesMap, 'posAlibiWith'),
      ),
    )
  }

  private bind(ctx: Ctx): void {
    const redraw = () => this.ctx && this.render(this.ctx)
    this.shuffleBtn.addEventListener('click', () => {
      this.shuffleSeed++
      redraw()
    })
    for (const e of [this.orderPick, this.wordI, this.wordJ, this.alibiHeads, this.alibiHead])
      e.addEventListener('change', redraw)
    this.ropeM.addEventListener('input', redraw)
    this.shift.addEventListener('input', redraw)
    this.ctx = ctx
  }

  render(ctx: Ctx): void {
    this.ctx = ctx
    const t = ctx.t
    this.texts.apply(t)
    for (const m of this.maps) m.setLang(t)
    setText(this.shuffleBtn, t('posShuffle'))
    const words = viewWords(ctx.state.text)
    try {
      this.renderOrder(t, words, ctx.state.seed)
      this.renderSin()
      this.renderRope(t, words, ctx.state.seed)
      this.renderAlibi(t, words, ctx.state.seed)
    } catch (e) {
      setText(this.verdict, e instanceof Error ? e.message : String(e))
    }
  }

  private renderOrder(t: Translate, words: string[], seed: number): void {
    const { words: sh, perm } = shuffleWords(words, this.shuffleSeed)
    setText(this.sentence, `${t('posOriginal')}: ${words.join(' ')}`)
    setText(this.shuffled, `${t('posShuffled')}: ${sh.join(' ')}`)
    this.shuffled.dataset.perm = perm.join(',')
    const rows = orderCheck(this.engine, words, sh, perm, seed)
    const causal = causalOrderCheck(this.engine, words, sh, perm, seed)
    this.orderTable.replaceChildren(orderTableEl(t, rows, causal))
    Object.assign(this.causalVerdict.dataset, { maxDiff: String(causal.maxDiff), permuted: String(causal.permuted) })
    setText(
      this.causalVerdict,
      t(causal.permuted ? 'posVerdictCausalSame' : 'posVerdictCausal', { diff: fmt(causal.maxDiff, 3) }),
    )
    const none = rows[0]
    const others = rows.slice(1)
    const allDiffer = others.every((r) => !r.permuted)
    this.verdict.dataset.orderVerdict = none.permuted && allDiffer ? 'blind-without-positions' : 'unexpected'
    setText(
      this.verdict,
      t(none.permuted ? 'posVerdictSame' : 'posVerdictNotSame', { diff: fmt(none.maxDiff, 2) }) +
        ' ' +
        t('posVerdictOthers', { min: fmt(Math.min(...others.map((r) => r.maxDiff)), 3) }) +
        (new Set(words).size < words.length ? ' ' + t('posVerdictRepeated') : ''),
    )
    fillSelect(
      this.orderPick,
      rows.map((r) => [r.positions, t(ENC_KEYS[r.positions])]),
    )
    const pick = rows.find((r) => r.positions === this.orderPick.value) ?? none
    const out = (m: Heatmap, tensor: Tensor, labels: string[]) =>
      m.setData(tensor.data, tensor.shape[0], tensor.shape[1], labels, dims(tensor.shape[1]))
    out(this.outA, pick.original.output, pick.original.tokens)
    out(this.outB, pick.shuffled.output, pick.shuffled.tokens)
  }

  private renderSin(): void {
    const P = sinusoidalTable(this.engine, SIN_N, SIN_D)
    this.sinMap.setData(P.data, SIN_N, SIN_D, dims(SIN_N), dims(SIN_D))
    const D = positionDots(P)
    this.dotMap.setData(D.data, SIN_N, SIN_N, dims(SIN_N), dims(SIN_N))
  }

  private renderRope(t: Translate, words: string[], seed: number): void {
    const m = Number(this.ropeM.value)
    setText(this.ropeMOut, `m = ${m}`)
    const dials = ropeDials(this.engine, ROPE_D, ROPE_BASE, m)
    this.dials.replaceChildren(...dials.map((d, i) => dialEl(t, i, ROPE_D, d)))
    const i0 = Number(this.wordI.value) || 0
    const j0 = this.wordJ.dataset.touched ? Number(this.wordJ.value) || 0 : 1
    const s = Math.max(0, Math.min(1000, Math.round(Number(this.shift.value) || 0)))
    const r = ropeOffset(this.engine, words, seed, i0, j0, s, ROPE_BASE)
    const labels = r.tokens.map((w, k) => [String(k), `${k}: ${w}`] as [string, string])
    fillSelect(this.wordI, labels)
    fillSelect(this.wordJ, labels)
    this.wordI.value = String(r.i)
    this.wordJ.value = String(r.j)
    this.wordJ.dataset.touched = '1'
    const o = this.offsetOut
    Object.assign(o.dataset, { i: String(r.i), j: String(r.j), s: String(s), scoreA: String(r.a), scoreB: String(r.b) })
    setText(
      o,
      t('posRopeOffsetResult', {
        i: r.i,
        j: r.j,
        s,
        is: r.i + s,
        js: r.j + s,
        a: fmt(r.a, 5),
        b: fmt(r.b, 5),
        diff: fmt(Math.abs(r.a - r.b), 2),
      }),
    )
  }

  private renderAlibi(t: Translate, words: string[], seed: number): void {
    fillSelect(
      this.alibiHeads,
      [1, 2, 4, 6, 8].map((n) => [String(n), String(n)]),
    )
    if (!this.alibiHeads.dataset.touched) this.alibiHeads.value = '4'
    this.alibiHeads.dataset.touched = '1'
    const H = Number(this.alibiHeads.value)
    fillSelect(
      this.alibiHead,
      Array.from({ length: H }, (_, i) => [String(i), `${t('headN')} ${oneBased(i)}`]),
    )
    const head = Math.min(Number(this.alibiHead.value) || 0, H - 1)
    const runs = alibiRuns(this.engine, words, seed, H)
    const bias = runs.with.positionBias!
    const slopes = runs.slopes
    this.slopes.dataset.alibiSlopes = slopes.join(',')
    setText(
      this.slopes,
      `${t('posAlibiSlopes')}: ${slopes.map((m, hh) => `m${oneBased(hh)} = ${fmt(m, 4)}`).join(', ')}`,
    )
    const show = (map: Heatmap, tensor: Tensor) => {
      const m = headMatrix(tensor, head)
      map.setData(m.data, m.rows, m.cols, runs.with.tokens, runs.with.tokens)
    }
    show(this.biasMap, bias)
    show(this.wNoMap, runs.without.weights)
    show(this.wYesMap, runs.with.weights)
  }

  dispose(): void {
    for (const m of this.maps) m.dispose()
  }
}

function dims(n: number): string[] {
  return Array.from({ length: n }, (_, i) => String(i))
}

function fillSelect(sel: HTMLSelectElement, options: Array<[string, string]>): void {
  const keep = sel.value
  const same =
    sel.options.length === options.length &&
    options.every(([v, l], i) => sel.options[i].value === v && sel.options[i].textContent === l)
  if (!same) sel.replaceChildren(...options.map(([v, l]) => h('option', { value: v, text: l })))
  if (options.some(([v]) => v === keep)) sel.value = keep
}

function orderTableEl(t: Translate, rows: OrderRow[], causal: OrderRow): HTMLElement {
  return h(
    'table',
    { class: 'compare', 'data-order-table': '' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ...(['positions', 'posMaxDiff', 'posSameVectors'] as MsgKey[]).map((k) =>
          h('th', { scope: 'col', text: t(k) }),
        ),
      ),
    ),
    h(
      'tbody',
      {},
      ...rows.map((r) =>
        h(
          'tr',
          { 'data-positions': r.positions, 'data-max-diff': r.maxDiff, 'data-permuted': String(r.permuted) },
          h('th', { scope: 'row', text: t(ENC_KEYS[r.positions]) }),
          h('td', { text: fmt(r.maxDiff, 3) }),
          h('td', { text: t(r.permuted ? 'posYesPermuted' : 'posNoDiffer') }),
        ),
      ),
      h(
        'tr',
        { 'data-order-mask': 'causal', 'data-max-diff': causal.maxDiff, 'data-permuted': String(causal.permuted) },
        h('th', { scope: 'row', text: t('posNoneCausal') }),
        h('td', { text: fmt(causal.maxDiff, 3) }),
        h('td', { text: t(causal.permuted ? 'posYesPermuted' : 'posNoDiffer') }),
      ),
    ),
  )
}

/** One pair of dimensions (i, i + d/2) as a dial: the hand at the angle the engine turned e_i by. */
function dialEl(t: Translate, i: number, d: number, v: { cos: number; sin: number }): HTMLElement {
  const R = 26
  const s = svg('svg', { class: 'pos-dial', viewBox: '-32 -32 64 64', role: 'img' })
  const deg = (Math.atan2(v.sin, v.cos) * 180) / Math.PI
  s.setAttribute('aria-label', `${t('posRopePair')} (${i}, ${i + d / 2}): ${fmt(deg, 1)}°`)
  s.append(
    svg('circle', { cx: 0, cy: 0, r: R, class: 'dial-face' }),
    svg('line', { x1: 0, y1: 0, x2: (R * v.cos).toFixed(2), y2: (-R * v.sin).toFixed(2), class: 'dial-hand' }),
  )
  return h(
    'figure',
    { class: 'pos-dial-fig', 'data-pair': i, 'data-cos': v.cos, 'data-sin': v.sin },
    s,
    h('figcaption', { text: `(${i}, ${i + d / 2}) θ = ${fmt(Math.pow(10000, (-2 * i) / d), 3)}` }),
  )
}
