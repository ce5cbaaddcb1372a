// weights=trained: the committed parameters (web/compute/trained-coreference.ts) are what the engine's trainer
// makes of the recipe written in the file (trained again here, same engine, same bits); the pipeline's trace on
// them is the trained model's last layer (the trainer's own trace), "it" points at "animal" (and at "street"
// when the adjective is about the street); the state's rules for trained weights.
import { beforeAll, describe, expect, it } from 'vitest'
import { init } from '../../dist/index.js'
import type { Engine, Tensor } from 'attention-playground'
import { train } from '../../scripts/gen-trained-weights.mjs'
import { compute } from '../../web/compute/run'
import { settleWeights } from '../../web/compute/changes'
import {
  TRAINED,
  TRAINED_SENTENCE,
  trainedLessonWeights,
  trainedParameters,
  trainerOptions,
} from '../../web/compute/trained'
import { defaultState, parseParams, toParams, type PlaygroundState } from '../../web/state'
import { PRESETS } from '../../web/presets'
import { DEFAULT_TRAIN_SETTINGS } from '../../web/train/protocol'

let simd: Engine

beforeAll(async () => {
  simd = (await init({ backend: 'simd128' })) as unknown as Engine
})

function row(w: Tensor, i: number): number[] {
  const n = w.shape[1]
  return Array.from(w.data.subarray(i * n, (i + 1) * n))
}

function argmax(xs: number[]): number {
  return xs.indexOf(Math.max(...xs))
}

const trainedState = (patch: Partial<PlaygroundState> = {}): PlaygroundState => ({
  ...parseParams(new URLSearchParams({ weights: 'trained', text: TRAINED_SENTENCE }), defaultState('en')).state,
  ...patch,
})

describe('the committed trained weights', () => {
  it('are what the recipe in the file trains to (same engine: the same bits)', () => {
    const again = train(simd, { ...TRAINED.recipe })
    expect(Object.keys(again.params).sort()).toEqual(Object.keys(TRAINED.params).sort())
    for (const [name, p] of Object.entries(TRAINED.params)) {
      expect(again.params[name].shape, name).toEqual([...p.shape])
      expect(again.params[name].data === p.data, `${name} differs from a fresh training run`).toBe(true)
    }
    expect(again.heldOut.accuracy).toBe(TRAINED.heldOut.accuracy)
    // The recipe is the Train tab's default training (its worker adds the warm-up and cosine schedule).
    const { steps: _steps, schedule, ...settings } = TRAINED.recipe
    expect(settings).toEqual({ ...DEFAULT_TRAIN_SETTINGS })
    expect(schedule).toBe('warmup-cosine')
    expect(TRAINED.heldOut.accuracy).toBeGreaterThan(0.99)
  })

  it('the pipeline\'s trace is the trained model\'s last layer, and its "it" row weighs "animal" most', () => {
    const { trace } = compute(simd, trainedState())
    const tr = simd.createTrainer(trainerOptions())
    try {
      tr.setParameters(trainedParameters())
      const ref = tr.trace(TRAINED_SENTENCE)
      expect(ref.layer).toBe(TRAINED.layers - 1)
      expect(trace.tokens).toEqual(ref.tokens)
      for (const step of ['embeddings', 'Wq', 'Wk', 'Wv', 'Q', 'K', 'V', 'scores', 'weights', 'output'] as const) {
        const a = trace[step].data,
          b = ref[step].data
        expect(trace[step].shape, step).toEqual(ref[step].shape)
        let worst = 0
        for (let i = 0; i < b.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]) / Math.max(1, Math.abs(b[i])))
        expect(worst, step).toBeLessThan(1e-5)
      }
    } finally {
      tr.dispose()
    }
    const it = trace.tokens.indexOf('it')
    expect(trace.tokens[argmax(row(trace.weights, it))]).toBe('animal')
    expect(row(trace.weights, it)[trace.tokens.indexOf('animal')]).toBeGreaterThan(0.9)
    // The adjective decides: "too wide" is about the street.
    const wide = compute(simd, trainedState({ text: TRAINED_SENTENCE.replace('tired', 'wide') })).trace
    expect(wide.tokens[argmax(row(wide.weights, it))]).toBe('street')
  })

  it("the Why tab's arcs are this model's last layer on the lesson's sentence (one trained model for both tabs)", () => {
    const tr = simd.createTrainer(trainerOptions())
    try {
      tr.setParameters(trainedParameters())
      const ref = tr.trace(TRAINED_SENTENCE)
      const lesson = trainedLessonWeights()
      expect(lesson.tokens).toEqual(ref.tokens)
      // One head: the average over heads is the head's own weights, bit for bit.
      expect(ref.weights.shape).toEqual([ref.tokens.length, ref.tokens.length])
      expect(Array.from(lesson.weights)).toEqual(Array.from(ref.weights.data))
      const it = lesson.tokens.indexOf('it')
      const n = lesson.tokens.length
      const itRow = Array.from(lesson.weights.subarray(it * n, (it + 1) * n))
      expect(lesson.tokens[argmax(itRow)]).toBe('animal')
    } finally {
      tr.dispose()
    }
  })

  it('a word outside the task vocabulary is an error naming it', () => {
    expect(() => compute(simd, trainedState({ text: 'the zebra was tired' }))).toThrow(/zebra/)
  })
})

describe('state rules for trained weights', () => {
  it('weights=trained brings the trained sizes; the URL keeps it; the preset is the same state', () => {
    const s = trainedState()
    expect([s.weights, s.tokenizer, s.dModel, s.dq, s.dk, s.dv, s.heads, s.score, s.mode]).toEqual([
      'trained',
      'word',
      32,
      32,
      32,
      32,
      1,
      'scaled-dot',
      'self',
    ])
    expect(toParams(s).get('weights')).toBe('trained')
    expect(toParams(defaultState('en')).has('weights')).toBe(false)
    expect(parseParams(new URLSearchParams('weights=learned'), defaultState('en')).notices).toEqual([
      { param: 'weights', value: 'learned' },
    ])
    // The "it" preset is the trained model (issue 39 item 3: "it → animal" with one choice).
    const preset = { ...defaultState('en'), ...PRESETS.it } as PlaygroundState
    for (const k of ['weights', 'text', 'tokenizer', 'dModel', 'dq', 'dk', 'dv', 'heads', 'score'] as const)
      expect(preset[k], k).toEqual(s[k])
  })

  it('changing a size or the rule goes back to random weights; the text, mask or temperature keep them', () => {
    const s = trainedState()
    expect(settleWeights(s, { dModel: 16 }, { ...s, dModel: 16 }).weights).toBe('random')
    expect(settleWeights(s, { score: 'dot' }, { ...s, score: 'dot' }).weights).toBe('random')
    expect(settleWeights(s, { temperature: 2 }, { ...s, temperature: 2 }).weights).toBe('trained')
    expect(settleWeights(s, { mask: 'causal' }, { ...s, mask: 'causal' }).weights).toBe('trained')
    const back = settleWeights(
      defaultState('en'),
      { weights: 'trained' },
      { ...defaultState('en'), weights: 'trained' },
    )
    expect([back.dModel, back.tokenizer]).toEqual([32, 'word'])
  })
})
