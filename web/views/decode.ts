// The "Decoding" view: the seq2seq loop step by step as a decoder computes it (its numbers in compute/decode.ts).
// Play / step / back; the step is the state's `step` (1-based, in the URL and the widget's attribute), so a step
// can be linked. The source and target are the page's own (cross mode's) sentences, editable here too. The
// tensors outside checks read carry data-tensor (selfWeights, crossQuery, crossWeights, context): their numbers
// are in the element's text (4 decimals, ASCII minus) and, exact, in data-values.

import type { Ctx, Panel } from '../context'
import type { Engine, Tensor } from 'attention-playground'
import { h, labelled, setText, tokLabel, viewSection } from '../dom'
import { fmt, shapeOf } from '../format'
import { Texts, type MsgKey } from '../i18n'
import { engineErrorText } from '../engine-errors'
import { StepPlayer } from './player'
import { decodeModel, type DecodeModel, type DecodeStep } from '../compute/decode'
import { KvCachePanel } from './kv-cache'

/** A number as the decode tables show it: 4 decimals, ASCII minus (so the text parses as numbers). */
function num(v: number): string {
  return fmt(v, 4).replace('−', '-')
}

/** A row of numbers after its label; `tensor` marks it for outside checks (exact values in data-values). */
function numberRow(label: string, data: ArrayLike<number>, attrs: Record<string, string> = {}): HTMLElement {
  return h(
    'tr',
    { ...attrs, 'data-values': attrs['data-tensor'] ? Array.from(data).join(',') : undefined },
    h('th', { scope: 'row', text: label }),
    ...Array.from(data, (v) => h('td', { text: num(v) })),
  )
}

/** A weight's cell, shaded light enough that dark text keeps its contrast (CSSOM, so CSP allows it). */
function weightCell(w: number): HTMLElement {
  const td = h('td', { text: num(w) })
  td.style.background = `rgba(28, 100, 209, ${(0.45 * Math.max(0, Math.min(1, w))).toFixed(3)})`
  return td
}

export class DecodeView implements Panel {
  readonly el: HTMLElement
  private texts = new Texts()
  private intro = h('p', { class: 'help' })
  private source = h('input', { type: 'text', name: 'decodeSource', spellcheck: 'false' })
  private target = h('input', { type: 'text', name: 'decodeTarget', spellcheck: 'false' })
  private back = h('button', { type: 'button', name: 'decodeBack' })
  private step = h('button', { type: 'button', name: 'decodeStep' })
  private play = h('button', { type: 'button', name: 'decodePlay', 'aria-pressed': 'false' })
  private counter = h('p', { class: 'decode-counter', role: 'status' })
  private strip = h('div', { class: 'decode-strip' })
  // Focusable: a keyboard user can scroll a wide table.
  private selfBox = h('div', { class: 'table-scroll', tabindex: 0 })
  private selfShape = h('p', { class: 'shape' })
  private normBox = h('div', { class: 'table-scroll', tabindex: 0 })
  private normShape = h('p', { class: 'shape' })
  private crossBox = h('div', { class: 'table-scroll', tabindex: 0 })
  private crossShape = h('p', { class: 'shape' })
  private contextBox = h('div', { class: 'table-scroll', tabindex: 0 })
  private contextShape = h('p', { class: 'shape' })
  private error = h('p', { class: 'banner decode-error', role: 'alert', hidden: true })
  private model: DecodeModel | null = null
  private key = ''
  /** The step shown (0-based); the state's `step` is 1-based. */
  private t = 0
  private player = new StepPlayer(
    () => (this.model ? { at: this.t, last: this.model.steps.length - 1 } : null),
    (k) => this.go(k),
    () => this.draw(),
  )
  private ctx: Ctx | null = null
  private kv: KvCachePanel

  constructor(
    private engine: Engine,
    ctx: Ctx,
  ) {
    this.kv = new KvCachePanel()
    const tx = this.texts.bind
    this.el = viewSection(
      this.texts,
      { class: 'panel decode', 'data-step': 'decode' },
      { title: 'decodeTitle', lead: 'decodeIntro' },
      h('details', { class: 'decode-more' }, tx(h('summary'), 'decodeIntroSummary'), this.intro),
      h('div', { class: 'decode-inputs' }, labelled(tx, 'source', this.source), labelled(tx, 'target', this.target)),
      h('div', { class: 'decode-ctrl', role: 'group' }, this.back, this.step, this.play, this.counter),
      this.error,
      this.strip,
      tx(h('h3'), 'decodeSelfTitle'),
      tx(h('p', { class: 'help' }), 'decodeSelfHelp'),
      this.selfShape,
      this.selfBox,
      tx(h('h3'), 'decodeNormTitle'),
      tx(h('p', { class: 'help' }), 'decodeNormHelp'),
      this.normShape,
      this.normBox,
      tx(h('h3'), 'decodeCrossTitle'),
      tx(h('p', { class: 'help' }), 'decodeCrossHelp'),
      this.crossShape,
      this.crossBox,
      tx(h('h3'), 'decodeContextTitle'),
      this.contextShape,
      this.contextBox,
      tx(h('p', { class: 'hint' }), 'decodeQueryNote'),
      this.kv.el,
    )
    this.source.addEventListener('input', () => ctx.setState({ source: this.source.value }))
    this.target.addEventListener('input', () => ctx.setState({ target: this.target.value }))
    this.back.addEventListener('click', () => {
      this.player.stop()
      this.go(this.t - 1)
    })
    this.step.addEventListener('click', () => {
      this.player.stop()
      this.go(this.t + 1)
    })
    this.ctx = ctx
    this.play.addEventListener('click', () => this.player.toggle())
  }

  render(ctx: Ctx): void {
    this.ctx = ctx
    const { state, t } = ctx
    this.texts.apply(t)
    if (this.source.value !== state.source) this.source.value = state.source
    if (this.target.value !== state.target) this.target.value = state.target
    const key = JSON.stringify([
      state.source,
      state.target,
      state.tokenizer,
      state.dModel,
      state.dq,
      state.dv,
      state.seed,
    ])
    if (key !== this.key) {
      this.key = key
      try {
        this.model = decodeModel(this.engine, state)
        this.error.hidden = true
      } catch (e) {
        this.error.hidden = false
        this.error.textContent = engineErrorText(state.lang, e)
      }
    }
    if (this.model) this.t = Math.max(0, Math.min(this.model.steps.length - 1, state.step - 1))
    this.draw()
  }

  /** Shows step t (0-based) through the state, so the URL (or the widget's step) follows. */
  private go(t: number): void {
    if (!this.model || !this.ctx) return
    const step = Math.max(0, Math.min(this.model.steps.length - 1, t)) + 1
    if (step !== this.ctx.state.step) this.ctx.setState({ step })
  }

  dispose(): void {
    this.player.stop()
  }

  private draw(): void {
    const ctx = this.ctx,
      m = this.model
    if (!ctx || !m) return
    const { t: tr } = ctx
    const t = this.t
    const st = m.steps[t]
    this.drawControls(m, t, tr)
    this.drawStrip(m, t, tr)
    this.drawSelf(m, st, t, tr)
    this.drawNorm(m, st, t, tr)
    this.drawCross(m, st, tr)
    this.drawContext(m, st, t)
    this.kv.render(ctx, m, t)
  }

  /** The buttons, the step counter and the intro (which names the sizes). */
  private drawControls(m: DecodeModel, t: number, tr: Ctx['t']): void {
    const n = m.sourceTokens.length
    setText(this.back, tr('decodeBack'))
    setText(this.step, tr('decodeNext'))
    setText(this.play, this.player.playing ? tr('whyPause') : tr('whyPlay'))
    this.play.setAttribute('aria-pressed', String(this.player.playing))
    this.back.disabled = t === 0
    this.step.disabled = t >= m.steps.length - 1
    setText(
      this.counter,
      tr('decodeCounter', {
        n: t + 1,
        total: m.steps.length,
        input: tokLabel(m.inputs[t]),
        next: tokLabel(m.targets[t]),
      }),
    )
    setText(this.intro, tr('decodeIntroMore', { dq: m.dq, dk: m.dk, n, d: m.dModel }))
  }

  /** The shifted input and what has been produced so far. */
  private drawStrip(m: DecodeModel, t: number, tr: Ctx['t']): void {
    const row = (label: MsgKey, toks: string[], kind: string) =>
      h(
        'div',
        { class: 'decode-row', 'data-decode': kind },
        h('span', { class: 'lbl', text: tr(label) }),
        ...toks.map((tok, i) =>
          h('span', {
            class: 'decode-tok' + (i === t ? ' now' : i > t ? ' later' : ''),
            'aria-current': i === t ? 'step' : undefined,
            text: i > t && kind === 'outputs' ? '?' : tokLabel(tok),
          }),
        ),
      )
    this.strip.replaceChildren(row('decodeInputs', m.inputs, 'inputs'), row('decodeOutputs', m.targets, 'outputs'))
  }

  /** ① causal self-attention over inputs 0..t: the mask grows by one column per step. */
  private drawSelf(m: DecodeModel, st: DecodeStep, t: number, tr: Ctx['t']): void {
    setText(this.selfShape, `${shapeOf([t + 1, m.dq])} · ${shapeOf([m.dk, t + 1])} → ${shapeOf([t + 1, t + 1])}`)
    this.selfBox.replaceChildren(
      this.matrix(st.selfWeights, m.inputs.slice(0, t + 1), m.inputs.slice(0, t + 1), 'self', tr),
    )
  }

  /** ② the residual and LayerNorm: the row that asks the source. */
  private drawNorm(m: DecodeModel, st: DecodeStep, t: number, tr: Ctx['t']): void {
    setText(
      this.normShape,
      `${shapeOf([1, m.dModel])} + ${shapeOf([1, m.dModel])} → LayerNorm → ${shapeOf([1, m.dModel])}`,
    )
    const x = tokLabel(m.inputs[t])
    this.normBox.replaceChildren(
      h(
        'table',
        { class: 'decode-table', 'data-decode': 'norm' },
        h(
          'tbody',
          {},
          numberRow(
            `x ${x}`,
            st.residual.data.map((v, i) => v - st.selfOutput.data[i]),
          ),
          numberRow(tr('decodeSelfRow'), st.selfOutput.data),
          numberRow(tr('decodeResidualRow'), st.residual.data, { 'data-decode': 'residual' }),
          numberRow('LayerNorm', st.normed.data, { 'data-decode': 'normed' }),
        ),
      ),
    )
  }

  /** ② one query row against every source key. */
  private drawCross(m: DecodeModel, st: DecodeStep, tr: Ctx['t']): void {
    const n = m.sourceTokens.length
    setText(this.crossShape, `Q ${shapeOf([1, 1, m.dq])} · Kᵀ ${shapeOf([1, m.dk, n])} → ${shapeOf([1, 1, n])}`)
    const query = h(
      'table',
      { class: 'decode-table', 'data-decode': 'query' },
      h('tbody', {}, numberRow('q = LayerNorm · W_q', st.query.data, { 'data-tensor': 'crossQuery' })),
    )
    const cross = h(
      'table',
      { class: 'decode-table', 'data-decode': 'cross' },
      h('thead', {}, h('tr', {}, h('td'), ...m.sourceTokens.map((s) => h('th', { scope: 'col', text: tokLabel(s) })))),
      h(
        'tbody',
        {},
        numberRow(tr('decodeScoresRow'), st.crossScores.data, { 'data-decode': 'crossScores' }),
        h(
          'tr',
          {
            'data-decode': 'crossWeights',
            'data-tensor': 'crossWeights',
            'data-values': Array.from(st.crossWeights.data).join(','),
          },
          h('th', { scope: 'row', text: tr('decodeWeightsRow') }),
          ...Array.from(st.crossWeights.data, (v) => weightCell(v)),
        ),
      ),
    )
    this.crossBox.replaceChildren(query, cross)
  }

  /** ③ the context vector C_t. */
  private drawContext(m: DecodeModel, st: DecodeStep, t: number): void {
    setText(this.contextShape, `C = attention_q ${shapeOf([1, 1, m.dv])}`)
    this.contextBox.replaceChildren(
      h(
        'table',
        { class: 'decode-table', 'data-decode': 'context' },
        h('tbody', {}, numberRow(`C${t + 1}`, st.context.data, { 'data-tensor': 'context' })),
      ),
    )
  }

  private matrix(w: Tensor, rows: string[], cols: string[], kind: string, tr: Ctx['t']): HTMLElement {
    const nc = cols.length
    return h(
      'table',
      {
        class: 'decode-table',
        'data-decode': kind,
        'data-tensor': kind === 'self' ? 'selfWeights' : undefined,
        'data-values': kind === 'self' ? Array.from(w.data).join(',') : undefined,
      },
      h('thead', {}, h('tr', {}, h('td'), ...cols.map((c) => h('th', { scope: 'col', text: tokLabel(c) })))),
      h(
        'tbody',
        {},
        ...rows.map((r, i) =>
          h(
            'tr',
            { class: i === rows.length - 1 ? 'now' : '' },
            h('th', { scope: 'row', text: tokLabel(r) }),
            ...Array.from({ length: nc }, (_, j) =>
              j > i
                ? h('td', { class: 'masked', title: tr('legendMasked'), text: '0' })
                : weightCell(w.data[i * nc + j]),
            ),
          ),
        ),
      ),
    )
  }
}
