// The KV-cache panel of the Decoding view (data-step="kv-cache"): the target's K and V rows as a decoder caches them,
// one more per step; what step t computes with and without the cache (multiply-adds, bytes); the cache's size for
// real models from their published configurations, and what grouped-query heads and a sliding window save.

import type { Ctx, Panel } from '../context'
import type { Engine, Trace } from 'attention-playground'
import { h, setText, tokLabel } from '../dom'
import { fmt } from '../format'
import { ModernLabels, modernText, type ModernKey, type ModernText } from './modern-strings'

/** Published configurations, from each model's config.json on Hugging Face (`config`): GPT-2's n_layer, n_head, n_embd
 * / n_head, n_ctx; the others' num_hidden_layers, num_attention_heads, num_key_value_heads, hidden_size /
 * num_attention_heads, max_position_embeddings and Mistral's sliding_window. Checked against those files. */
export const KV_MODELS = [
  {
    name: 'GPT-2 small',
    layers: 12,
    heads: 12,
    kvHeads: 12,
    headDim: 64,
    context: 1024,
    window: 0,
    config: 'https://huggingface.co/openai-community/gpt2/blob/main/config.json',
  },
  {
    name: 'LLaMA-2-7B',
    layers: 32,
    heads: 32,
    kvHeads: 32,
    headDim: 128,
    context: 4096,
    window: 0,
    config: 'https://huggingface.co/meta-llama/Llama-2-7b-hf/blob/main/config.json',
  },
  {
    name: 'LLaMA-3-8B',
    layers: 32,
    heads: 32,
    kvHeads: 8,
    headDim: 128,
    context: 8192,
    window: 0,
    config: 'https://huggingface.co/meta-llama/Meta-Llama-3-8B/blob/main/config.json',
  },
  {
    name: 'Mistral-7B',
    layers: 32,
    heads: 32,
    kvHeads: 8,
    headDim: 128,
    context: 32768,
    window: 4096,
    config: 'https://huggingface.co/mistralai/Mistral-7B-v0.1/blob/main/config.json',
  },
] as const

/** 2 · layers · kvHeads · headDim · tokens · bytes (the window caps the tokens kept). */
export function kvCacheBytes(
  m: { layers: number; kvHeads: number; headDim: number; window: number },
  tokens: number,
  bytes = 2,
): number {
  const kept = m.window > 0 ? Math.min(tokens, m.window) : tokens
  return 2 * m.layers * m.kvHeads * m.headDim * kept * bytes
}

/** Step t (t tokens so far, 1-based) of a one-layer, one-head decoder: with the cache, one new q, k, v row and one
 * query against t cached rows; without, all t rows of q, k, v and every causal row's attention again. */
export function kvStepCost(t: number, d: { dModel: number; dq: number; dk: number; dv: number }) {
  const proj = d.dModel * (d.dq + d.dk + d.dv)
  const rowAttn = (rows: number) => rows * (d.dk + d.dv) // scores over `rows` keys, then the weighted sum of V
  const f = 4 // float32
  return {
    withMacs: proj + rowAttn(t),
    withoutMacs: t * proj + ((t * (t + 1)) / 2) * (d.dk + d.dv),
    // with: read the t cached rows of K and V, write the new one; without: write all t rows, read them per row
    withBytes: (t + 1) * (d.dk + d.dv) * f,
    withoutBytes: (t + (t * (t + 1)) / 2) * (d.dk + d.dv) * f,
  }
}

function bytesText(b: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB']
  let i = 0
  while (b >= 1024 && i < units.length - 1) {
    b /= 1024
    i++
  }
  return `${b >= 100 || i === 0 ? b.toFixed(0) : b.toFixed(1)} ${units[i]}`
}

export class KvCachePanel implements Panel {
  readonly el: HTMLElement
  private labels = new ModernLabels()
  private back = h('button', { type: 'button', name: 'kvBack', text: '◀' })
  private next = h('button', { type: 'button', name: 'kvNext', text: '▶' })
  private status = h('p', { class: 'decode-counter', role: 'status', 'data-kv': 'status' })
  private cache = h('div', { class: 'table-scroll', tabindex: 0 })
  private counters = h('div', { class: 'table-scroll', tabindex: 0 })
  private sizes = h('div', { class: 'table-scroll', tabindex: 0 })
  private trace: Trace | null = null
  private key = ''
  private t = 1
  private ctx: Ctx | null = null

  constructor(private engine: Engine) {
    const lb = this.labels.el
    this.el = h(
      'section',
      { class: 'kv-cache', 'data-step': 'kv-cache' },
      lb('h3', 'kvTitle'),
      lb('p', 'beyond', 'hint'),
      lb('p', 'kvLead', 'help'),
      h('div', { class: 'decode-ctrl', role: 'group' }, this.back, this.next, this.status),
      this.cache,
      this.counters,
      lb('p', 'kvFormula', 'formula'),
      this.sizes,
      lb('p', 'kvTableNote', 'hint'),
    )
    this.back.addEventListener('click', () => this.go(this.t - 1))
    this.next.addEventListener('click', () => this.go(this.t + 1))
  }

  render(ctx: Ctx): void {
    this.ctx = ctx
    const s = ctx.state
    const key = JSON.stringify([s.target, s.dModel, s.dq, s.dv, s.seed])
    if (key !== this.key) {
      this.key = key
      try {
        // The target as a decoder's self-attention sees it: causal, one head; K and V are what the cache holds.
        this.trace = this.engine.run({
          text: s.target,
          tokenizer: 'word',
          dModel: s.dModel,
          dq: s.dq,
          dk: s.dq,
          dv: s.dv,
          seed: s.seed,
          mask: 'causal',
        })
      } catch {
        this.trace = null // the decode view above shows the error
      }
      this.t = 1
    }
    this.draw()
  }

  private go(t: number): void {
    if (!this.trace) return
    this.t = Math.max(1, Math.min(this.trace.tokens.length, t))
    this.draw()
  }

  private draw(): void {
    const ctx = this.ctx
    if (!ctx) return
    const tx = modernText(ctx.state.lang)
    this.labels.apply(tx)
    const tr = this.trace
    if (!tr) return
    const n = tr.tokens.length
    this.back.disabled = this.t <= 1
    this.next.disabled = this.t >= n
    this.el.dataset.kvStep = String(this.t)
    setText(this.status, tx('kvStep', { t: this.t }))
    this.cache.replaceChildren(this.cacheTable(tr))
    this.counters.replaceChildren(this.counterTable(tx))
    this.sizes.replaceChildren(this.sizeTable(tx))
  }

  /** The cached rows of K and V (first dims), the newest marked; later tokens not yet there. */
  private cacheTable(tr: Trace): HTMLElement {
    const show = 4
    const rowOf = (m: Trace['K'], i: number) =>
      Array.from(m.data.subarray(i * m.shape[1], i * m.shape[1] + show), (x) => fmt(x, 2)).join(', ') + ', …'
    const body = tr.tokens.map((tok, i) =>
      h(
        'tr',
        { class: i === this.t - 1 ? 'now' : i >= this.t ? 'later' : undefined, 'data-cached': String(i < this.t) },
        h('th', { scope: 'row', text: `${i} ${tokLabel(tok)}` }),
        h('td', { text: i < this.t ? rowOf(tr.K, i) : '' }),
        h('td', { text: i < this.t ? rowOf(tr.V, i) : '' }),
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

  private counterTable(tx: ModernText): HTMLElement {
    const s = this.ctx!.state
    const c = kvStepCost(this.t, { dModel: s.dModel, dq: s.dq, dk: s.dq, dv: s.dv })
    const row = (label: ModernKey, a: number, b: number, attr: string) =>
      h(
        'tr',
        { 'data-kv-counter': attr },
        h('th', { scope: 'row', text: tx(label) }),
        h('td', { 'data-with': a, text: a.toLocaleString('en-US') }),
        h('td', { 'data-without': b, text: b.toLocaleString('en-US') }),
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

  private sizeTable(tx: ModernText): HTMLElement {
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
