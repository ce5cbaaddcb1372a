// Every visible string exists in both languages, and the Chinese text is really Chinese.
import { describe, expect, it } from 'vitest'
import { MESSAGES, translator } from '../../web/i18n'

describe('i18n', () => {
  const en = MESSAGES.en,
    zh = MESSAGES.zh
  it('zh and en have the same keys, none empty', () => {
    expect(Object.keys(zh).sort()).toEqual(Object.keys(en).sort())
    for (const [k, v] of Object.entries(en)) expect(v.trim(), `en.${k}`).not.toBe('')
    for (const [k, v] of Object.entries(zh)) expect(v.trim(), `zh.${k}`).not.toBe('')
  })

  it('prose is translated (only symbols and names may stay the same)', () => {
    const same = Object.keys(en).filter((k) => en[k as keyof typeof en] === zh[k as keyof typeof zh])
    // d_model etc. and the matrix names are notation, PNG and CSV file formats, two quiz options are shapes:
    // identical in both languages.
    expect(same.sort()).toEqual(
      [
        'dModel',
        'dk',
        'dq',
        'dv',
        'stepWk',
        'stepWq',
        'stepWv',
        'arithExp',
        'whyColCnn',
        'exportPng',
        'exportCsv',
        'quizDecodeWrong2',
      ].sort(),
    )
    const longZh = Object.entries(zh).filter(([k, v]) => v.length > 12 && !same.includes(k))
    for (const [k, v] of longZh) expect(/[\u4e00-\u9fff]/.test(v), `zh.${k} has Chinese`).toBe(true)
  })

  it('translator falls back to English for a missing language', () => {
    expect(translator('zh')('title')).toBe('注意力机制演练场')
    expect(translator('xx' as 'en')('title')).toBe('Attention Playground')
  })
})
