// Small DOM helpers. Text always goes in through textContent or attributes, never as HTML.

import type { Labels, MsgKey, Texts } from './i18n'

type Attrs = Record<string, string | number | boolean | undefined>

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Array<Node | string | null | undefined>
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue
    if (k === 'class') e.className = String(v)
    else if (k === 'text') e.textContent = String(v)
    else e.setAttribute(k, v === true ? '' : String(v))
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c)
  return e
}

/**
 * A control with its name, one <label> wrapping both (so no for/id wiring): `bind` shows message `key` in the name's
 * <span> as text (a `Labels` binder's `bind`: the page's `Texts` or a view's own), so a change of language re-labels it. Stacked (the default):
 * <label class="field"><span class="lbl">name</span>controls</label>; `inline`, within a line of text:
 * <label><span>name</span> controls</label>.
 */
export function labelled<Key extends string>(
  bind: (span: HTMLSpanElement, key: Key) => Element,
  key: Key,
  controls: Node | Array<Node | null>,
  opts: { inline?: boolean } = {},
): HTMLLabelElement {
  const cs = Array.isArray(controls) ? controls : [controls]
  if (opts.inline) return h('label', {}, bind(h('span'), key), ' ', ...cs)
  return h('label', { class: 'field' }, bind(h('span', { class: 'lbl' }), key), ...cs)
}

/** A pipeline panel: <section class="panel" data-panel=name>, a header holding `head`, then the panel's parts. */
export function panelSection(name: string, head: Node[], ...parts: Node[]): HTMLElement {
  return h('section', { class: 'panel', 'data-panel': name }, h('header', { class: 'panel-head' }, ...head), ...parts)
}

const SVG_NS = 'http://www.w3.org/2000/svg'

export function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Attrs = {}): SVGElementTagNameMap[K] {
  const e = document.createElementNS(SVG_NS, tag)
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue
    if (k === 'text') e.textContent = String(v)
    else e.setAttribute(k, String(v))
  }
  return e
}

/**
 * A view's frame, the one header of every view: <section attrs> with its h2 title, for a view beyond the lessons
 * the hint that says so (`beyond`, <p class="hint">), and its lead paragraph (<p class="lead">), each bound in
 * `labels` (the page's `Texts`, or the binder of the view's own table), then the view's parts.
 */
export function viewSection<K extends string>(
  labels: Labels<K>,
  attrs: Attrs,
  keys: { title: K; beyond?: K; lead: K },
  ...parts: Array<Node | string | null>
): HTMLElement {
  const { bind } = labels
  return h(
    'section',
    attrs,
    bind(h('h2'), keys.title),
    keys.beyond ? bind(h('p', { class: 'hint' }), keys.beyond) : null,
    bind(h('p', { class: 'lead' }), keys.lead),
    ...parts,
  )
}

/**
 * The lessons' comparison tables, from message keys (bound in `texts`): a header row of column titles, then
 * rows whose first cell heads the row; `lastClass` marks the last column (the one about attention).
 */
export function compareTable(
  texts: Texts,
  cols: MsgKey[],
  rows: MsgKey[][],
  opts: { attrs?: Attrs; lastClass?: string } = {},
): HTMLElement {
  const { lastClass } = opts
  const cell = (k: MsgKey, last: boolean) => texts.bind(h('td', last && lastClass ? { class: lastClass } : {}), k)
  return h(
    'table',
    { class: 'compare', ...opts.attrs },
    h('thead', {}, h('tr', {}, ...cols.map((k) => texts.bind(h('th', { scope: 'col' }), k)))),
    h(
      'tbody',
      {},
      ...rows.map(([head, ...rest]) =>
        h('tr', {}, texts.bind(h('th', { scope: 'row' }), head), ...rest.map((k, i) => cell(k, i === rest.length - 1))),
      ),
    ),
  )
}

/** How a token is shown: whitespace made visible, so "char" tokens of spaces are not blank. */
export function tokLabel(tok: string): string {
  if (tok === '') return '∅'
  return tok.replace(/ /g, '␣').replace(/\n/g, '⏎').replace(/\t/g, '⇥')
}

/**
 * Runs `fn` in a task after the next frame is painted (a frame callback, then a task): work that can wait for the
 * screen, such as a trace or a measurement after the first poem, stays out of that frame. A hidden tab paints no
 * frame, and runs `fn` when shown again.
 */
export function afterPaint(fn: () => void): void {
  requestAnimationFrame(() => setTimeout(fn, 0))
}

export function prefersReducedMotion(): boolean {
  return typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches
}

/**
 * Calls `seen` when `el` comes within 300 px of the viewport and when it leaves, so that what is off-screen
 * is drawn only when it scrolls near. Null where there is no IntersectionObserver (then all counts as seen).
 */
export function watchSeen(el: Element, seen: (near: boolean) => void): IntersectionObserver | null {
  if (typeof IntersectionObserver !== 'function') return null
  const o = new IntersectionObserver((entries) => seen(entries[entries.length - 1].isIntersecting), {
    rootMargin: '300px 0px',
  })
  o.observe(el)
  return o
}

/** Sets text only when it differs: rewriting equal text still dirties style and layout. */
export function setText(e: Node, s: string): void {
  if (e.textContent !== s) e.textContent = s
}

const sheets = new Map<string, CSSStyleSheet>()

/**
 * Styles `node` with `css` through a constructed stylesheet (adoptedStyleSheets) on the document or
 * shadow root the node lives in — so a host page whose Content-Security-Policy forbids inline styles
 * still styles it, and one sheet object serves every instance. Falls back to a <style> element where
 * constructed sheets are missing. Returns the undo.
 */
export function adoptStyles(node: ShadowRoot | HTMLElement, css: string): () => void {
  const rootNode = node instanceof ShadowRoot ? node : node.getRootNode()
  const target: ShadowRoot | Document = rootNode instanceof ShadowRoot ? rootNode : document
  try {
    let sheet = sheets.get(css)
    if (!sheet) {
      sheet = new CSSStyleSheet()
      sheet.replaceSync(css)
      sheets.set(css, sheet)
    }
    const s = sheet
    if (!target.adoptedStyleSheets.includes(s)) target.adoptedStyleSheets = [...target.adoptedStyleSheets, s]
    return () => {
      // A shadow root's sheet goes with it; the document's may still serve other instances.
      if (target !== document) target.adoptedStyleSheets = target.adoptedStyleSheets.filter((x) => x !== s)
    }
  } catch {
    const style = document.createElement('style')
    style.textContent = css
    node.prepend(style)
    return () => style.remove()
  }
}
