// Where Q, K and V come from: self-attention (one sentence) against encoder–decoder attention
// (decoder → Q, encoder → K, V), with a button that sets the playground to each.

import type { Ctx, Panel } from '../context'
import { h, svg, Texts } from '../dom'
import type { MsgKey } from '../i18n'
import { PRESETS } from '../presets'

export class OriginPanel implements Panel {
  readonly el: HTMLElement
  private texts = new Texts()
  private labels: Array<[Element, MsgKey, string]> = []

  constructor(ctx: Ctx) {
    const tx = this.texts.bind
    const trySelf = tx(h('button', { type: 'button', class: 'btn-small', name: 'trySelf' }), 'originTry')
    const tryCross = tx(h('button', { type: 'button', class: 'btn-small', name: 'tryCross' }), 'originTry')
    trySelf.addEventListener('click', () => ctx.setState({ ...PRESETS.cat, view: 'pipeline' }))
    tryCross.addEventListener('click', () => ctx.setState({ ...PRESETS.seq2seq, view: 'pipeline' }))
    const rows: Array<[MsgKey, MsgKey, MsgKey]> = [
      ['originRowQ', 'originAttnQ', 'originSelfQ'],
      ['originRowKV', 'originAttnKV', 'originSelfKV'],
      ['originRowCross', 'originYes', 'originNo'],
      ['originRowRole', 'originAttnRole', 'originSelfRole'],
      ['originRowWhere', 'originAttnWhere', 'originSelfWhere'],
    ]
    this.el = h(
      'section',
      { class: 'panel origin', 'data-panel': 'origin' },
      tx(h('h2'), 'originTitle'),
      tx(h('p', { class: 'lead' }), 'originIntro'),
      tx(h('p', { class: 'help', 'data-analogy': 'dictionary' }), 'originDictionary'),
      h(
        'div',
        { class: 'why-cols' },
        h(
          'div',
          { class: 'why-col' },
          tx(h('h3'), 'originSelfTitle'),
          diagram(false, this.labels),
          tx(h('p', { class: 'help' }), 'originSelfBody'),
          trySelf,
        ),
        h(
          'div',
          { class: 'why-col' },
          tx(h('h3'), 'originCrossTitle'),
          diagram(true, this.labels),
          tx(h('p', { class: 'help' }), 'originCrossBody'),
          tryCross,
        ),
      ),
      h(
        'div',
        { class: 'table-scroll' },
        h(
          'table',
          { class: 'compare' },
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              ...(['originColAspect', 'originColAttn', 'originColSelf'] as MsgKey[]).map((k) =>
                tx(h('th', { scope: 'col' }), k),
              ),
            ),
          ),
          h(
            'tbody',
            {},
            ...rows.map(([a, b, c]) => h('tr', {}, tx(h('th', { scope: 'row' }), a), tx(h('td'), b), tx(h('td'), c))),
          ),
        ),
      ),
    )
  }

  render(ctx: Ctx): void {
    this.texts.apply(ctx.t)
    for (const [e, key, symbol] of this.labels) e.textContent = `${ctx.t(key)} ${symbol}`
  }
}

let markerSeq = 0

/** A box-and-arrow picture: sentence(s) → W_q, W_k, W_v → Q, K, V → attention. */
function diagram(cross: boolean, labels: Array<[Element, MsgKey, string]>): SVGSVGElement {
  const s = svg('svg', { viewBox: '0 0 360 170', class: 'origin-svg', role: 'img', 'aria-hidden': 'true' })
  const box = (x: number, y: number, w: number, label: string, cls: string, key?: MsgKey) => {
    s.append(svg('rect', { x, y, width: w, height: 30, rx: 6, class: `obox ${cls}` }))
    const text = svg('text', { x: x + w / 2, y: y + 20, 'text-anchor': 'middle', class: 'otext', text: label })
    if (key) labels.push([text, key, label])
    s.append(text)
  }
  // Ids are document-wide in the page: each diagram needs its own marker id.
  const id = `ap-arrow-${++markerSeq}`
  const arrow = (x1: number, y1: number, x2: number, y2: number) =>
    s.append(svg('line', { x1, y1, x2, y2, class: 'oarrow', 'marker-end': `url(#${id})` }))
  const defs = svg('defs')
  const marker = svg('marker', {
    id,
    viewBox: '0 0 10 10',
    refX: 9,
    refY: 5,
    markerWidth: 6,
    markerHeight: 6,
    orient: 'auto-start-reverse',
  })
  marker.append(svg('path', { d: 'M 0 0 L 10 5 L 0 10 z', class: 'ohead' }))
  defs.append(marker)
  s.append(defs)
  if (!cross) {
    box(120, 5, 120, 'X', 'src', 'originSentence')
    box(20, 65, 80, 'Q = XW_q', 'q')
    box(140, 65, 80, 'K = XW_k', 'k')
    box(260, 65, 80, 'V = XW_v', 'v')
    arrow(160, 35, 60, 63)
    arrow(180, 35, 180, 63)
    arrow(200, 35, 300, 63)
  } else {
    box(10, 5, 150, 'X_dec', 'q', 'originDecoder')
    box(200, 5, 150, 'X_enc', 'src', 'originEncoder')
    box(20, 65, 100, 'Q = X_dec W_q', 'q')
    box(140, 65, 100, 'K = X_enc W_k', 'k')
    box(255, 65, 100, 'V = X_enc W_v', 'v')
    arrow(70, 35, 70, 63)
    arrow(250, 35, 190, 63)
    arrow(290, 35, 300, 63)
  }
  box(100, 130, 160, 'softmax(QKᵀ/√d_k)·V', 'attn')
  arrow(70, 95, 150, 128)
  arrow(190, 95, 180, 128)
  arrow(300, 95, 215, 128)
  return s
}
