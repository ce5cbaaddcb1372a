// The machinery of the string tables (docs/design.md, "Adding a string"): the languages, the one table type every
// feature's strings are typed against, the one translator (a key's `…Touch` twin under touch, {name} placeholders
// filled) and the one label binder. A leaf: it imports nothing of web/. Strings are plain text: callers put them
// into the page with textContent or attributes, never as HTML.

export const LANGS = ['zh', 'en'] as const
export type Lang = (typeof LANGS)[number]

/** One language's strings of a feature: every key of the feature, each a plain-text string. */
export type Messages<K extends string> = Readonly<Record<K, string>>

/** A feature's strings in every language. Its zh is typed against its en's keys, so neither can miss a key. */
export type Table<K extends string> = Readonly<Record<Lang, Messages<K>>>

/** The values of a string's {name} placeholders. */
export type Vars = Readonly<Record<string, string | number>>

/** A table's strings in one language: `t(key)`, or `t(key, { n: 3 })` to fill the string's `{n}`. */
export type T<K extends string> = (key: K, vars?: Vars) => string

/** Fills `text`'s {name} placeholders from `vars` (a name not in `vars` stays as written). */
export function fill(text: string, vars: Vars): string {
  return Object.entries(vars).reduce((s, [k, v]) => s.split(`{${k}}`).join(String(v)), text)
}

/**
 * `table`'s strings in `lang`, falling back to English (a language the page does not know reads English).
 * `touch`: a touch screen without hover, where the strings that say "click" or "hover" have a `…Touch` twin
 * saying "tap" (the twin is used when there is one).
 */
export function translate<K extends string>(table: Table<K>, lang: Lang, touch = false): T<K> {
  const strings: Messages<K> = table[lang] ?? table.en
  const twin = (key: K): string | undefined => (touch ? strings[`${key}Touch` as K] : undefined)
  return (key, vars) => {
    const s = twin(key) ?? strings[key] ?? table.en[key] ?? key
    return vars ? fill(s, vars) : s
  }
}

/** A touch screen without hover (a phone or tablet): its strings say "tap". */
export function isTouchScreen(): boolean {
  return typeof matchMedia === 'function' && matchMedia('(hover: none) and (pointer: coarse)').matches
}

/** How a bound element shows its string: its text, or attribute `attr` when one was given. */
export type Write = (e: Element, text: string, attr: string | null) => void

const writeText: Write = (e, text, attr) => {
  if (attr) e.setAttribute(attr, text)
  // Only when it differs: rewriting equal text still dirties style and layout.
  else if (e.textContent !== text) e.textContent = text
}

/**
 * Remembers which element shows which of a table's strings, so a change of language re-labels them all at once:
 * `bind` when the element is built, `apply(t)` on every render (or language change). `write` shows a string
 * (default: as the element's text, or in the attribute given to `bind`).
 */
export class Labels<K extends string> {
  private nodes: Array<[Element, K, string | null]> = []

  constructor(private readonly write: Write = writeText) {}

  /** Shows string `key` in `e` (its text, or attribute `attr`) from now on; returns `e`. An arrow, so it can be passed alone. */
  readonly bind = <E extends Element>(e: E, key: K, attr: string | null = null): E => {
    this.nodes.push([e, key, attr])
    return e
  }

  /** A new <tag> (with class `cls`) showing `key`. */
  readonly el = <N extends 'h2' | 'h3' | 'p' | 'span'>(tag: N, key: K, cls?: string): HTMLElementTagNameMap[N] => {
    const e = document.createElement(tag)
    if (cls) e.className = cls
    return this.bind(e, key)
  }

  apply(t: T<K>): void {
    for (const [e, key, attr] of this.nodes) this.write(e, t(key), attr)
  }
}
