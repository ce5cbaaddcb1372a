// ap.createTrainer({ task: 'poems' }) (issue 37 item 6) against torch: tests/fixtures/lm/lm-train.json
// (gen_lm_train_fixture.py, gpt_torch.py in float64 from the same float32 start) gives the losses of 3 AdamW steps
// of nanoGPT's recipe on fixed windows, then the validation loss and every head's scores; here the trainer starts
// from the same weights (setParameters) and trains on the same windows (trainOn). Also its config and defaults, the
// errors (each naming the option), the export opened by ap.loadLanguageModel, and dispose. Both engines.
import { describe, expect, it } from 'vitest'
import { AttentionError, type PoemsTrainer } from '../../dist/index.js'
import { ap, loadFixture, useEngine } from '../support/helpers'

useEngine()

const fx = loadFixture('lm/lm-train.json')
const REL = 1e-4

function fromFixture(): PoemsTrainer {
  const c = fx.config as Record<string, number>
  const tr = ap.createTrainer({
    task: 'poems',
    ...c,
    seed: 3,
    vocab: fx.vocab as string[],
    validation: fx.validation as number[],
  })
  const params: Record<string, { data: Float32Array; shape: number[] }> = {}
  for (const [name, t] of Object.entries(fx.params as Record<string, { shape: number[]; data: number[] }>)) {
    params[name] = { data: Float32Array.from(t.data), shape: t.shape }
  }
  tr.setParameters(params)
  return tr
}

const rel = (a: number, b: number) => Math.abs(a - b) / Math.abs(b)

describe("createTrainer({ task: 'poems' })", () => {
  it('has the default shape of LM-SPEC.md as trainer.config', () => {
    using tr = ap.createTrainer({ task: 'poems' })
    expect(tr.config).toMatchObject({
      task: 'poems',
      layers: 2,
      heads: 4,
      dModel: 64,
      vocabSize: 2401,
      context: 64,
      batch: 32,
      positions: 'learned',
      lr: 3e-3,
      warmup: 100,
      decaySteps: 500,
      weightDecay: 0.1,
      gradClip: 0,
      windows: 0,
    })
    expect(tr.config.minLr).toBeCloseTo(3e-4, 15) // lr / 10
    // wte 2401·64 + wpe 64·64 + 2 blocks · (12·64² + 13·64) + ln_f 2·64 (tied: no lm_head)
    expect(tr.config.parameters).toBe(2401 * 64 + 64 * 64 + 2 * (12 * 64 * 64 + 13 * 64) + 2 * 64)
    // nanoGPT's get_lr(0): lr / (warmup + 1)
    expect(tr.lrInUse).toBeCloseTo(3e-3 / 101, 12)
    expect(tr.steps).toBe(0)
    expect(Object.isFrozen(tr.config)).toBe(true)
  })

  it("3 AdamW steps give torch's losses, then its validation loss and head scores", () => {
    using tr = fromFixture()
    const steps = fx.steps as { windows: number[][]; lr: number; loss: number }[]
    for (const [i, s] of steps.entries()) {
      expect(tr.lrInUse).toBeCloseTo(s.lr, 9)
      const { loss } = tr.trainOn(s.windows)
      expect(rel(loss, s.loss), `step ${i + 1}: ${loss} vs torch ${s.loss}`).toBeLessThanOrEqual(REL)
    }
    expect(tr.steps).toBe(3)
    const val = tr.evaluate().loss
    expect(rel(val, fx.valLoss as number), `validation ${val} vs ${fx.valLoss}`).toBeLessThanOrEqual(REL)
    const hs = tr.headScores()
    const want = fx.headScores as Record<string, number[][]>
    for (const role of ['previousLine', 'previousChar', 'lineEnd'] as const) {
      hs[role].forEach((row, l) => row.forEach((v, h) => expect(v).toBeCloseTo(want[role][l][h], 4)))
    }
    expect(hs.labels).toEqual(want.labels)
  })

  it('exports the weights as a nanoGPT safetensors file that loadLanguageModel opens with the same numbers', () => {
    using tr = fromFixture()
    tr.trainOn((fx.steps as { windows: number[][] }[])[0].windows)
    const bytes = tr.exportSafetensors()
    using m = ap.loadLanguageModel(bytes)
    expect(m.config).toMatchObject({ layers: 2, heads: 2, dModel: 16, vocabSize: 13, context: 12, tied: true })
    expect(m.vocab).toEqual(fx.vocab)
    const mine = tr.parameters()
    const theirs = m.parameters()
    expect(Object.keys(theirs).sort()).toEqual(Object.keys(mine).sort())
    for (const [k, t] of Object.entries(mine)) expect(theirs[k].data).toEqual(t.data)
    // its sampler is the package's: the same poem for the same prompt and seed
    const s = tr.sample({ prompt: '床', seed: 5, temperature: 0.8 })
    const g = m.generate({ prompt: '床', seed: 5, temperature: 0.8 })
    expect(s.ids).toEqual(g.ids)
    expect(s.text).toBe(g.text)
    if (g.reason === 'stop') expect(s.poem).toBe(('床' + g.text).split('\n')[0])
    else expect(s.poem).toBeUndefined()
  })

  it('trains on drawn windows: seeded, and the loss falls', () => {
    const stream = fx.validation as number[]
    const make = () =>
      ap.createTrainer({
        task: 'poems',
        layers: 1,
        heads: 2,
        dModel: 16,
        context: 8,
        batch: 4,
        vocab: fx.vocab as string[],
        train: [...stream, ...stream, ...stream],
        validation: stream,
        seed: 1,
        warmup: 2,
        decaySteps: 40,
        lr: 1e-2,
      })
    using a = make()
    using b = make()
    expect(a.config.windows).toBe(11) // every poem start with 9 ids after it: all 12 but the last (7 ids)
    const first = a.step(1).loss
    const later = a.step(40).loss
    expect(b.step(1).loss).toBe(first)
    expect(b.step(40).loss).toBe(later)
    expect(later).toBeLessThan(first * 0.8)
    expect(a.steps).toBe(41)
  })

  it('rejects unknown and out-of-range options, naming them, and keeps working', () => {
    const bad: [Record<string, unknown>, RegExp][] = [
      [{ dmodel: 64 }, /unknown option 'dmodel' \(did you mean 'dModel'\?\)/],
      [{ layers: 0 }, /^layers: expected an integer from 1 to 24, got 0/],
      [{ heads: 3 }, /heads/],
      [{ context: 2.5 }, /^context: expected an integer/],
      [{ batch: 4096 }, /^batch: must be an integer from 1 to 1024/],
      [{ lr: 0 }, /^lr: expected a number above 0/],
      [{ warmup: 10, decaySteps: 10 }, /^decaySteps: expected an integer from 11/],
      [{ minLr: 1 }, /^minLr: /],
      [{ positions: 'sinusoidal' }, /^positions: expected 'learned' or 'rope'/],
      [{ vocab: ['a', 'b'], vocabSize: 3 }, /^vocabSize: 3 does not match vocab's 2/],
      [{ train: [1, 2, 2401] }, /^train\[2\]: expected a token id from 0 to 2400, got 2401/],
      [{ train: [1, 2, 3] }, /^train: must end with id 0/],
      [{ validation: 'abc' }, /^validation: expected an array/],
      [{ seed: -1 }, /^seed: /],
    ]
    for (const [opts, re] of bad) {
      expect(() => ap.createTrainer({ task: 'poems', ...opts } as never), JSON.stringify(opts)).toThrow(AttentionError)
      expect(() => ap.createTrainer({ task: 'poems', ...opts } as never)).toThrow(re)
    }
    using tr = ap.createTrainer({ task: 'poems', layers: 1, dModel: 16, heads: 2, context: 8, vocabSize: 13 })
    expect(() => tr.step(1)).toThrow(/^train: no window of context \+ 1 = 9 ids/)
    expect(() => tr.evaluate()).toThrow(/^validation: no validation ids were given/)
    expect(() =>
      tr.trainOn([
        [1, 2, 3],
        [1, 2],
      ]),
    ).toThrow(/^windows\[1\]: has 2 ids, windows\[0\] has 3/)
    expect(() => tr.trainOn([[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]])).toThrow(/^windows: each window must have 2 to/)
    expect(() => tr.sample({ prompt: [1], temperature: -1 })).toThrow(/temperature/)
    expect(() => tr.setParameters({ 'transformer.wte.weight': { data: new Float32Array(3), shape: [3] } })).toThrow(
      /^parameters\.transformer\.wte\.weight: expected \[13, 16\], got \[3\]/,
    )
    expect(tr.trainOn([[1, 2, 3]]).loss).toBeGreaterThan(0)
  })

  it('dispose frees the wasm memory', () => {
    const stream = fx.validation as number[]
    const before = ap.memoryStats().allocatedBytes
    for (let i = 0; i < 3; i++) {
      const tr = ap.createTrainer({
        task: 'poems',
        vocabSize: 13,
        dModel: 32,
        train: stream,
        validation: stream,
        context: 12,
      })
      tr.step(1)
      tr.evaluate()
      tr.dispose()
      tr.dispose() // twice is fine
      expect(() => tr.step(1)).toThrow(/already disposed/)
    }
    expect(ap.memoryStats().allocatedBytes).toBeLessThanOrEqual(before + 64 * 1024)
  })
})
