// The Embed box (the page's header, beside "copy link"): the panels to show, then the current view as an
// iframe of the page and as an <attention-playground> tag, each with its Copy button. Everything is text in
// textareas.

import { h, setText } from '../dom'
import type { MsgKey, Translate } from '../i18n'
import type { PlaygroundState } from '../params'
import { embedUrl, iframeSnippet, linkOnly, widgetScript, widgetSnippet } from '../export/embed'

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

/** One snippet: its label, the text (read-only, selected on focus) and its Copy button. */
interface Snippet {
  el: HTMLElement
  /** Sets the text; a changed text takes back the button's "✓ Copied". */
  set(text: string): void
  render(t: Translate): void
}

/**
 * A snippet box named `name` (the textarea's name; the button is `copy` + Name). Copying writes the clipboard; where
 * the browser refuses it (an insecure origin), the text is selected to copy by hand and `say` tells how.
 */
function snippet(
  name: 'embedIframe' | 'embedWidget',
  copyLabel: MsgKey,
  rows: number,
  say: (key: MsgKey | null) => void,
): Snippet {
  const ta = h('textarea', { name, readonly: true, rows, spellcheck: 'false' })
  const lbl = h('span', { class: 'lbl' })
  const button = h('button', {
    type: 'button',
    class: 'btn-small',
    name: `copy${name[0].toUpperCase()}${name.slice(1)}`,
  })
  let copied = false
  let t: Translate | null = null
  const label = () => t && setText(button, copied ? `✓ ${t('embedCopied')}` : t(copyLabel))
  ta.addEventListener('focus', () => ta.select())
  button.addEventListener('click', () => {
    navigator.clipboard.writeText(ta.value).then(
      () => {
        copied = true
        say(null)
        label()
      },
      () => {
        ta.focus()
        ta.select()
        say('embedCopyFailed')
      },
    )
  })
  return {
    el: h('div', { class: 'field' }, h('label', { class: 'field' }, lbl, ta), button),
    set(text) {
      if (ta.value !== text) copied = false
      ta.value = text
      label()
    },
    render(tr) {
      t = tr
      setText(lbl, tr(name))
      label()
    },
  }
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
  let last: { t: Translate; state: PlaygroundState } | null = null
  const copyStatus = h('p', { class: 'hint', role: 'status' })
  const say = (key: MsgKey | null) => setText(copyStatus, key && last ? last.t(key) : '')
  const iframe = snippet('embedIframe', 'embedCopyIframe', 3, say)
  const widget = snippet('embedWidget', 'embedCopyWidget', 6, say)
  const stepsHint = h('p', { class: 'hint' })
  const widgetHint = h('p', { class: 'hint' })
  const box = h(
    'section',
    { class: 'ap-embed', 'data-embed': '', hidden: true },
    heading,
    fieldset,
    stepsHint,
    iframe.el,
    widget.el,
    widgetHint,
    copyStatus,
  )
  const fill = () => {
    if (!last || box.hidden) return
    const { t, state } = last
    const steps = checks.filter((c) => c.checked).map((c) => c.value)
    const url = pageUrl()
    iframe.set(iframeSnippet(url, steps, t('title')))
    // The tag carries a line a learner reads if its script never loads, linking to this view on the page.
    const fallback = { text: t('embedFallback'), link: t('embedFallbackLink'), href: embedUrl(url, []) }
    widget.set(widgetSnippet(state, steps, widgetScript(url), fallback))
    setText(widgetHint, t('embedWidgetHint') + (linkOnly(state) ? ' ' + t('embedLinkOnly') : ''))
  }
  button.addEventListener('click', () => {
    box.hidden = !box.hidden
    button.setAttribute('aria-expanded', String(!box.hidden))
    fill()
  })
  for (const c of checks) c.addEventListener('change', fill)
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
      iframe.render(t)
      widget.render(t)
      fill()
    },
  }
}
