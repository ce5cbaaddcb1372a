// The one parameter schema (PARAMS, web/params.ts) against the documented attribute table and against
// the parser: every attribute the table documents is a PARAMS row, and the reverse; enum
// values, ranges and defaults are the ones written; the parser takes each range's ends and refuses
// the values just outside; the limits come from the table; normalize holds the clash and reset rules.
import { existsSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { DEFAULT_STATE, LIMITS, PARAMS, param, type ParamSpec } from '../../web/params'
import { normalize } from '../../web/compute/normalize'
import { VIEWS, defaultState, parseParams, toParams } from '../../web/state'
import { VIEW_TABLE } from '../../web/view-table'

const root = new URL('../../', import.meta.url)
/** The attribute table lives in the README or in docs/embedding.md. */
const DOCS = ['README.md', 'docs/embedding.md'].filter((f) => existsSync(new URL(f, root)))

/** The documented attribute rows: attribute names (a row may name several) → [values, default] cells. */
function documentedAttributes(): Map<string, [string, string]> {
  const rows = new Map<string, [string, string]>()
  for (const f of DOCS) {
    const lines = readFileSync(new URL(f, root), 'utf8').split('\n')
    const head = lines.findIndex((l) => /^\| attribute \| values \| default \|/.test(l))
    if (head < 0) continue
    for (const l of lines.slice(head + 2)) {
      if (!l.startsWith('|')) break
      const cells = l.split('|').map((c) => c.trim())
      for (const m of cells[1].matchAll(/`([a-z]+)`/g)) rows.set(m[1], [cells[2], cells[3]])
    }
  }
  return rows
}

const attrs = PARAMS.filter((p) => p.attr !== null)
const numeric = (p: ParamSpec): p is ParamSpec & { kind: 'int' | 'number'; min: number; max: number } =>
  p.kind === 'int' || p.kind === 'number'

describe('the parameter schema', () => {
  it('is the documented attribute table', () => {
    const doc = documentedAttributes()
    expect([...doc.keys()].sort()).toEqual(attrs.map((p) => p.attr!).sort())
    for (const p of attrs) {
      const [values, dflt] = doc.get(p.attr!)!
      if (p.kind === 'enum') for (const v of p.values) expect(values, `${p.attr} lists ${v}`).toContain(`\`${v}\``)
      if (p.kind === 'view') for (const v of VIEWS) expect(values, `${p.attr} lists ${v}`).toContain(`\`${v}\``)
      // guided and step word their ranges (present / 1–5; 1, 2, …).
      if (numeric(p) && !['guided', 'step'].includes(p.name))
        expect(values, `${p.attr}'s range`).toContain(`${p.min}–${p.max}`)
      if (p.kind === 'text') expect(values + dflt, `${p.attr}'s length`).not.toMatch(/≤ (?!4000|2048)\d+/)
      // Defaults: the table writes them as code, except those it words (page language, off, none).
      const d = DEFAULT_STATE[p.field]
      if (!['lang', 'guided', 'src', 'steps'].includes(p.name))
        expect(dflt, `${p.attr}'s default`).toContain(`\`${String(d)}\``)
    }
  })

  it('gives the parser its ranges and the page its limits', () => {
    for (const p of PARAMS.filter(numeric)) {
      // A base with no clash at either end (bilinear: any dk; 48 divisible by up to 16 heads).
      const b = { ...defaultState('en'), score: 'general' as const, dq: 48, dk: 48, dv: 48 }
      const at = (v: number) => parseParams(new URLSearchParams({ [p.name]: String(v) }), b)
      for (const v of [p.min, p.max])
        expect(
          at(v).notices.filter((n) => n.param === p.name),
          `${p.name}=${v}`,
        ).toEqual([])
      const step = p.kind === 'int' ? 1 : 0.01
      for (const v of [p.min - step, p.max + step])
        expect(
          at(v).notices.map((n) => n.param),
          `${p.name}=${v}`,
        ).toContain(p.name)
    }
    expect(LIMITS.dim).toEqual([1, 512])
    expect(LIMITS.heads).toEqual([1, 16])
    expect(LIMITS.temperature).toEqual([0.05, 10])
    expect([LIMITS.textChars, LIMITS.srcChars, LIMITS.edits]).toEqual([4000, 2048, 256])
    expect(() => param('nope')).toThrow(/nope/)
  })

  it('names a field for every parameter, each view reads parameters of the table, and a link round-trips each', () => {
    expect(new Set(PARAMS.map((p) => p.name)).size).toBe(PARAMS.length)
    for (const p of PARAMS) expect(Object.keys(DEFAULT_STATE), p.name).toContain(p.field)
    const names = PARAMS.map((p) => p.name)
    for (const v of VIEW_TABLE) for (const r of v.reads) expect(names, `${v.name} reads ${r}`).toContain(r)
    const s = defaultState('zh')
    Object.assign(s, { mode: 'cross', source: 'a b c', target: 'x y', dq: 8, dk: 8, dv: 4, heads: 2, head: 1 })
    Object.assign(s, { mask: 'padding', padKeys: [1], temperature: 0.5, guided: 3, view: 'decode', src: 'm.st' })
    Object.assign(s, { positions: 'rope', ropeBase: 500 })
    s.steps = ['decode', 'quiz']
    const back = parseParams(toParams(s), defaultState('en'))
    expect(back.notices).toEqual([])
    expect(back.state).toEqual(s)
  })
})

describe('normalize: every clash and reset rule', () => {
  const base = () => defaultState('en')
  it('from a link: dk follows dq for the dot products, heads falls back to 1, cross drops causal', () => {
    const s = {
      ...base(),
      score: 'dot' as const,
      dq: 8,
      dk: 12,
      heads: 3,
      head: 2,
      mode: 'cross' as const,
      mask: 'causal' as const,
    }
    const notices = normalize(s, { prev: base(), given: new Set(), fromLink: true })
    expect([s.dk, s.heads, s.head, s.mask]).toEqual([8, 1, 0, 'none'])
    expect(notices.map((n) => n.param)).toEqual(['dk', 'heads', 'mask'])
    expect(notices[2].reason).toBe('crossCausal')
  })
  it('from a link: rope without dq = dk and an even dq / heads, and alibi with concat, fall back to none', () => {
    const link = (q: Record<string, string>) => parseParams(new URLSearchParams(q), base())
    const odd = link({ positions: 'rope', dq: '6', dk: '6', heads: '2' })
    expect([odd.state.positions, odd.notices.map((n) => [n.param, n.clash?.key])]).toEqual([
      'none',
      [['positions', 'noticeRopeClash']],
    ])
    expect(link({ positions: 'rope', score: 'general', dq: '8', dk: '6' }).state.positions).toBe('none')
    const fine = link({ positions: 'rope', dq: '8', dk: '8', heads: '2', ropeBase: '500' })
    expect([fine.state.positions, fine.state.ropeBase, fine.notices]).toEqual(['rope', 500, []])
    const concat = link({ positions: 'alibi', score: 'concat' })
    expect([concat.state.positions, concat.notices.map((n) => n.clash?.key)]).toEqual(['none', ['noticeAlibiClash']])
    expect(link({ positions: 'alibi', score: 'additive', heads: '4' }).state.positions).toBe('alibi')
    expect(link({ ropeBase: '0' }).notices.map((n) => [n.param, n.value])).toEqual([['ropeBase', '0']])
    // The learner's own choice stays (the engine says why it cannot run, rows P2 and P5).
    const mine = { ...base(), positions: 'rope' as const, dq: 6, dk: 6, heads: 2 }
    expect(normalize(mine, { prev: base(), given: new Set(['positions']), fromLink: false })).toEqual([])
    expect(mine.positions).toBe('rope')
  })
  it('from the learner: the engine says why sizes clash; a new sentence drops what was bound to positions', () => {
    const prev = { ...base(), mask: 'cells' as const, maskCells: [[0, 1]] as Array<[number, number]>, padKeys: [2] }
    prev.edits = [{ t: 'Wq', r: 0, c: 0, v: 1 }]
    const s = { ...prev, text: 'a new sentence', score: 'dot' as const, dk: 12, heads: 5, head: 4 }
    expect(normalize(s, { prev, given: new Set(['text']), fromLink: false })).toEqual([])
    expect([s.dk, s.heads, s.head, s.maskCells, s.padKeys, s.edits]).toEqual([12, 5, 4, [], [], []])
    const kept = { ...prev, seed: 7, edits: [{ t: 'Wk' as const, r: 1, c: 1, v: 2 }] }
    normalize(kept, { prev, given: new Set(['seed', 'edits']), fromLink: false })
    expect([kept.edits, kept.maskCells]).toEqual([[{ t: 'Wk', r: 1, c: 1, v: 2 }], [[0, 1]]])
    const fewer = { ...prev, heads: 1, head: 3 }
    normalize(fewer, { prev, given: new Set(['heads']), fromLink: false })
    expect(fewer.head).toBe(0)
    const cross = { ...prev, mode: 'cross' as const, mask: 'causal' as const }
    expect(normalize(cross, { prev, given: new Set(['mode']), fromLink: false })).toEqual([])
    expect(cross.mask).toBe('none')
  })
})
