// Beside the rule selector: how the chosen rule relates to the lesson's three rules, and the lesson's
// own table of the two kinds of attention (一般注意力 / 自注意力), which are categories, not rules.

import type { Ctx } from '../context'
import { compareTable, h, setText } from '../dom'
import { Texts, type MsgKey } from '../i18n'
import type { Rule } from '../params'

const NOTE_KEYS: Record<Rule, MsgKey> = {
  dot: 'ruleNoteDot',
  'scaled-dot': 'ruleNoteScaledDot',
  general: 'ruleNoteBilinear',
  additive: 'ruleNoteAdditive',
  concat: 'ruleNoteConcat',
}

const TABLE: Array<[MsgKey, MsgKey, MsgKey]> = [
  ['kindGeneral', 'kindGeneralWhen', 'kindGeneralRules'],
  ['kindSelf', 'kindSelfWhen', 'kindSelfRules'],
]

export class RuleNotes {
  readonly el: HTMLElement
  private note = h('p', { class: 'hint', 'data-rule-note': '' })
  private summary = h('summary')
  private kindNote = h('p', { class: 'hint', 'data-lesson-note': 'kinds' })
  private texts = new Texts()

  constructor() {
    const table = compareTable(this.texts, ['kindCol', 'kindWhenCol', 'kindRulesCol'], TABLE, {
      attrs: { 'data-lesson-table': 'kinds' },
    })
    this.texts.bind(this.summary, 'kindTitle')
    this.texts.bind(this.kindNote, 'kindNote')
    this.el = h(
      'div',
      { class: 'rule-notes' },
      this.note,
      h('details', { class: 'lesson-kinds' }, this.summary, h('div', { class: 'table-scroll' }, table), this.kindNote),
    )
  }

  render(ctx: Ctx): void {
    this.texts.apply(ctx.t)
    setText(this.note, ctx.t(NOTE_KEYS[ctx.state.score]))
  }
}

const SHORT_KEYS: Record<Rule, MsgKey> = {
  dot: 'ruleShortDot',
  'scaled-dot': 'ruleShortScaledDot',
  general: 'ruleShortGeneral',
  additive: 'ruleShortAdditive',
  concat: 'ruleShortConcat',
}

/** The rule's name in the UI language (the engine id stays in URLs, code and file names). */
export function ruleName(t: Ctx['t'], rule: Rule): string {
  return t(SHORT_KEYS[rule])
}
