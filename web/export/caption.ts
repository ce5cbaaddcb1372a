// The settings behind the numbers on screen, as one or two lines of text: the caption of an exported PNG
// (sentence, tokenizer, sizes, seed, rule, scale, mask, temperature, heads, edited cells).

import type { Translate } from '../i18n'
import type { PlaygroundState } from '../params'
import { scaleIsOn } from '../compute/options'
import { oneBased } from '../format'

const quote = (s: string) => `“${s.length > 60 ? s.slice(0, 60) + '…' : s}”`

export function settingsCaption(s: PlaygroundState, t: Translate): string[] {
  const sentence =
    s.mode === 'cross'
      ? `${t('source')}: ${quote(s.source)} · ${t('target')}: ${quote(s.target)}`
      : `${t('text')}: ${quote(s.text)}`
  const model = [
    `d_model ${s.dModel}, d_q ${s.dq}, d_k ${s.dk}, d_v ${s.dv}`,
    `${t('seed')} ${s.seed}`,
    `${s.score}, ÷√d_k ${scaleIsOn(s) ? 'on' : 'off'}, ${t('mask')} ${s.mask}, T = ${s.temperature}`,
  ]
  if (s.heads > 1) model.push(`${t('heads')} ${s.heads} (${t('headN')} ${oneBased(s.head)})`)
  if (s.edits.length) model.push(`${s.edits.length} ${t('editsCount')}`)
  return [`${sentence} · ${t('tokenizer')}: ${s.tokenizer}`, model.join(' · ')]
}
