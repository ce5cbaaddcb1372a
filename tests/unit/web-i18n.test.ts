// The string tables of web/i18n/ (every one, found by tests/support/string-tables.ts): each string is there in both
// languages (the type `Messages<K>` makes a table's zh list exactly its en's keys), non-empty, with the same
// placeholders, the Chinese really Chinese; the page's tables share one key space without a clash; the one
// translator fills placeholders and picks the `…Touch` twin; and no Chinese prose lives outside web/i18n/.
import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { MESSAGES, PAGE_TABLES, translator } from '../../web/i18n'
import { fill, LANGS, translate, type Table } from '../../web/i18n/core'
import { I18N_DIR, STRING_FILES, TABLES, ZH } from '../support/string-tables'
import { REPO_ROOT, sourceFiles } from '../support/sources'

/** The string literals of a file of web/i18n/, as their values. */
function literals(file: string): string[] {
  const code = readFileSync(join(REPO_ROOT, I18N_DIR, file), 'utf8')
  const quoted = code.replace(/^\s*\/\/.*$/gm, '').match(/'(?:[^'\\\n]|\\.)*'/g) ?? []
  return quoted.map((q) => JSON.parse(`"${q.slice(1, -1).replace(/\\'/g, "'").replace(/"/g, '\\"')}"`) as string)
}

const placeholders = (s: string) => [...new Set(s.match(/\{\w+\}/g) ?? [])].sort()
const HAN = /[\u4e00-\u9fff]/

describe('the string tables of web/i18n/', () => {
  it('the checks read every Chinese string of the folder: each module holds one table or translations', () => {
    expect(TABLES.length).toBeGreaterThan(5)
    const found = new Set([...ZH.map((s) => s.zh), ...TABLES.flatMap(({ table }) => Object.values(table.en))])
    const missed = STRING_FILES.flatMap((f) => {
      const ts = TABLES.filter((t) => t.file === f).length
      const bad = ts > 1 || (ts === 0 && !ZH.some((s) => s.where.startsWith(`${f.replace(/\.ts$/, '')}.`)))
      return [
        ...(bad ? [`${f}: ${ts} tables`] : []),
        ...literals(f)
          .filter((l) => HAN.test(l) && !found.has(l) && ![...found].some((z) => z.includes(l)))
          .map((l) => `${f}: ${l}`),
      ]
    })
    expect(missed).toEqual([])
  })

  it('no string is empty', () => {
    const empty = TABLES.flatMap(({ name, table }) =>
      LANGS.flatMap((l) =>
        Object.entries(table[l])
          .filter(([, v]) => !v.trim())
          .map(([k]) => `${name}.${l}.${k}`),
      ),
    )
    expect(empty).toEqual([])
  })

  it('en and zh have the same {placeholders} in every string', () => {
    const differ = TABLES.flatMap(({ name, table }) =>
      Object.keys(table.en)
        .filter((k) => placeholders(table.en[k]).join() !== placeholders(table.zh[k]).join())
        .map((k) => `${name}.${k}: ${placeholders(table.en[k]).join()} / ${placeholders(table.zh[k]).join()}`),
    )
    expect(differ).toEqual([])
  })

  it('every …Touch twin has its key in the same table and says something else', () => {
    const bad = TABLES.flatMap(({ name, table }) =>
      Object.keys(table.en)
        .filter((k) => k.endsWith('Touch'))
        .filter((k) => {
          const base = k.slice(0, -'Touch'.length)
          return !(base in table.en) || LANGS.some((l) => table[l][k] === table[l][base])
        })
        .map((k) => `${name}.${k}`),
    )
    expect(bad).toEqual([])
  })

  it('prose is translated: a zh string equal to its en is notation, and a long one has Chinese', () => {
    // Notation (d_model, W_q, `formulas`, diag(…)), file formats and names may stay the same; an English word of
    // four letters or more may not (Adam is the optimizer's name, Kingma & Ba 2015, as students know it).
    const NAMES = /`[^`]*`|\b\w+_\w+\b|\b[a-z]+(?=\()|\b(softmax|PyTorch|Adam|[A-Z]{2,}\w*)\b/g
    const same = TABLES.flatMap(({ name, table }) =>
      Object.keys(table.en)
        .filter((k) => table.en[k] === table.zh[k] && /[A-Za-z]{4,}/.test(table.en[k].replace(NAMES, '')))
        .map((k) => `${name}.${k}: ${table.en[k]}`),
    )
    expect(same).toEqual([])
    const notChinese = TABLES.flatMap(({ name, table }) =>
      Object.entries(table.zh)
        .filter(([k, v]) => v.length > 12 && v !== table.en[k] && !HAN.test(v))
        .map(([k]) => `${name}.${k}`),
    )
    expect(notChinese).toEqual([])
  })

  it('the page’s tables share one key space: no key is in two of them, and the page reads each', () => {
    const seen = new Map<string, string>()
    const clashes: string[] = []
    for (const [name, table] of Object.entries(PAGE_TABLES) as Array<[string, Table<string>]>)
      for (const k of Object.keys(table.en)) {
        if (seen.has(k)) clashes.push(`${k}: ${seen.get(k)} and ${name}`)
        seen.set(k, name)
        for (const l of LANGS) expect(MESSAGES[l][k as keyof typeof MESSAGES.en], `${l}.${k}`).toBe(table[l][k])
      }
    expect(clashes).toEqual([])
    expect(Object.keys(MESSAGES.en).length).toBe(seen.size)
  })
})

describe('the translator', () => {
  const table = {
    en: { a: 'click {n} of {total}, {n} again', aTouch: 'tap {n}', b: 'only in en' },
    zh: { a: '点击第 {n} 个，共 {total} 个', aTouch: '点一下第 {n} 个', b: '' },
  }

  it('fills every occurrence of each placeholder and leaves unknown ones', () => {
    expect(translate(table, 'en')('a', { n: 3, total: 7 })).toBe('click 3 of 7, 3 again')
    expect(translate(table, 'en')('a', { n: 3 })).toBe('click 3 of {total}, 3 again')
    expect(fill('{x}{x}$&', { x: '$1' })).toBe('$1$1$&')
  })

  it('uses the …Touch twin under touch only', () => {
    expect(translate(table, 'zh', true)('a', { n: 2 })).toBe('点一下第 2 个')
    expect(translate(table, 'zh')('a', { n: 2, total: 5 })).toBe('点击第 2 个，共 5 个')
    expect(translate(table, 'en', true)('b')).toBe('only in en')
  })

  it('falls back to English for a missing language', () => {
    expect(translator('zh')('title')).toBe('注意力机制演练场')
    expect(translator('xx' as 'en')('title')).toBe('Attention Playground')
    expect(translator('en', true)('padKeysLabel')).toBe(MESSAGES.en.padKeysLabelTouch)
  })
})

describe('one home for strings', () => {
  // Outside web/i18n/, Chinese may appear in comments and as the sample sentences' words (presets, the lesson's
  // tokens), never as text shown to the learner.
  const SAMPLE = /^[我爱中国\s]+$/
  it('no Chinese string literal in web/ outside web/i18n/ but the sample sentences', () => {
    const found = sourceFiles('web')
      .filter((f) => !f.startsWith(`${I18N_DIR}/`))
      .flatMap((f) => {
        const code = readFileSync(join(REPO_ROOT, f), 'utf8')
          .replace(/\/\*[\s\S]*?\*\//g, '')
          .replace(/^\s*\/\/.*$/gm, '')
          .replace(/\s\/\/ .*$/gm, '')
        const literals = code.match(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g) ?? []
        return literals.filter((s) => HAN.test(s) && !SAMPLE.test(s.slice(1, -1))).map((s) => `${f}: ${s}`)
      })
    expect(found).toEqual([])
  })
})
