// Page state: URL round trips, invalid parameters fall back to defaults with a notice, masks and
// cell edits become the engine's options.
import { describe, expect, it } from 'vitest'
import { DEFAULT_STATE, browserLang, defaultState, parseParams, toParams } from '../../web/state'
import { baseRunOptions, resolveScale, scaleIsOn } from '../../web/compute/options'
import { engineMask } from '../../web/compute/masks'
import { applyEdits, toggleCell, withEdit } from '../../web/compute/changes'
import { PRESETS, matchingPreset } from '../../web/presets'
import { fmt, grouped, parseShown, productShape } from '../../web/format'

describe('URL state', () => {
  it('a changed state survives toParams -> parseParams', () => {
    const s = defaultState('zh')
    Object.assign(s, {
      text: '我爱中国 <b>x</b> & co',
      tokenizer: 'char',
      score: 'additive',
      mask: 'cells',
      maskCells: [
        [0, 1],
        [2, 3],
      ],
      temperature: 0.5,
      heads: 2,
      head: 1,
      dq: 8,
      dk: 8,
      dv: 12,
      seed: 7,
      scale: 'off',
      guided: 3,
      view: 'why',
      edits: [
        { t: 'Wq', r: 1, c: 2, v: -1.5 },
        { t: 'embeddings', r: 0, c: 3, v: 2e-3 },
      ],
    })
    const url = toParams(s).toString()
    const back = parseParams(new URLSearchParams(url), defaultState('en'))
    expect(back.notices).toEqual([])
    expect(back.state).toEqual({ ...s, lang: 'zh' })
  })

  it('defaults are left out of the URL', () => {
    expect(toParams(defaultState('en')).toString()).toBe('')
    const s = defaultState('en')
    s.score = 'dot'
    expect(toParams(s).toString()).toBe('score=dot')
  })

  it('cross mode keeps source and target, and source alone implies cross', () => {
    const { state } = parseParams(new URLSearchParams('source=a%20b&target=c'), defaultState('en'))
    expect(state.mode).toBe('cross')
    expect(baseRunOptions(state, 1, 2)).toMatchObject({ source: 'a b', target: 'c' })
    expect(baseRunOptions(state, 1, 2).text).toBeUndefined()
  })

  it('invalid values keep the default and are reported, others still apply', () => {
    const q = 'score=evil&mask=%3Cimg%3E&dq=0&dk=abc&heads=99&temperature=NaN&cells=1-2&edits=Wq.1.1=x&text=ok&seed=12'
    const { state, notices } = parseParams(new URLSearchParams(q), defaultState('en'))
    expect(notices.map((n) => n.param).sort()).toEqual([
      'cells',
      'dk',
      'dq',
      'edits',
      'heads',
      'mask',
      'score',
      'temperature',
    ])
    expect(notices.find((n) => n.param === 'mask')!.value).toBe('<img>')
    expect(state.score).toBe(DEFAULT_STATE.score)
    expect(state.dq).toBe(24)
    expect(state.text).toBe('ok')
    expect(state.seed).toBe(12)
  })

  it('edit targets are case-sensitive step names', () => {
    expect(parseParams(new URLSearchParams('edits=WQ.0.0=1'), defaultState('en')).notices).toHaveLength(1)
    expect(parseParams(new URLSearchParams('edits=Wk.0.0=1E2'), defaultState('en')).state.edits).toEqual([
      { t: 'Wk', r: 0, c: 0, v: 100 },
    ])
  })

  it('a head beyond the heads count falls back to head 0', () => {
    expect(parseParams(new URLSearchParams('heads=2&head=3'), defaultState('en')).state.head).toBe(0)
  })

  it('browser language: any zh variant gives Chinese', () => {
    expect(browserLang(['zh-TW', 'en'])).toBe('zh')
    expect(browserLang(['fr', 'en-GB'])).toBe('en')
    expect(browserLang(['de'])).toBe('en')
    expect(browserLang(undefined)).toBe('en')
  })
})

describe('engine options', () => {
  it('scale follows the toggle: rule default, 1/√(dk/heads), or off', () => {
    const s = defaultState('en')
    expect(resolveScale(s)).toBeUndefined()
    expect(scaleIsOn(s)).toBe(true)
    s.scale = 'off'
    expect(resolveScale(s)).toBe(false)
    s.scale = 'on'
    s.heads = 4
    s.dk = 64
    expect(resolveScale(s)).toBeCloseTo(1 / 4, 12)
    s.scale = 'auto'
    s.score = 'dot'
    expect(scaleIsOn(s)).toBe(false)
  })

  it('padding and clicked cells become keyPadding and a matrix', () => {
    const s = defaultState('en')
    s.mask = 'padding'
    s.padKeys = [1, 5]
    expect(engineMask(s, 2, 3)).toEqual({ keyPadding: [false, true, false] })
    s.mask = 'cells'
    s.maskCells = [
      [0, 2],
      [1, 0],
      [9, 9],
    ]
    const m = engineMask(s, 2, 3) as { matrix: Uint8Array }
    expect(Array.from(m.matrix)).toEqual([0, 0, 1, 1, 0, 0])
    s.mask = 'causal'
    expect(engineMask(s, 2, 3)).toBe('causal')
  })

  it('cell edits copy the tensor, change only that cell, and drop edits outside the shape', () => {
    const Wq = { data: Float32Array.from([1, 2, 3, 4, 5, 6]), shape: [2, 3] }
    const edits = withEdit(withEdit([], { t: 'Wq', r: 1, c: 2, v: 9 }), { t: 'Wq', r: 1, c: 2, v: -9 })
    expect(edits).toHaveLength(1)
    const { overrides, dropped } = applyEdits(
      { Wq, embeddings: undefined, sourceEmbeddings: undefined, Wk: undefined, Wv: undefined },
      [...edits, { t: 'Wq', r: 2, c: 0, v: 1 }, { t: 'Wk', r: 0, c: 0, v: 1 }],
    )
    expect(Array.from(overrides.Wq!.data)).toEqual([1, 2, 3, 4, 5, -9])
    expect(Wq.data[5]).toBe(6)
    expect(dropped).toHaveLength(2)
  })

  it('toggleCell adds then removes', () => {
    expect(toggleCell(toggleCell([], 1, 2), 1, 2)).toEqual([])
  })
})

describe('presets and formatting', () => {
  it('the course preset is the default state and is recognised', () => {
    expect(matchingPreset(defaultState('en'))).toBe('cat')
    const zh = { ...defaultState('en'), ...PRESETS.zh }
    expect(matchingPreset(zh)).toBe('zh')
    expect(matchingPreset({ ...zh, seed: 1 })).toBeNull()
  })

  it('numbers shown and parsed back', () => {
    expect(fmt(-1.23456)).toBe('−1.2346')
    expect(fmt(-Infinity)).toBe('−∞')
    expect(parseShown('−1.2346')).toBeCloseTo(-1.2346, 10)
    expect(parseShown('1e3')).toBe(1000)
    expect(parseShown('abc')).toBeNull()
    expect(productShape([4, 16], [16, 24], [4, 24])).toBe('(4,16)·(16,24) → (4,24)')
  })

  it('whole numbers grouped by thousands exactly as Intl writes them in en-US', () => {
    const values = [
      0,
      -0,
      7,
      999,
      1000,
      -1000,
      2401,
      65504,
      999_999,
      1_000_000,
      536_870_912,
      2 ** 53 - 1,
      -(2 ** 53 - 1),
    ]
    for (let k = 0; k < 2000; k++) values.push(Math.round((Math.random() - 0.5) * 10 ** (k % 16)))
    values.push(1.5, 12345.678, 2 ** 60, NaN, Infinity)
    for (const v of values) expect(grouped(v), String(v)).toBe(v.toLocaleString('en-US'))
  })
})
