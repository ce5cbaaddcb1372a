// The control column: preset, mode, sentences, tokenizer, rule, scaling, mask, "More options" (temperature,
// heads, positions, the other rules and tokenizers: PARAMS' advanced), sizes, seed. Every control writes into the state;
// the playground recomputes.

import type { Ctx, Panel } from '../context'
import { h, setText } from '../dom'
import { oneBased } from '../format'
import type { MsgKey } from '../i18n'
import { PRESETS, PRESET_IDS, matchingPreset, type PresetId } from '../presets'
import {
  LIMITS,
  MASKS,
  POSITIONS,
  RULES,
  TOKENIZERS,
  isAdvanced,
  type MaskKind,
  type PlaygroundState,
  type PositionsChoice,
  type Rule,
  type Tokenizer,
} from '../params'
import { scaleIsOn } from '../compute/options'
import { engineText } from '../compute/segment'
import { RuleNotes } from './rule-notes'
import { POSITION_KEYS } from '../i18n/positions'
import type { View } from '../params'

const TOK_KEYS: Record<Tokenizer, MsgKey> = {
  'word-sorted': 'tokWordSorted',
  word: 'tokWord',
  char: 'tokChar',
  bpe: 'tokBpe',
}
const RULE_KEYS: Record<Rule, MsgKey> = {
  dot: 'ruleDot',
  'scaled-dot': 'ruleScaledDot',
  general: 'ruleGeneral',
  additive: 'ruleAdditive',
  concat: 'ruleConcat',
}
const MASK_KEYS: Record<MaskKind, MsgKey> = {
  none: 'maskNone',
  causal: 'maskCausal',
  padding: 'maskPadding',
  cells: 'maskCells',
}
const PRESET_KEYS: Record<PresetId, MsgKey> = {
  cat: 'presetCat',
  zh: 'presetZh',
  it: 'presetIt',
  seq2seq: 'presetSeq2seq',
}
const HEAD_CHOICES = [1, 2, 3, 4, 6, 8]

export class ControlsPanel implements Panel {
  readonly el: HTMLElement
  private preset = h('select', { name: 'preset' })
  private modeSelf = h('button', { type: 'button', class: 'seg', 'data-mode': 'self' })
  private modeCross = h('button', { type: 'button', class: 'seg', 'data-mode': 'cross' })
  private modeHint = h('p', { class: 'hint' })
  private text = h('textarea', { name: 'text', rows: 2, spellcheck: 'false' })
  private source = h('textarea', { name: 'source', rows: 2, spellcheck: 'false' })
  private target = h('textarea', { name: 'target', rows: 2, spellcheck: 'false' })
  private selfBox: HTMLElement
  private crossBox: HTMLElement
  private tokenizer = h('select', { name: 'tokenizer' })
  /** Shown when a word tokenizer's Chinese / Japanese words come from the browser's word segmenter. */
  private tokNote = h('p', { class: 'hint tok-auto', 'data-note': 'tokenizer', role: 'status', hidden: true })
  private rule = h('select', { name: 'score' })
  private ruleNotes = new RuleNotes()
  private scale = h('input', { type: 'checkbox', name: 'scale' })
  private mask = h('select', { name: 'mask' })
  private maskHint = h('p', { class: 'hint' })
  private temp = h('input', { type: 'range', name: 'temperature', min: -3, max: 3, step: 0.01 })
  private tempOut = h('output', { class: 'val' })
  private tempHint = h('p', { class: 'hint' })
  private positions = h('select', { name: 'positions' })
  private positionsHint = h('p', { class: 'hint', 'data-note': 'positions' })
  private ropeBase = h('input', {
    type: 'number',
    name: 'ropeBase',
    min: LIMITS.ropeBase[0],
    max: LIMITS.ropeBase[1],
    step: 'any',
  })
  private ropeBox: HTMLElement
  private nums: Record<'dModel' | 'dq' | 'dk' | 'dv' | 'seed', HTMLInputElement>
  private heads = h('select', { name: 'heads' })
  private head = h('select', { name: 'head' })
  private headsHint = h('p', { class: 'hint', 'data-note': 'heads' })
  private resetEdits = h('button', { type: 'button', class: 'btn-small', name: 'resetEdits' })
  /** "More options" (PARAMS' advanced): the other rules and tokenizers, heads, temperature and cell editing. */
  private more = h('details', { class: 'more-options', 'data-more': '' })
  private moreHint = h('p', { class: 'hint' })
  private guided = h('button', { type: 'button', class: 'btn-primary', name: 'guided' })
  /** Straight to the attention weights (on a phone they are several screens below the controls). */
  private jump = h('button', { type: 'button', class: 'btn-small jump', name: 'jumpWeights' })
  private labels: Array<[HTMLElement, MsgKey]> = []

  /** `tourView`: the view the guided tour runs on (web/view-table.ts), which its button opens. */
  constructor(
    ctx: Ctx,
    private tourView: View,
  ) {
    const lab = (key: MsgKey, control: HTMLElement, extra?: HTMLElement) => {
      const span = h('span', { class: 'lbl' })
      this.labels.push([span, key])
      return h('label', { class: 'field' }, span, control, extra ?? null)
    }
    this.nums = {
      dModel: h('input', { type: 'number', name: 'dModel', min: LIMITS.dim[0], max: LIMITS.dim[1], step: 1 }),
      dq: h('input', { type: 'number', name: 'dq', min: LIMITS.dim[0], max: LIMITS.dim[1], step: 1 }),
      dk: h('input', { type: 'number', name: 'dk', min: LIMITS.dim[0], max: LIMITS.dim[1], step: 1 }),
      dv: h('input', { type: 'number', name: 'dv', min: LIMITS.dim[0], max: LIMITS.dim[1], step: 1 }),
      seed: h('input', { type: 'number', name: 'seed', min: 0, max: 4294967295, step: 1 }),
    }
    const modeTitle = h('span', { class: 'lbl' })
    this.labels.push([modeTitle, 'mode'])
    this.selfBox = lab('text', this.text)
    this.crossBox = h('div', {}, lab('source', this.source), lab('target', this.target))
    this.ropeBox = lab('ropeBase', this.ropeBase)
    // h2: the column comes right after the page's h1 (a heading level must not be skipped).
    const sizesTitle = h('h2', { class: 'ctl-title' })
    this.labels.push([sizesTitle, 'sizes'])
    this.el = h(
      'aside',
      { class: 'controls', 'data-panel': 'controls' },
      this.guided,
      this.jump,
      lab('preset', this.preset),
      h(
        'div',
        { class: 'field' },
        modeTitle,
        h('div', { class: 'segmented', role: 'group' }, this.modeSelf, this.modeCross),
        this.modeHint,
      ),
      this.selfBox,
      this.crossBox,
      lab('tokenizer', this.tokenizer),
      this.tokNote,
      lab('rule', this.rule),
      this.ruleNotes.el,
      h('label', { class: 'check' }, this.scale, this.labelled('scaleToggle')),
      lab('mask', this.mask, this.maskHint),
      this.more,
      sizesTitle,
      h(
        'div',
        { class: 'sizes' },
        lab('dModel', this.nums.dModel),
        lab('dq', this.nums.dq),
        lab('dk', this.nums.dk),
        lab('dv', this.nums.dv),
      ),
      h('div', { class: 'sizes' }, lab('seed', this.nums.seed)),
      this.resetEdits,
    )
    this.more.append(
      h('summary', {}, this.labelled('moreOptions')),
      this.moreHint,
      lab('temperature', h('div', { class: 'range' }, this.temp, this.tempOut), this.tempHint),
      h('div', { class: 'sizes' }, lab('heads', this.heads), lab('head', this.head)),
      this.headsHint,
      lab('positions', this.positions, this.positionsHint),
      this.ropeBox,
    )
    this.bind(ctx)
  }

  private labelled(key: MsgKey): HTMLElement {
    const s = h('span')
    this.labels.push([s, key])
    return s
  }

  private bind(ctx: Ctx): void {
    const set = (patch: Partial<PlaygroundState>) => ctx.setState(patch)
    this.preset.addEventListener('change', () => {
      const id = this.preset.value as PresetId
      if (PRESETS[id]) set({ ...PRESETS[id] })
    })
    this.modeSelf.addEventListener('click', () => set({ mode: 'self' }))
    this.modeCross.addEventListener('click', () => set({ mode: 'cross' }))
    this.text.addEventListener('input', () => set({ text: this.text.value }))
    this.source.addEventListener('input', () => set({ source: this.source.value }))
    this.target.addEventListener('input', () => set({ target: this.target.value }))
    this.tokenizer.addEventListener('change', () =>
      set({ tokenizer: this.tokenizer.value as PlaygroundState['tokenizer'] }),
    )
    this.rule.addEventListener('change', () =>
      set({ score: this.rule.value as PlaygroundState['score'], scale: 'auto' }),
    )
    this.scale.addEventListener('change', () => set({ scale: this.scale.checked ? 'on' : 'off' }))
    this.mask.addEventListener('change', () => set({ mask: this.mask.value as PlaygroundState['mask'] }))
    this.positions.addEventListener('change', () => set({ positions: this.positions.value as PositionsChoice }))
    this.ropeBase.addEventListener('change', () => {
      const v = Number(this.ropeBase.value)
      if (Number.isFinite(v) && v >= LIMITS.ropeBase[0] && v <= LIMITS.ropeBase[1]) set({ ropeBase: v })
      else this.ropeBase.value = String(ctx.state.ropeBase)
    })
    this.temp.addEventListener('input', () =>
      set({ temperature: Number((10 ** (Number(this.temp.value) / 3)).toFixed(3)) }),
    )
    for (const [key, input] of Object.entries(this.nums) as Array<[keyof typeof this.nums, HTMLInputElement]>) {
      input.addEventListener('change', () => {
        const v = Number(input.value)
        if (Number.isInteger(v) && v >= Number(input.min) && v <= Number(input.max)) set({ [key]: v })
        else input.value = String(ctx.state[key])
      })
    }
    this.heads.addEventListener('change', () => set({ heads: Number(this.heads.value), head: 0 }))
    this.head.addEventListener('change', () => set({ head: Number(this.head.value) }))
    this.resetEdits.addEventListener('click', () => set({ edits: [] }))
    this.guided.addEventListener('click', () => set({ guided: ctx.state.guided ? 0 : 1, view: this.tourView }))
    this.jump.addEventListener('click', () => jumpToWeights(this.el))
    this.more.addEventListener('toggle', () => ctx.setMoreOptions(this.more.open))
  }

  render(ctx: Ctx): void {
    const { t, state } = ctx
    for (const [e, key] of this.labels) setText(e, t(key))
    fillSelect(this.preset, [
      ['custom', t('presetCustom')],
      ...PRESET_IDS.map((id) => [id, t(PRESET_KEYS[id])] as [string, string]),
    ])
    this.preset.value = matchingPreset(state) ?? 'custom'
    setText(this.modeSelf, t('modeSelf'))
    setText(this.modeCross, t('modeCross'))
    this.modeSelf.setAttribute('aria-pressed', String(state.mode === 'self'))
    this.modeCross.setAttribute('aria-pressed', String(state.mode === 'cross'))
    setText(this.modeHint, state.mode === 'self' ? t('modeSelfHint') : t('modeCrossHint'))
    this.selfBox.hidden = state.mode !== 'self'
    this.crossBox.hidden = state.mode !== 'cross'
    setValue(this.text, state.text)
    setValue(this.source, state.source)
    setValue(this.target, state.target)
    this.more.open = ctx.moreOptions
    setText(this.moreHint, t('moreOptionsHint'))
    // Folded values stay out of the selects until the fold opens (the one in use is always offered).
    const offered = (name: string, v: string, current: string) =>
      ctx.moreOptions || v === current || !isAdvanced(name, v)
    fillSelect(
      this.tokenizer,
      TOKENIZERS.filter((k) => offered('tokenizer', k, state.tokenizer)).map((k) => [k, t(TOK_KEYS[k])]),
    )
    this.tokenizer.value = state.tokenizer
    const sentences = state.mode === 'self' ? [state.text] : [state.source, state.target]
    this.tokNote.hidden = sentences.every((x) => engineText(x, state.tokenizer) === x)
    setText(this.tokNote, t('tokSegmented'))
    fillSelect(
      this.rule,
      RULES.filter((k) => offered('score', k, state.score)).map((k) => [k, t(RULE_KEYS[k])]),
    )
    this.rule.value = state.score
    this.scale.checked = scaleIsOn(state)
    this.ruleNotes.render(ctx)
    // Cross attention has no causal option: the decoder's causal mask is its own self-attention's.
    fillSelect(
      this.mask,
      MASKS.filter((k) => !(state.mode === 'cross' && k === 'causal')).map((k) => [k, t(MASK_KEYS[k])]),
    )
    this.mask.value = state.mask
    setText(
      this.maskHint,
      state.mask === 'causal'
        ? t('maskCausalHint')
        : state.mask === 'padding'
          ? t('maskPaddingHint')
          : state.mask === 'cells'
            ? t('maskCellsHint')
            : '',
    )
    this.maskHint.hidden = state.mask === 'none'
    this.temp.value = String(3 * Math.log10(state.temperature))
    setText(this.tempOut, `T = ${state.temperature.toFixed(2)}`)
    setText(this.tempHint, t('temperatureHint'))
    for (const key of Object.keys(this.nums) as Array<keyof typeof this.nums>)
      setValue(this.nums[key], String(state[key]))
    fillSelect(
      this.heads,
      [...new Set([...HEAD_CHOICES, state.heads])].sort((a, b) => a - b).map((n) => [String(n), String(n)]),
    )
    this.heads.value = String(state.heads)
    fillSelect(
      this.head,
      Array.from({ length: state.heads }, (_, i) => [String(i), `${t('headN')} ${oneBased(i)}`]),
    )
    this.head.value = String(state.head)
    this.head.disabled = state.heads === 1
    this.headsHint.hidden = state.heads === 1
    setText(this.headsHint, state.heads > 1 ? `${t('headsNote')} ${t('countedFromOne')}` : '')
    this.renderPositions(ctx)
    this.resetEdits.hidden = state.edits.length === 0
    setText(this.resetEdits, `${t('resetEdits')} (${state.edits.length} ${t('editsCount')})`)
    setText(this.guided, state.guided ? t('guidedExit') : t('guidedStart'))
    setText(this.jump, t('jumpWeights'))
  }

  private renderPositions({ t, state }: Ctx): void {
    fillSelect(
      this.positions,
      POSITIONS.map((k) => [k, t(POSITION_KEYS[k])]),
    )
    this.positions.value = state.positions
    setText(this.positionsHint, t('positionsHint'))
    this.ropeBox.hidden = state.positions !== 'rope'
    setValue(this.ropeBase, String(state.ropeBase))
  }
}

/** Scrolls the weights panel (the long view for a long text) to the top of the screen and focuses it. */
function jumpToWeights(from: HTMLElement): void {
  const root = from.getRootNode() as Document | ShadowRoot
  const target =
    root.querySelector<HTMLElement>('[data-step="weights"]:not([hidden])') ??
    root.querySelector<HTMLElement>('[data-panel="long"]:not([hidden])')
  if (!target) return
  target.tabIndex = -1
  target.scrollIntoView({ block: 'start' })
  target.focus({ preventScroll: true })
}

function fillSelect(sel: HTMLSelectElement, options: Array<[string, string]>): void {
  const same =
    sel.options.length === options.length &&
    options.every(([v, l], i) => sel.options[i].value === v && sel.options[i].textContent === l)
  if (same) return
  sel.replaceChildren(...options.map(([v, l]) => h('option', { value: v, text: l })))
}

function setValue(input: HTMLInputElement | HTMLTextAreaElement, v: string): void {
  if (input.value !== v) input.value = v
}
