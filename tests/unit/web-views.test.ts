// The one table of views (web/view-table.ts) against what is written about the views: the
// documented `view` attribute / URL parameter lists exactly the table's names in tab order, every
// view the README names as `view=…` exists, and each tab has its label in both languages.
import { existsSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { MESSAGES } from '../../web/i18n'
import { VIEWS, parseParams, defaultState } from '../../web/state'
import { VIEW_TABLE } from '../../web/view-table'

const root = new URL('../../', import.meta.url)
const read = (f: string) => readFileSync(new URL(f, root), 'utf8')
/** The markdown files that document the page (the attribute table may live in the README or in docs/). */
const DOCS = ['README.md', 'docs/embedding.md'].filter((f) => existsSync(new URL(f, root)))

/** The table row whose first cell is `name` (backticked), from whichever document holds it. */
function attributeRow(name: string): string {
  const rows = DOCS.flatMap((f) => read(f).split('\n')).filter((l) => l.startsWith(`| \`${name}\` |`))
  expect(rows, `one documented row for the ${name} attribute`).toHaveLength(1)
  return rows[0]
}

describe('the views table', () => {
  it('each name is read from the URL, once', () => {
    expect(new Set(VIEWS).size).toBe(VIEWS.length)
    expect(VIEW_TABLE.filter((v) => v.tour)).toHaveLength(1)
    for (const v of VIEWS) {
      const { state, notices } = parseParams(new URLSearchParams({ view: v }), defaultState())
      expect(notices).toEqual([])
      expect(state.view).toBe(v)
    }
    const bad = parseParams(new URLSearchParams({ view: 'nope' }), defaultState())
    expect(bad.notices).toEqual([{ param: 'view', value: 'nope' }])
    expect(bad.state.view).toBe('pipeline')
  })

  it('gives every tab a label in zh and en', () => {
    for (const v of VIEW_TABLE) {
      expect(MESSAGES.en[v.tab], v.name).toMatch(/\S/)
      expect(MESSAGES.zh[v.tab], v.name).toMatch(/\S/)
      expect(MESSAGES.zh[v.tab], v.name).not.toBe(MESSAGES.en[v.tab])
    }
  })

  it('is the documented list of views', () => {
    const row = attributeRow('view')
    const values = row.split('|')[2]
    expect([...values.matchAll(/`([a-z-]+)`/g)].map((m) => m[1])).toEqual([...VIEWS])
    // Every `view=…` the documents mention is a view.
    const mentioned = new Set(DOCS.flatMap((f) => [...read(f).matchAll(/view=([a-z-]+)/g)].map((m) => m[1])))
    expect(mentioned.size).toBeGreaterThan(0)
    for (const v of mentioned) expect(VIEWS, `view=${v}`).toContain(v)
  })
})
