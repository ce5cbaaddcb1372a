// Where Q, K and V come from: self-attention (one sentence) against encoder–decoder attention
// (decoder → Q, encoder → K, V), with a button that sets the playground to each.

import type { Ctx, Panel } from '../context'
import { compareTable, h, viewSection, svg } from '../dom'
import { Texts, type MsgKey } from '../i18n'
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
    // Self-attention beside encoder–decoder attention, each with its picture and a button to try it.
    const cols = ([false, true] as const).map((cross) =>
      h(
        'div',
        { class: 'why-col' },
        tx(h('h3'), cross ? 'originCrossTitle' : 'originSelfTitle'),
        // Scrolls sideways on a narrow phone: focusable, so that a keyboard can scroll it too.
        h(
          'div',
          {
            class: 'origin-fig',
            tabindex: 0,
            role: 'region',
            'data-scroll-label': cross ? 'originCrossTitle' : 'originSelfTitle',
          },
          diagram(cross, this.labels),
        ),
        tx(h('p', { class: 'help' }), cross ? 'originCrossBody' : 'originSelfBody'),
        cross ? tryCross : trySelf,
      ),
    )
    this.el = viewSection(
      this.texts,
      { class: 'panel origin', 'data-panel': 'origin' },
      { title: 'originTitle', lead: 'originIntro' },
      tx(h('p', { class: 'help', 'data-analogy': 'dictionary' }), 'originDictionary'),
      h('div', { class: 'why-cols' }, ...cols),
      h(
        'div',
        { class: 'table-scroll' },
        compareTable(this.texts, ['originColAspect', 'originColAttn', 'originColSelf'], rows),
      ),
    )
  }

  render(ctx: Ctx): void {
    this.texts.apply(ctx.t)
    for (const r of this.el.querySelectorAll<HTMLElement>('[data-scroll-label]'))
      r.setAttribute('aria-label', ctx.t(r.dataset.scrollLabel as MsgKey))
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
  if (!cross) box(120, 5, 120, 'X', 'src', 'originSentence')
  else {
    box(10, 5, 150, 'X_dec', 'q', 'originDecoder')
    box(200, 5, 150, 'X_enc', 'src', 'originEncoder')
  }
  // Q from the decoder's sentence, K and V from the encoder's (one sentence in self-attention)
  const [xq, xkv, w] = cross ? ['X_dec ', 'X_enc ', 100] : ['X', 'X', 80]
  box(20, 65, w, `Q = ${xq}W_q`, 'q')
  box(140, 65, w, `K = ${xkv}W_k`, 'k')
  box(cross ? 255 : 260, 65, w, `V = ${xkv}W_v`, 'v')
  const selfIn = [160, 35, 60, 63, 180, 35, 180, 63, 200, 35, 300, 63]
  const crossIn = [70, 35, 70, 63, 250, 35, 190, 63, 290, 35, 300, 63]
  const into = cross ? crossIn : selfIn
  for (let i = 0; i < into.length; i += 4) arrow(into[i], into[i + 1], into[i + 2], into[i + 3])
  box(100, 130, 160, 'softmax(QKᵀ/√d_k)·V', 'attn')
  arrow(70, 95, 150, 128)
  arrow(190, 95, 180, 128)
  arrow(300, 95, 215, 128)
  return s
}
