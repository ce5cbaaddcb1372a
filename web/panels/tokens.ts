// Tokenization: the tokens as focusable chips (tab to one, arrows to the next), their ids, the
// vocabulary and, for BPE, the merges in the order they were learned.

import type { Ctx, Panel } from '../context'
import { h, panelSection, setText, tokLabel } from '../dom'
import { toggleIndex } from '../compute/changes'
import { matchingPreset } from '../presets'

const MAX_CHIPS = 160

export class TokensPanel implements Panel {
  private title = h('h3')
  private formula = h('div', { class: 'formula' })
  private help = h('p', { class: 'help' })
  private badge = h('p', { class: 'badge' })
  private rows = h('div', { class: 'tok-rows' })
  private vocabTitle = h('h4')
  private vocab = h('ol', { class: 'vocab', start: 0 })
  private mergesBox = h('div', { class: 'merges' })
  private chips: HTMLButtonElement[][] = []
  private key = ''
  readonly el = panelSection(
    'tokens',
    [this.title],
    this.formula,
    this.help,
    this.badge,
    this.rows,
    h('div', { class: 'vocab-box' }, this.vocabTitle, this.vocab),
    this.mergesBox,
  )
  private shape = ''

  render(ctx: Ctx): void {
    const { t, trace, state } = ctx
    setText(this.title, t('tokensPanel'))
    setText(this.formula, t('tokensFormula'))
    setText(this.help, state.mask === 'padding' ? `${t('tokensHelp')} ${t('maskPaddingHint')}` : t('tokensHelp'))
    const course = matchingPreset(state) === 'cat' && state.edits.length === 0
    this.badge.hidden = !course
    if (course) setText(this.badge, `✓ ${t('courseBadge')}`)
    if (!trace) return
    const cross = state.mode === 'cross' && !!trace.sourceTokens
    const lines: TokenLine[] = cross
      ? [
          { label: t('encoderTokens'), tokens: trace.sourceTokens!, ids: trace.sourceTokenIds ?? [], side: 'k' },
          { label: t('decoderTokens'), tokens: trace.tokens, ids: trace.tokenIds, side: 'q' },
        ]
      : [{ label: '', tokens: trace.tokens, ids: trace.tokenIds, side: 'both' }]
    // Rebuilding chips when nothing about them changed would only cost style and layout work; when only
    // their words changed (typing), the same chips take the new words.
    const shape = JSON.stringify([
      state.lang,
      state.mode,
      state.mask,
      state.padKeys,
      state.tokenizer,
      lines.map((l) => l.tokens.length),
    ])
    const key = JSON.stringify([
      shape,
      trace.tokens,
      trace.tokenIds,
      trace.sourceTokens,
      trace.vocab.length,
      trace.merges?.length,
    ])
    if (key === this.key) {
      this.highlight(ctx)
      return
    }
    this.key = key
    if (shape === this.shape) {
      this.retext(lines)
      this.renderVocab(ctx)
      this.highlight(ctx)
      return
    }
    this.shape = shape
    this.rows.replaceChildren()
    this.chips = []
    for (const line of lines) {
      // A button cannot be a list item: each chip sits in its own item; the row's label stays outside the list.
      const row = h('div', { class: 'tok-row' })
      if (line.label) row.append(h('span', { class: 'tok-row-label', text: line.label }))
      const list = h('div', { class: 'tok-list', role: 'list' })
      row.append(list)
      const chips: HTMLButtonElement[] = []
      // Thousands of chips would cost more layout than the whole computation: the first ones and a count.
      line.tokens.slice(0, MAX_CHIPS).forEach((tok, i) => {
        const chip = tokenChip(ctx, line, i, tok, chips)
        chips.push(chip)
        list.append(h('span', { class: 'tok-item', role: 'listitem' }, chip))
      })
      if (line.tokens.length > MAX_CHIPS) {
        row.append(
          h('span', {
            class: 'tok-more',
            text: t('tokensMore', { n: line.tokens.length - MAX_CHIPS }),
          }),
        )
      }
      this.chips.push(chips)
      this.rows.append(row)
    }
    this.renderVocab(ctx)
    this.highlight(ctx)
  }

  /** The chips of each line take the new tokens and ids (same count, same marks). */
  private retext(lines: TokenLine[]): void {
    lines.forEach((line, n) => {
      this.chips[n]?.forEach((chip, i) => {
        setText(chip.querySelector('.tok-text')!, tokLabel(line.tokens[i]))
        setText(chip.querySelector('.tok-id')!, String(line.ids[i] ?? ''))
      })
    })
  }

  /** The vocabulary and, for bpe, the learned merges. */
  private renderVocab(ctx: Ctx): void {
    const { t, state } = ctx
    const trace = ctx.trace!
    this.vocabTitle.textContent = `${t('vocabulary')} (${trace.vocab.length})`
    const words = trace.vocab.slice(0, 400)
    if (this.vocab.children.length === words.length) {
      // The same number of words: the items stay, their words change.
      words.forEach((w, id) => setText(this.vocab.children[id].lastChild!, tokLabel(w)))
    } else {
      this.vocab.replaceChildren(
        ...words.map((w, id) =>
          h('li', {}, h('span', { class: 'vid', text: String(id) }), h('span', { class: 'vword', text: tokLabel(w) })),
        ),
      )
    }
    if (this.mergesBox.childNodes.length) this.mergesBox.replaceChildren()
    if (state.tokenizer === 'bpe') {
      const merges = trace.merges ?? []
      this.mergesBox.append(h('h4', { text: `${t('merges')} (${merges.length})` }))
      if (!merges.length) this.mergesBox.append(h('p', { class: 'help', text: t('noMerges') }))
      const ol = h('ol', { class: 'merge-list' })
      for (const [a, b] of merges.slice(0, 300)) {
        ol.append(
          h(
            'li',
            {},
            h('code', { text: tokLabel(a) }),
            ' + ',
            h('code', { text: tokLabel(b) }),
            ' → ',
            h('code', { text: tokLabel(a + b) }),
          ),
        )
      }
      this.mergesBox.append(ol)
    }
  }

  highlight(ctx: Ctx): void {
    const cross = ctx.state.mode === 'cross' && this.chips.length === 2
    this.chips.forEach((chips, line) => {
      const pos = cross ? (line === 0 ? ctx.hl.k : ctx.hl.q) : (ctx.hl.q ?? ctx.hl.k)
      chips.forEach((c, i) => c.classList.toggle('hl', pos === i))
    })
  }
}

type TokenLine = { label: string; tokens: string[]; ids: number[]; side: 'q' | 'k' | 'both' }

/** One token's chip: hover and focus highlight it everywhere, a click pads it, arrows move along the row. */
function tokenChip(ctx: Ctx, line: TokenLine, i: number, tok: string, chips: HTMLButtonElement[]): HTMLButtonElement {
  const { t, state } = ctx
  const isKey = line.side !== 'q'
  const padded = state.mask === 'padding' && isKey && state.padKeys.includes(i)
  const chip = h(
    'button',
    { class: 'tok' + (padded ? ' pad' : ''), type: 'button', 'data-i': i, 'data-side': line.side },
    // The name is the visible text plus hidden position and "id" words (an aria-label would hide the visible text).
    h('span', { class: 'sr-only', text: `${i}: ` }),
    h('span', { class: 'tok-text', text: tokLabel(tok) }),
    h('span', { class: 'sr-only', text: ` (${t('tokIdWord')} ` }),
    h('span', { class: 'tok-id', text: String(line.ids[i] ?? '') }),
    h('span', { class: 'sr-only', text: ')' }),
  )
  if (padded) chip.append(h('span', { class: 'tok-pad', text: t('padMark') }))
  const enter = () => ctx.setHighlight(line.side === 'k' ? null : i, line.side === 'q' ? null : i)
  chip.addEventListener('mouseenter', enter)
  chip.addEventListener('focus', enter)
  chip.addEventListener('mouseleave', () => ctx.setHighlight(null, null))
  chip.addEventListener('blur', () => ctx.setHighlight(null, null))
  chip.addEventListener('click', () => {
    if (state.mask === 'padding' && isKey) ctx.setState({ padKeys: toggleIndex(ctx.state.padKeys, i) })
  })
  chip.addEventListener('keydown', (ev) => {
    const d = ev.key === 'ArrowRight' ? 1 : ev.key === 'ArrowLeft' ? -1 : 0
    if (!d) return
    ev.preventDefault()
    chips[Math.min(chips.length - 1, Math.max(0, i + d))]?.focus()
  })
  return chip
}
