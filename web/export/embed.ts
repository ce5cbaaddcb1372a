// "Embed": the current view as an iframe of the page and as an <attention-playground> tag, with the panels to
// show (`steps`). Pure text builders; the Embed box (shell/embed.ts) shows them.

import { PARAMS, toParams, type PlaygroundState } from '../state'

/** URL parameters the widget reads as attributes (PARAMS rows with one; `lang` goes first, `steps` from the box). */
const WIDGET_PARAMS = PARAMS.filter((p) => p.attr !== null && p.name !== 'lang' && p.name !== 'steps')
/** What a link carries and the widget does not (PARAMS rows without an attribute). */
const LINK_ONLY = PARAMS.filter((p) => p.attr === null).map((p) => p.name)

/**
 * The widget's script as the built site serves it: `widget/widget.js` beside the page's index.html, with the
 * engine's `attention.wasm` one folder above it (the npm package's `dist/widget/widget.js` and `dist/attention.wasm`,
 * copied into the site by vite.config.ts). `pageUrl`: the page's address.
 */
export function widgetScript(pageUrl: string): string {
  return new URL('widget/widget.js', pageUrl).href
}

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

/**
 * What a learner reads where the tag stands if its script never loads (offline, blocked, JavaScript off): a line and
 * a link to the same view on the page. The element's shadow root hides it once the widget runs.
 */
export interface WidgetFallback {
  text: string
  link: string
  /** The page's link for this view (embedUrl(pageUrl, []): every panel). */
  href: string
}

/**
 * The tag for state `s` with the panels `steps`, loading the widget from `script` (widgetScript(pageUrl)), with
 * `fallback` inside it as light-DOM content.
 */
export function widgetSnippet(
  s: PlaygroundState,
  steps: readonly string[],
  script: string,
  fallback?: WidgetFallback,
): string {
  const p = toParams(s)
  const attrs = [`lang="${s.lang}"`]
  for (const { name, attr: a } of WIDGET_PARAMS) {
    const v = p.get(name)
    if (v !== null) attrs.push(`${a!}="${attr(v)}"`)
  }
  if (steps.length) attrs.push(`steps="${attr(steps.join(','))}"`)
  const inside = fallback
    ? `\n  <p class="ap-fallback">${attr(fallback.text)} <a href="${attr(fallback.href)}">${attr(fallback.link)}</a></p>\n`
    : ''
  return `<script type="module" src="${attr(script)}"></script>\n<attention-playground ${attrs.join(' ')}>${inside}</attention-playground>`
}

/** Whether the state holds something only the link carries (edited cells, padded keys, masked cells, the shown head). */
export function linkOnly(s: PlaygroundState): boolean {
  const p = toParams(s)
  return LINK_ONLY.some((k) => p.has(k))
}
