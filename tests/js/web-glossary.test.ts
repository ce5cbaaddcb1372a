// docs/glossary.md: one zh term per concept. Every zh string of the page (web/i18n/'s page table and the Train
// panel's web/i18n/train.ts) uses the glossary's term and none of the words it lists under "not"; every glossary
// term is one the page really uses.
import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { MESSAGES } from '../../web/i18n'
import { TRAIN } from '../../web/i18n/train'

const md = readFileSync(new URL('../../docs/glossary.md', import.meta.url), 'utf8')
const rows = md
  .split('\n')
  .filter((l) => l.startsWith('| ') && !l.startsWith('| concept') && !l.startsWith('| ---'))
  .map((l) => l.split('|').map((c) => c.trim()))
  .map(([, concept, zh, en, not]) => ({
    concept,
    zh,
    en,
    not: not
      .split(',')
      .map((w) => w.trim())
      .filter(Boolean),
  }))

const zhStrings = [...Object.entries(MESSAGES.zh), ...Object.entries(TRAIN.zh)]

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
        for (const [key, text] of zhStrings) if (text.includes(w)) found.push(`${key}: “${w}” (use ${r.zh})`)
    expect(found).toEqual([])
  })

  it('every glossary term is used by the page', () => {
    const all = zhStrings.map(([, v]) => v).join('\n')
    expect(rows.filter((r) => !all.includes(r.zh)).map((r) => r.zh)).toEqual([])
  })

  it('维度 is a size (d_model, d_k …) only: never an axis (轴) or an aspect (方面)', () => {
    const uses = zhStrings.filter(([, v]) => v.includes('维度'))
    expect(uses.length).toBeGreaterThan(0)
    // The Sizes heading and the Embed hint's list of settings name the sizes; elsewhere a d_… follows the word.
    const other = uses.filter(([k, v]) => !['sizes', 'embedStepsHint'].includes(k) && !/维度 ?d_/.test(v))
    expect(other.map(([k]) => k)).toEqual([])
    expect(MESSAGES.zh.originColAspect).toBe('方面')
  })

  it('no zh string names a lesson by its seed file number', () => {
    const found = zhStrings.filter(([, v]) => /第 ?0\d\d ?课|Lesson 0\d\d/.test(v)).map(([k]) => k)
    const en = Object.entries(MESSAGES.en).filter(([, v]) => /Lesson 0\d\d|lesson 0\d\d/.test(v))
    expect([...found, ...en.map(([k]) => k)]).toEqual([])
  })
})
