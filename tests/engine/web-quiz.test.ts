// The quiz's questions built from real traces: exactly one option is right, judged here from the trace itself
// (not from the question's own `right`), for temperatures ≠ 1, d_k = 1, repeated words (tied weights), fully
// masked rows and several heads; and the prompts say which step, which query and "per head".
import { beforeAll, describe, expect, it } from 'vitest'
import { init } from '../../dist/index.js'
import type { Engine, Trace } from 'attention-playground'
import { compute } from '../../web/compute/run'
import { decodeQuiz, pipelineQuiz, trainQuiz, type Question } from '../../web/quiz/questions'
import { translator } from '../../web/i18n'
import { defaultState, type PlaygroundState } from '../../web/state'

let engine: Engine
beforeAll(async () => {
  engine = (await init()) as unknown as Engine
})

const same = (a: number, b: number) => Math.abs(a - b) < 5e-5
const num = (s: string) => Number(s.replace('−', '-'))

/** How many options are right, judged from the trace; and which. */
function rightOptions(q: Question, s: PlaygroundState, tr: Trace): number[] {
  const heads = s.heads
  const nq = tr.tokens.length
  const nk = (tr.sourceTokens ?? tr.tokens).length
  const idx = (pred: (o: string) => boolean) => q.options.flatMap((o, i) => (pred(o) ? [i] : []))
  if (q.id.startsWith('shape:')) return idx((o) => o === `(${nq}, ${nk})`)
  if (q.id.startsWith('out:')) return idx((o) => o === `(${nq}, ${tr.V.shape[1]})`)
  if (q.id.startsWith('scale:')) {
    const root = 1 / tr.scale
    // Right: step ②'s divisor. Any option equal to it, or to √d_k·T (both divisions), would be a second answer.
    expect(q.options.filter((o) => same(num(o), root * s.temperature) && !same(root, root * s.temperature))).toEqual([])
    return idx((o) => same(num(o), root))
  }
  if (q.id.startsWith('top:')) {
    const row = Number(q.id.split(':')[2])
    expect(tr.maskedRows.includes(row), `row ${row} is fully masked`).toBe(false)
    const n = nk,
      off = heads > 1 ? s.head * nq * nk : 0
    const w = Array.from(tr.weights.data.subarray(off + row * n, off + (row + 1) * n))
    const max = Math.max(...w)
    expect(max).toBeGreaterThan(0)
    const keys = tr.sourceTokens ?? tr.tokens
    const labels = keys.map((k, j) => (keys.indexOf(k) !== keys.lastIndexOf(k) ? `${k} #${j}` : k))
    return idx((o) => same(w[labels.indexOf(o)], max))
  }
  return [q.right]
}

function check(patch: Partial<PlaygroundState>): Question[] {
  const s = { ...defaultState('en'), ...patch } as PlaygroundState
  const { trace } = compute(engine, s)
  const qs = pipelineQuiz(s, trace, translator('en'))
  for (const q of qs) {
    expect(new Set(q.options).size, `${q.id}: options distinct`).toBe(q.options.length)
    expect(rightOptions(q, s, trace), `${q.id}: ${q.options.join(' | ')}`).toEqual([q.right])
  }
  return qs
}

describe('quiz: exactly one right answer', () => {
  it('for temperatures ≠ 1 (and d_k = 1, where √d_k = d_k = 1)', () => {
    for (const temperature of [0.5, 2, 4, 1])
      for (const d of [24, 4, 1]) {
        const qs = check({ temperature, dq: d, dk: d })
        const scale = qs.find((q) => q.id.startsWith('scale:'))
        // d_k = 1: √d_k = 1, step ② changes nothing and is not asked about.
        expect(!!scale).toBe(d > 1)
        if (scale)
          expect(scale.prompt).toMatch(temperature === 1 ? /step ② \(scale\)/ : /step ② \(scale\) alone.*temperature/)
      }
  })

  it('for repeated words: a tied row is not asked, or no question when every row ties', () => {
    const qs = check({ text: 'the cat sat on the mat', tokenizer: 'word' })
    expect(qs.some((q) => q.id.startsWith('top:'))).toBe(true)
    const all = check({ text: 'the cat the cat', tokenizer: 'word' })
    expect(all.some((q) => q.id.startsWith('top:'))).toBe(false)
  })

  it('for fully masked rows: the question asks another row', () => {
    const cells: Array<[number, number]> = [0, 1, 2, 3].map((j) => [3, j])
    const qs = check({ mask: 'cells', maskCells: cells })
    const top = qs.find((q) => q.id.startsWith('top:'))!
    expect(Number(top.id.split(':')[2])).toBe(2)
  })

  it('with several heads the shape questions say per head, and the answer is the one head’s shape', () => {
    const qs = check({ heads: 4, head: 1, temperature: 2 })
    expect(qs.find((q) => q.id.startsWith('shape:'))!.prompt).toMatch(/4 heads, each head has d_k = 6.*one head’s/)
    expect(qs.find((q) => q.id.startsWith('out:'))!.prompt).toMatch(/side by side/)
  })

  it('decode and training questions name their query and their "weights"', () => {
    for (const lang of ['en', 'zh'] as const) {
      const t = translator(lang)
      for (const dq of [1, 24]) {
        const s = { ...defaultState(lang), dq, dk: dq }
        const q = decodeQuiz(s, null, t).find((x) => x.id.startsWith('decode:q'))!
        expect(q.prompt).toMatch(lang === 'en' ? /cross attention’s query/ : /交叉注意力的查询/)
        const right = q.options[q.right]
        expect(q.options.filter((o) => o.split(/[:：]/)[0] === right.split(/[:：]/)[0])).toHaveLength(1)
      }
    }
    const [train] = trainQuiz(defaultState('en'), null, translator('en'))
    expect(train.id).toBe('train:what')
    expect(train.options[train.right]).toMatch(/the parameters: .*attention weights are computed/)
  })
})
