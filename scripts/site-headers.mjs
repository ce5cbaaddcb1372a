// The site's response headers have one table: public/_headers, in the format Netlify and Cloudflare Pages read
// (the build copies it into site/). `npm start` (scripts/serve.mjs) and the tests' servers send what it says for
// each path, as those hosts do, so the page, its threads and the widget embedded from another site behave alike
// on all of them. docs/embedding.md says what to send on hosts that read no such file.
import { readFileSync } from 'node:fs'

/** @typedef {{ pattern: string, headers: Array<[string, string]> }} HeaderRule */

/**
 * A _headers file's rules: a path pattern at the start of a line, then its `Name: value` lines indented;
 * `#` starts a comment line.
 * @param {string} text
 * @returns {HeaderRule[]}
 */
export function parseHeaders(text) {
  /** @type {HeaderRule[]} */
  const rules = []
  for (const [i, line] of text.split('\n').entries()) {
    if (!line.trim() || line.trim().startsWith('#')) continue
    if (!/^\s/.test(line)) {
      rules.push({ pattern: line.trim(), headers: [] })
      continue
    }
    const m = /^\s+([\w-]+):\s*(.*?)\s*$/.exec(line)
    if (!m || !rules.length)
      throw new Error(`_headers line ${i + 1}: expected "  Name: value" under a path, got ${JSON.stringify(line)}`)
    rules[rules.length - 1].headers.push([m[1], m[2]])
  }
  return rules
}

/**
 * Whether a rule's pattern matches a path: `*` stands for any run of characters (slashes too), the rest is literal.
 * @param {string} pattern
 * @param {string} path
 */
function matches(pattern, path) {
  const re = new RegExp(
    `^${pattern
      .split('*')
      .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  )
  return re.test(path)
}

/**
 * The headers for a request path: those of every rule that matches, in the file's order (a header named by two
 * matching rules gets both values, joined by ", ", as Netlify and Cloudflare Pages send it).
 * @param {HeaderRule[]} rules
 * @param {string} path
 * @returns {Record<string, string>}
 */
export function headersFor(rules, path) {
  /** @type {Record<string, string>} */
  const out = {}
  for (const r of rules) {
    if (!matches(r.pattern, path)) continue
    for (const [name, value] of r.headers) out[name] = name in out ? `${out[name]}, ${value}` : value
  }
  return out
}

/** The site's rules (public/_headers). */
export const SITE_HEADER_RULES = parseHeaders(readFileSync(new URL('../public/_headers', import.meta.url), 'utf8'))
