// "Embed": the current view as an iframe of the page and as an <attention-playground> tag, with the panels to
// show (`steps`). Pure text builders; the Embed box (shell/embed.ts) shows them.

import { toParams, type PlaygroundState } from '../state'

/** URL parameters the widget reads as attributes (the attribute is the name in lower case). */
const WIDGET_PARAMS = [
  'mode',
  'text',
  'source',
  'target',
  'tokenizer',
  'score',
  'scale',
  'mask',
  'dModel',
  'dq',
  'dk',
  'dv',
  'seed',
  'heads',
  'temperature',
  'guided',
  'view',
  'src',
  'weights',
] as const
/** What a link carries and the widget does not (its attributes have no such names). */
const LINK_ONLY = ['head', 'pad', 'cells', 'edits'] as const

/** The script the tag needs: where a course site serves the npm package's dist/widget/widget.js. */
export const WIDGET_SCRIPT = '/static/attention-playground/dist/widget/widget.js'

function attr(v: string): string {
  return v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

/** The page's link with `steps` set (or removed when every panel is shown). */
export function embedUrl(pageUrl: string, steps: readonly string[]): string {
  const u = new URL(pageUrl)
  if (steps.length) u.searchParams.set('steps', steps.join(','))
  else u.searchParams.delete('steps')
  return u.href
}

export function iframeSnippet(pageUrl: string, steps: readonly string[], title: string): string {
  const height = steps.length && steps.length <= 2 ? 560 : 720
  return `<iframe src="${attr(embedUrl(pageUrl, steps))}" title="${attr(title)}" width="100%" height="${height}" style="border:0" loading="lazy"></iframe>`
}

export function widgetSnippet(s: PlaygroundState, steps: readonly string[]): string {
  const p = toParams(s)
  const attrs = [`lang="${s.lang}"`]
  for (const name of WIDGET_PARAMS) {
    const v = p.get(name)
    if (v !== null) attrs.push(`${name.toLowerCase()}="${attr(v)}"`)
  }
  if (steps.length) attrs.push(`steps="${attr(steps.join(','))}"`)
  return `<script type="module" src="${WIDGET_SCRIPT}"></script>\n<attention-playground ${attrs.join(' ')}></attention-playground>`
}

/** Whether the state holds something only the link carries (edited cells, padded keys, masked cells, the shown head). */
export function linkOnly(s: PlaygroundState): boolean {
  const p = toParams(s)
  return LINK_ONLY.some((k) => p.has(k))
}
