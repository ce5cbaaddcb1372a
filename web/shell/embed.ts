// The Embed box (the page's header, beside "copy link"): the panels to show, then the current view as an
// iframe of the page and as an <attention-playground> tag, each to copy. Everything is text in textareas.

import { h, setText } from '../dom'
import type { MsgKey, Translate } from '../i18n'
import type { PlaygroundState } from '../params'
import { iframeSnippet, linkOnly, widgetScript, widgetSnippet } from '../export/embed'

/** The panels a teacher may pick, in page order, with their titles. */
const CHOICES: Array<[string, MsgKey]> = [
  ['tokens', 'tokensPanel'],
  ['embeddings', 'stepEmbeddings'],
  ['Wq', 'stepWq'],
  ['Wk', 'stepWk'],
  ['Wv', 'stepWv'],
  ['Q', 'stepQ'],
  ['K', 'stepK'],
  ['V', 'stepV'],
  ['scores', 'stepScores'],
  ['scaledScores', 'stepScaledScores'],
  ['maskedScores', 'stepMaskedScores'],
  ['weights', 'stepWeights'],
  ['output', 'stepOutput'],
  ['lines', 'linesPanel'],
  ['arith', 'arithPanel'],
]

export interface Embed {
  button: HTMLButtonElement
  box: HTMLElement
  render(t: Translate, state: PlaygroundState): void
}

export function createEmbed(pageUrl: () => string, initialSteps: readonly string[] | undefined): Embed {
  const button = h('button', { type: 'button', class: 'btn-small', name: 'embed', 'aria-expanded': 'false' })
  const heading = h('h2', { class: 'embed-title' })
  const legend = h('legend')
  const checks = CHOICES.map(([name]) =>
    h('input', { type: 'checkbox', name: 'embedStep', value: name, checked: !!initialSteps?.includes(name) }),
  )
  const labels = CHOICES.map(() => h('span'))
  const fieldset = h(
    'fieldset',
    { class: 'embed-steps' },
    legend,
    ...checks.map((c, i) => h('label', { class: 'check' }, c, labels[i])),
  )
  const iframe = h('textarea', { name: 'embedIframe', readonly: true, rows: 3, spellcheck: 'false' })
  const widget = h('textarea', { name: 'embedWidget', readonly: true, rows: 4, spellcheck: 'false' })
  const iframeLbl = h('span', { class: 'lbl' })
  const widgetLbl = h('span', { class: 'lbl' })
  const stepsHint = h('p', { class: 'hint' })
  const widgetHint = h('p', { class: 'hint' })
  const box = h(
    'section',
    { class: 'ap-embed', 'data-embed': '', hidden: true },
    heading,
    fieldset,
    stepsHint,
    h('label', { class: 'field' }, iframeLbl, iframe),
    h('label', { class: 'field' }, widgetLbl, widget),
    widgetHint,
  )
  let last: { t: Translate; state: PlaygroundState } | null = null
  const fill = () => {
    if (!last || box.hidden) return
    const { t, state } = last
    const steps = checks.filter((c) => c.checked).map((c) => c.value)
    const url = pageUrl()
    iframe.value = iframeSnippet(url, steps, t('title'))
    widget.value = widgetSnippet(state, steps, widgetScript(url))
    setText(widgetHint, t('embedWidgetHint') + (linkOnly(state) ? ' ' + t('embedLinkOnly') : ''))
  }
  button.addEventListener('click', () => {
    box.hidden = !box.hidden
    button.setAttribute('aria-expanded', String(!box.hidden))
    fill()
  })
  for (const c of checks) c.addEventListener('change', fill)
  for (const ta of [iframe, widget]) ta.addEventListener('focus', () => ta.select())
  return {
    button,
    box,
    render(t, state) {
      last = { t, state }
      setText(button, t('embed'))
      setText(heading, t('embedTitle'))
      setText(legend, t('embedSteps'))
      CHOICES.forEach(([name, key], i) => setText(labels[i], `${t(key)} (${name})`))
      setText(stepsHint, t('embedStepsHint'))
      setText(iframeLbl, t('embedIframe'))
      setText(widgetLbl, t('embedWidget'))
      fill()
    },
  }
}
