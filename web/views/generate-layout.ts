// The elements of the "Write a poem" view (views/generate.ts) and how one step fills them: the model's controls, the
// first line and the sampler, the stepper, then the poem, the bars, the heads, the KV cache, the residual stream and
// the teaching text. Strings are bound to the view's own table (i18n/generate.ts).

import type { LanguageModel } from 'attention-playground'
import { h, labelled, setText, viewSection } from '../dom'
import { grouped } from '../format'
import type { Labels, T } from '../i18n'
import type { GenerateKey } from '../i18n/generate'
import { POEM_DEFAULTS, kvCacheAt, poemText, residualAt, type HeadMeasure, type Poem } from '../compute/generate'
import { barsFor, charLabel, headFigures, poemGrid, residualTable, scoresSentence } from './generate-draw'

type Tr = T<GenerateKey>
type Lb = Labels<GenerateKey>

export function createControls(lb: Lb) {
  const d = POEM_DEFAULTS
  const file = h('input', { type: 'file', accept: '.safetensors,application/octet-stream', name: 'poemModelFile' })
  lb.bind(file, 'genOpen', 'aria-label')
  return {
    file,
    fileLabel: h('label', { class: 'btn-small model-open' }, lb.el('span', 'genOpen'), file),
    sampleBtn: h('button', { type: 'button', class: 'btn-small', hidden: true }),
    status: h('p', { class: 'model-status', role: 'status' }),
    error: h('p', { class: 'model-error', role: 'alert', hidden: true }),
    info: h('p', { class: 'model-info', 'data-generate': 'model' }),
    meta: h('p', { class: 'model-info' }),
    note: h('p', { class: 'model-sample-note help' }),
    prompt: h('input', { type: 'text', name: 'poemPrompt', spellcheck: 'false', autocomplete: 'off', maxlength: 64 }),
    presets: h('div', { class: 'gen-presets' }),
    temperature: h('input', {
      type: 'range',
      name: 'poemTemperature',
      min: 0,
      max: 2,
      step: 0.05,
      value: d.temperature,
    }),
    temperatureOut: h('output', {}),
    topK: h('input', { type: 'number', name: 'poemTopK', min: 0, step: 1, value: d.topK, inputmode: 'numeric' }),
    topP: h('input', { type: 'range', name: 'poemTopP', min: 0.05, max: 1, step: 0.05, value: d.topP }),
    topPOut: h('output', {}),
    seed: h('input', {
      type: 'number',
      name: 'poemSeed',
      min: 0,
      max: 4294967295,
      step: 1,
      value: d.seed,
      inputmode: 'numeric',
    }),
    again: h('button', { type: 'button', class: 'btn-small' }),
    promptError: h('p', { class: 'model-error', role: 'alert', hidden: true }),
  }
}

export type Controls = ReturnType<typeof createControls>

export function createOutputs(_lb: Lb) {
  return {
    back: h('button', { type: 'button', name: 'poemBack' }),
    next: h('button', { type: 'button', name: 'poemNext' }),
    play: h('button', { type: 'button', name: 'poemPlay', 'aria-pressed': 'false' }),
    counter: h('p', { class: 'gen-counter', role: 'status' }),
    body: h('div', { class: 'gen-body', hidden: true }),
    poem: h('div', { class: 'gen-poem gen-grid', 'data-poem': '' }),
    reason: h('p', { class: 'help' }),
    bars: h('div', { class: 'gen-bars-box' }),
    barsLead: h('p', { class: 'help' }),
    scores: h('p', { class: 'help gen-scores', 'data-generate': 'scores' }),
    heads: h('div', { class: 'gen-heads' }),
    kv: h('p', { class: 'help', 'data-generate': 'kv' }),
    kvLink: h('a', { href: '?view=decode', 'data-view-link': 'decode' }),
    residualTitle: h('h3'),
    residualLead: h('p', { class: 'help' }),
    residual: h('div', { class: 'table-scroll', tabindex: 0 }),
  }
}

export type Outputs = ReturnType<typeof createOutputs>

/** The view's section: controls first, then the step's panels, then the teaching text. */
export function layout(lb: Lb, ui: Controls, out: Outputs): HTMLElement {
  ui.sampleBtn.append(lb.el('span', 'genOpenSample'))
  ui.again.append(lb.el('span', 'genAgain'))
  out.kvLink.append(lb.el('span', 'genKvLink'))
  const field = (key: GenerateKey, ...c: HTMLElement[]) => labelled(lb.bind, key, c)
  out.body.append(
    h(
      'section',
      { class: 'gen-part', 'data-generate': 'poem' },
      lb.el('h3', 'genPoemTitle'),
      out.poem,
      lb.el('p', 'genPoemLegend', 'hint'),
      out.reason,
    ),
    h('section', { class: 'gen-part', 'data-generate': 'bars' }, lb.el('h3', 'genBarsTitle'), out.barsLead, out.bars),
    h(
      'section',
      { class: 'gen-part', 'data-generate': 'heads' },
      lb.el('h3', 'genHeadsTitle'),
      lb.el('p', 'genHeadsLead', 'help'),
      out.scores,
      roleLegendBound(lb),
      out.heads,
    ),
    h(
      'section',
      { class: 'gen-part', 'data-generate': 'kv-cache' },
      lb.el('h3', 'genKvTitle'),
      out.kv,
      h('p', {}, out.kvLink),
    ),
    h('section', { class: 'gen-part', 'data-generate': 'residual' }, out.residualTitle, out.residualLead, out.residual),
  )
  return viewSection(
    lb,
    { class: 'panel generate', 'data-step': 'generate' },
    { title: 'genTitle', beyond: 'genBeyond', lead: 'genLead' },
    h('div', { class: 'model-load' }, ui.fileLabel, lb.el('span', 'genDrop', 'model-drop-text'), ui.sampleBtn),
    ui.status,
    ui.error,
    ui.info,
    ui.meta,
    ui.note,
    h(
      'div',
      { class: 'gen-inputs' },
      field('genPrompt', ui.prompt),
      h('div', { class: 'gen-preset-box' }, lb.el('p', 'genPresets', 'hint'), ui.presets),
    ),
    h(
      'div',
      { class: 'gen-sampler' },
      field('genTemperature', ui.temperature, ui.temperatureOut),
      field('genTopK', ui.topK),
      field('genTopP', ui.topP, ui.topPOut),
      field('genSeed', ui.seed),
      ui.again,
    ),
    ui.promptError,
    h('div', { class: 'gen-ctrl', role: 'group' }, out.back, out.next, out.play, out.counter),
    out.body,
    teach(lb),
  )
}

/** The legend of the outlined places, re-labelled with the language (its spans are bound). */
function roleLegendBound(lb: Lb): HTMLElement {
  const keys: Array<[string, GenerateKey]> = [
    ['role-previousLine', 'genLegendPreviousLine'],
    ['role-previousChar', 'genLegendPreviousChar'],
    ['role-lineEnd', 'genLegendLineEnd'],
    ['query', 'genLegendQuery'],
  ]
  return h('p', { class: 'gen-legend' }, ...keys.map(([cls, k]) => lb.bind(h('span', { class: `gen-key ${cls}` }), k)))
}

/** The three parts of the teaching text (their questions are in the quiz under the view). */
function teach(lb: Lb): HTMLElement {
  const part = (title: GenerateKey, text: GenerateKey, name: string) =>
    h('section', { class: 'gen-teach-part', 'data-teach': name }, lb.bind(h('h4'), title), lb.el('p', text))
  return h(
    'section',
    { class: 'gen-part gen-teach', 'data-generate': 'teach' },
    lb.el('h3', 'genTeachTitle'),
    part('genTeachAttnTitle', 'genTeachAttn', 'attention-mlp'),
    part('genTeachPosTitle', 'genTeachPos', 'positions'),
    part('genTeachMaskTitle', 'genTeachMask', 'mask'),
  )
}

/** Fills the step's panels: the poem after k + 1 characters, the bars, the heads, the KV cache, the residual stream. */
export function drawStep(
  out: Outputs,
  poem: Poem,
  k: number,
  position: number,
  model: LanguageModel,
  heads: HeadMeasure | null,
  headsNote: string,
  t: Tr,
  choose: (position: number) => void,
): void {
  const st = poem.steps[k]
  out.poem.replaceChildren(...poemGrid(poem, k + 1, position, t, choose))
  out.poem.dataset.poem = poemText(poem, k + 1)
  out.poem.dataset.written = String(k + 1)
  setText(out.barsLead, t('genBarsLead', { vocab: grouped(model.config.vocabSize) }))
  out.bars.replaceChildren(...barsFor(st, poem, t))
  setText(out.scores, heads ? scoresSentence(heads, t) : headsNote)
  out.heads.replaceChildren(...headFigures(poem, st, heads, t))
  const kv = kvCacheAt(model, st)
  setText(
    out.kv,
    t('genKvText', {
      k: k + 1,
      rows: kv.rows,
      layers: kv.layers,
      heads: kv.heads,
      d: kv.dModel,
      bytes: `${grouped(kv.bytes)} B`,
    }),
  )
  setText(out.residualTitle, t('genResidualTitle', { char: charLabel(poem.tokens[position]), pos: position }))
  setText(out.residualLead, t('genResidualLead', { d: model.config.dModel }))
  // The trace comes a task after the poem (views/generate.ts): until then the table is empty.
  if (!poem.trace) return out.residual.replaceChildren()
  out.residual.replaceChildren(residualTable(residualAt(poem, position), t))
  if (position === st.position - 1) out.residual.append(h('p', { class: 'hint', text: t('genResidualLast') }))
}
