// The page's runs of Chinese typed without spaces (issue 39 item 5) on the real engine: 我爱中国 is the same run as
// the hand-spaced "我 爱 中国" of lesson 002 (tokens 我/爱/中国, the course's sorted vocabulary as Python's
// sorted(set(text.split())) gives it: ['中国', '我', '爱']), the spaces a learner typed stay, and the course's
// English sentence gives the same numbers as a run on the text itself.
import { beforeAll, describe, expect, it } from 'vitest'
import { init } from '../../dist/index.js'
import { compute } from '../../web/compute/run'
import { defaultState, type PlaygroundState } from '../../web/state'
import type { Engine } from 'attention-playground'

let engine: Engine
beforeAll(async () => {
  engine = (await init()) as unknown as Engine
})

const state = (patch: Partial<PlaygroundState>): PlaygroundState => ({ ...defaultState('zh'), ...patch })

describe('Chinese words on the page', () => {
  it("我爱中国 runs as the lesson's 我/爱/中国, with the sorted vocabulary and ids", () => {
    const typed = compute(engine, state({ text: '我爱中国' })).trace
    expect(typed.tokens).toEqual(['我', '爱', '中国'])
    expect(typed.vocab).toEqual(['中国', '我', '爱'])
    expect(typed.tokenIds).toEqual([1, 2, 0])
    const spaced = engine.run({ text: '我 爱 中国' })
    expect(Array.from(typed.weights.data)).toEqual(Array.from(spaced.weights.data))
    expect(Array.from(typed.output.data)).toEqual(Array.from(spaced.output.data))
  })

  it('"我 爱 北京 天安门" keeps its four words; the character tokenizer still splits by character', () => {
    expect(compute(engine, state({ text: '我 爱 北京 天安门' })).trace.tokens).toEqual(['我', '爱', '北京', '天安门'])
    expect(compute(engine, state({ text: '我爱北京天安门', tokenizer: 'word' })).trace.tokens).toEqual([
      '我',
      '爱',
      '北京',
      '天安门',
    ])
    expect(compute(engine, state({ text: '我爱中国', tokenizer: 'char' })).trace.tokens).toEqual([
      '我',
      '爱',
      '中',
      '国',
    ])
  })

  it("the course's sentence: the page's numbers are the engine's on the text as typed", () => {
    const page = compute(engine, defaultState('en')).trace
    const direct = engine.run({ text: 'this is my cat' })
    expect(page.tokens).toEqual(['this', 'is', 'my', 'cat'])
    expect(Array.from(page.weights.data)).toEqual(Array.from(direct.weights.data))
  })
})
