// docs/glossary.md: one zh term per concept. Every zh string of web/i18n/ (every table and translation the folder
// holds, found by tests/support/string-tables.ts; web-i18n checks that no Chinese text lives elsewhere in web/) uses the
// glossary's term and none of the words it lists under "not"; every glossary term is one the page really uses.
import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { MESSAGES } from '../../web/i18n'
import { ZH } from '../support/string-tables'

const md = readFileSync(new URL('../../docs/glossary.md', import.meta.url), 'utf8')

/** The markdown tables of the page, each as its rows' cells (header and rule left out). */
const tables = md
  .split(/\n(?!\|)/)
  .map((block) => block.split('\n').filter((l) => l.startsWith('| ')))
  .filter((ls) => ls.length > 2)
  .map((ls) =>
    ls.slice(2).map((l) =>
      l
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    ),
  )
const list = (cell: string) =>
  cell
    .split(',')
    .map((w) => w.trim())
    .filter(Boolean)

const rows = tables[0].map(([concept, zh, en, not]) => ({
  concept,
  zh,
  en,
  // A word, or /a pattern/ where the word alone is right in another sense (角度 is an angle too).
  not: list(not).map((w) => (w.startsWith('/') && w.endsWith('/') ? new RegExp(w.slice(1, -1)) : w)),
}))

/** "Terms checked in pairs": where the English says `en`, the Chinese says `zh` (the `except` phrases aside). */
const pairs = tables[1].map(([en, zh, except]) => ({ en, zh, except: list(except) }))

const uses = (text: string, w: string | RegExp) => (typeof w === 'string' ? text.includes(w) : w.test(text))

const zhStrings: Array<[string, string]> = ZH.map((s) => [s.where, s.zh])

describe('docs/glossary.md against the zh strings', () => {
  it('has one row per concept, each with a zh and an en term', () => {
    expect(rows.length).toBeGreaterThanOrEqual(20)
    expect(new Set(rows.map((r) => r.zh)).size).toBe(rows.length)
    for (const r of rows) expect(r.zh && r.en, r.concept).toBeTruthy()
  })

  it('no zh string uses a word the glossary rules out', () => {
    const found: string[] = []
    for (const r of rows)
      for (const w of r.not)
        for (const [key, text] of zhStrings) if (uses(text, w)) found.push(`${key}: “${String(w)}” (use ${r.zh})`)
    expect(found).toEqual([])
  })

  it('where a string’s English says a paired word, its Chinese says the term', () => {
    expect(pairs.length).toBeGreaterThan(0)
    const found: string[] = []
    for (const p of pairs) {
      const word = new RegExp(`\\b${p.en}s?\\b`, 'i')
      for (const s of ZH) {
        if (s.en === null) continue
        const en = p.except.reduce((t, x) => t.replace(new RegExp(x.replace(/[+=]/g, '\\$&'), 'gi'), ''), s.en)
        if (word.test(en) && !s.zh.includes(p.zh)) found.push(`${s.where}: “${p.en}” in en, no ${p.zh} in zh`)
      }
    }
    expect(found).toEqual([])
  })

  it('every glossary term is used by the page', () => {
    const all = zhStrings.map(([, v]) => v).join('\n')
    expect(rows.filter((r) => !all.includes(r.zh)).map((r) => r.zh)).toEqual([])
  })

  it('维度 is a size (d_model, d_k …) only: never an axis (轴) or an aspect (方面)', () => {
    const found = zhStrings.filter(([, v]) => v.includes('维度'))
    expect(found.length).toBeGreaterThan(0)
    // The Sizes heading and the Embed hint's list of settings name the sizes; elsewhere a d_… follows the word, or
    // it is a head's or the hidden state's size (每头维度, 隐藏维度: head_dim, hidden_size).
    const size = /维度 ?d_|每头维度|隐藏维度/
    const other = found.filter(([k, v]) => !['pipeline.sizes', 'shell.embedStepsHint'].includes(k) && !size.test(v))
    expect(other.map(([k]) => k)).toEqual([])
    expect(MESSAGES.zh.originColAspect).toBe('方面')
  })

  it('no zh string names a lesson by its seed file number', () => {
    const found = zhStrings.filter(([, v]) => /第 ?0\d\d ?课|Lesson 0\d\d/.test(v)).map(([k]) => k)
    const en = Object.entries(MESSAGES.en).filter(([, v]) => /Lesson 0\d\d|lesson 0\d\d/.test(v))
    expect([...found, ...en.map(([k]) => k)]).toEqual([])
  })
})
