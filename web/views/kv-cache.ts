// The KV-cache panel of the Decoding view (data-step="kv-cache"): the decoder's own self-attention K and V rows
// (the decode model's, labelled as its inputs ▶, y_1, …) as a cache holds them, one more per step of the view's one
// stepper; what step t computes with and without the cache (multiply-adds, bytes); the cache's size for real models
// from their published configurations, and what grouped-query heads and a sliding window save.

import type { Ctx } from '../context'
import type { Tensor } from 'attention-playground'
import { h, setText, tokLabel } from '../dom'
import { fmt, grouped } from '../format'
import type { DecodeModel } from '../compute/decode'
import { KV_MODELS, kvCacheBytes, kvStepCost } from '../compute/kv-cache'
import { isTouchScreen, Labels, translate, type T } from '../i18n'
import { MODERN, type ModernKey } from '../i18n/modern'

function bytesText(b: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB']
  let i = 0
  while (b >= 1024 && i < units.length - 1) {
    b /= 1024
    i++
  }
  return `${b >= 100 || i === 0 ? b.toFixed(0) : b.toFixed(1)} ${units[i]}`
}

export class KvCachePanel {
  readonly el: HTMLElement
  private labels = new Labels<ModernKey>()
  private status = h('p', { class: 'kv-counter', role: 'status', 'data-kv': 'status' })
  private cache = h('div', { class: 'table-scroll', tabindex: 0 })
  private counters = h('div', { class: 'table-scroll', tabindex: 0 })
  private sizes = h('div', { class: 'table-scroll', tabindex: 0 })
  private model: DecodeModel | null = null
  /** Rows cached: the decode view's step (1-based). */
  private t = 1
  private ctx: Ctx | null = null

  constructor() {
    const lb = this.labels.el
    this.el = h(
      'section',
      { class: 'kv-cache', 'data-step': 'kv-cache' },
      lb('h3', 'kvTitle'),
      lb('p', 'beyond', 'hint'),
      lb('p', 'kvLead', 'help'),
      this.status,
      this.cache,
      this.counters,
      lb('p', 'kvFormula', 'formula'),
      this.sizes,
      lb('p', 'kvTableNote', 'hint'),
    )
  }

  /** The decode view's model (null: its error is shown above) at its step `t` (0-based): t + 1 rows cached. */
  render(ctx: Ctx, model: DecodeModel | null, t: number): void {
    this.ctx = ctx
    this.model = model
    this.t = t + 1
    const tx = translate(MODERN, ctx.state.lang, isTouchScreen())
    this.labels.apply(tx)
    const m = this.model
    if (!m) return
    this.el.dataset.kvStep = String(this.t)
    setText(this.status, tx('kvStep', { t: this.t }))
    this.cache.replaceChildren(this.cacheTable(m))
    this.counters.replaceChildren(this.counterTable(tx))
    this.sizes.replaceChildren(this.sizeTable(tx))
  }

  /** The cached rows of K and V (first dims), the newest marked; later inputs not yet there. */
  private cacheTable(m: DecodeModel): HTMLElement {
    const show = 4
    const rowOf = (x: Tensor, i: number) =>
      Array.from(x.data.subarray(i * x.shape[1], i * x.shape[1] + show), (v) => fmt(v, 2)).join(', ') + ', …'
    const body = m.inputs.map((tok, i) =>
      h(
        'tr',
        { class: i === this.t - 1 ? 'now' : i >= this.t ? 'later' : undefined, 'data-cached': String(i < this.t) },
        h('th', { scope: 'row', text: tokLabel(tok) }),
        h('td', { text: i < this.t ? rowOf(m.selfK, i) : '' }),
        h('td', { text: i < this.t ? rowOf(m.selfV, i) : '' }),
      ),
    )
    return h(
      'table',
      { class: 'decode-table kv-table', 'data-kv': 'cache' },
      h(
        'thead',
        {},
        h('tr', {}, h('td', {}), h('th', { scope: 'col', text: 'K' }), h('th', { scope: 'col', text: 'V' })),
      ),
      h('tbody', {}, ...body),
    )
  }

  private counterTable(tx: T<ModernKey>): HTMLElement {
    const s = this.ctx!.state
    const c = kvStepCost(this.t, { dModel: s.dModel, dq: s.dq, dk: s.dq, dv: s.dv })
    const row = (label: ModernKey, a: number, b: number, attr: string) =>
      h(
        'tr',
        { 'data-kv-counter': attr },
        h('th', { scope: 'row', text: tx(label) }),
        h('td', { 'data-with': a, text: grouped(a) }),
        h('td', { 'data-without': b, text: grouped(b) }),
      )
    return h(
      'table',
      { class: 'decode-table', 'data-kv': 'counters' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col', text: tx('kvCounters') }),
          h('th', { scope: 'col', text: tx('kvWith') }),
          h('th', { scope: 'col', text: tx('kvWithout') }),
        ),
      ),
      h(
        'tbody',
        {},
        row('kvMacs', c.withMacs, c.withoutMacs, 'macs'),
        row('kvBytes', c.withBytes, c.withoutBytes, 'bytes'),
      ),
    )
  }

  private sizeTable(tx: T<ModernKey>): HTMLElement {
    const cols: ModernKey[] = [
      'kvTableModel',
      'kvTableLayers',
      'kvTableHeads',
      'kvTableKV',
      'kvTableHeadDim',
      'kvTableContext',
      'kvTablePerToken',
    ]
    const body = KV_MODELS.map((m) =>
      h(
        'tr',
        { 'data-model': m.name },
        h(
          'th',
          { scope: 'row' },
          h('a', { class: 'kv-config', href: m.config, target: '_blank', rel: 'noopener', text: m.name }),
        ),
        ...[m.layers, m.heads, m.kvHeads, m.headDim, m.context].map((v) => h('td', { text: String(v) })),
        h('td', { 'data-bytes': kvCacheBytes(m, 1), text: bytesText(kvCacheBytes(m, 1)) }),
        h('td', {
          'data-bytes': kvCacheBytes(m, m.context),
          text:
            `${bytesText(kvCacheBytes(m, m.context))}` +
            (m.window
              ? ` (${tx('kvWindowCap', { model: m.name, w: m.window })}; ` +
                `${tx('kvNoWindow', { size: bytesText(kvCacheBytes({ ...m, window: 0 }, m.context)) })})`
              : '') +
            (m.kvHeads < m.heads
              ? ` · ${tx('kvAsMha', { size: bytesText(kvCacheBytes({ ...m, kvHeads: m.heads, window: 0 }, m.context)) })}`
              : ''),
        }),
      ),
    )
    return h(
      'table',
      { class: 'decode-table', 'data-kv': 'sizes' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ...cols.map((k) => h('th', { scope: 'col', text: tx(k) })),
          h('th', { scope: 'col', text: `${tx('kvTableAt')}` }),
        ),
      ),
      h('tbody', {}, ...body),
    )
  }
}
