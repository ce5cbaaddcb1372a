// Under ③ (masked scores) with the padding mask: one toggle per key, so that padding is set where its effect
// is shown (the token chips at the top of the page do the same, far above).

import type { Ctx } from '../context'
import { h, setText, tokLabel } from '../dom'
import { toggleIndex } from '../compute/changes'

/** Keys beyond this many are set from the token chips (a long row of toggles would not help). */
const MAX_KEYS = 64

export class PadKeys {
  readonly el: HTMLElement
  private label = h('span', { class: 'lbl' })
  private row = h('div', { class: 'pad-row', role: 'group' })
  private keys: string[] = []

  constructor(private ctx: Ctx) {
    this.el = h('div', { class: 'pad-keys', 'data-pad-keys': '', hidden: true }, this.label, this.row)
  }

  render(ctx: Ctx): void {
    const { state, trace, t } = ctx
    const keys = (state.mode === 'cross' ? trace?.sourceTokens : trace?.tokens) ?? []
    this.el.hidden = state.mask !== 'padding' || keys.length === 0 || keys.length > MAX_KEYS
    if (this.el.hidden) return
    setText(this.label, t('padKeysLabel'))
    this.row.setAttribute('aria-label', t('padKeysLabel'))
    if (keys.join('\u0000') !== this.keys.join('\u0000')) {
      this.keys = [...keys]
      this.row.replaceChildren(
        ...keys.map((tok, j) => {
          const b = h('button', { type: 'button', class: 'btn-small pad-key', 'data-key': j, text: tokLabel(tok) })
          b.addEventListener('click', () => this.ctx.setState({ padKeys: toggleIndex(this.ctx.state.padKeys, j) }))
          return b
        }),
      )
    }
    this.row.querySelectorAll<HTMLButtonElement>('button').forEach((b, j) => {
      b.setAttribute('aria-pressed', String(state.padKeys.includes(j)))
    })
  }
}
