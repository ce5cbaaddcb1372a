// The trained poems sample (public/samples/poems.safetensors and poems.json, made by
// `/usr/bin/python3 scripts/poems_torch.py --sample`): a nanoGPT-layout file of the shape its metadata states,
// the corpus's vocabulary, F16, under its byte budget; the share of its sampled poems that keep the form, counted
// again here by scripts/poem-form.mjs, is the one scripts/poems_torch.py wrote (its Python checker agrees with
// this one) and reaches the target of issue 37 (>= 90 %). No build, no torch (the unit tier).
import { readFileSync, statSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { formShare } from '../../scripts/poem-form.mjs'
import { readSafetensors } from 'attention-playground/files'

const ROOT = new URL('../../', import.meta.url).pathname
const FILE = ROOT + 'public/samples/poems.safetensors'
const vocab = JSON.parse(readFileSync(ROOT + 'public/poems/vocab.json', 'utf8')) as string[]
const report = JSON.parse(readFileSync(ROOT + 'public/samples/poems.json', 'utf8')) as {
  script: string
  shape: { layers: number; heads: number; dModel: number; context: number; steps: number; seed: number }
  checkpoints: { step: number; val_loss: number; form: number }[]
  file: { dtype: string; val_loss: number; form: number; poems: string[] }
}

describe('the poems sample (public/samples/poems.safetensors)', () => {
  const file = readSafetensors(readFileSync(FILE))
  const meta = file.metadata
  const { layers, heads, dModel: C, context: T } = report.shape

  it('is a nanoGPT state dict of the stated shape with the corpus vocabulary, F16, under 1 MB', () => {
    expect(statSync(FILE).size).toBeLessThan(1 << 20)
    expect(JSON.parse(meta.vocab)).toEqual(vocab)
    expect(meta.n_head).toBe(String(heads))
    expect(meta.positions).toBe('learned')
    expect(meta.context).toBe(String(T))
    expect(meta.script).toBe('scripts/poems_torch.py')
    expect(meta.steps).toBe(String(report.shape.steps))
    expect(meta.seed).toBe(String(report.shape.seed))
    expect(Number(meta.val_loss)).toBeCloseTo(report.file.val_loss, 4)
    const V = vocab.length
    const want = new Map<string, number[]>([
      ['transformer.wte.weight', [V, C]],
      ['transformer.wpe.weight', [T, C]],
      ['transformer.ln_f.weight', [C]],
      ['transformer.ln_f.bias', [C]],
    ])
    for (let l = 0; l < layers; l++) {
      const b = `transformer.h.${l}.`
      for (const ln of ['ln_1', 'ln_2']) {
        want.set(b + ln + '.weight', [C])
        want.set(b + ln + '.bias', [C])
      }
      want.set(b + 'attn.c_attn.weight', [3 * C, C]).set(b + 'attn.c_attn.bias', [3 * C])
      want.set(b + 'attn.c_proj.weight', [C, C]).set(b + 'attn.c_proj.bias', [C])
      want.set(b + 'mlp.c_fc.weight', [4 * C, C]).set(b + 'mlp.c_fc.bias', [4 * C])
      want.set(b + 'mlp.c_proj.weight', [C, 4 * C]).set(b + 'mlp.c_proj.bias', [C])
    }
    expect(new Map([...file.tensors].map(([k, t]) => [k, t.shape]))).toEqual(want) // lm_head tied: absent
    for (const [k, t] of file.tensors) {
      expect(t.dtype, k).toBe('F16')
      expect(
        t.data.every((x) => Number.isFinite(x)),
        k,
      ).toBe(true)
    }
  })

  it('writes poems that keep the form (>= 90 % of >= 200 at temperature 0.8), as counted by poem-form.mjs', () => {
    const poems = report.file.poems
    expect(poems.length).toBeGreaterThanOrEqual(200)
    const { share } = formShare(poems)
    expect(share).toBeCloseTo(report.file.form, 4)
    expect(share).toBeGreaterThanOrEqual(0.9)
    // every poem starts with the first character of a validation poem (the prompts) and uses the vocabulary
    const known = new Set(vocab)
    const first = readFileSync(ROOT + 'public/poems/validation.txt', 'utf8')
      .split('\n')
      .map((p) => [...p][0])
    poems.forEach((p, i) => {
      expect([...p][0], `poem ${i}`).toBe(first[i])
      expect(
        [...p].every((c) => known.has(c)),
        `poem ${i}`,
      ).toBe(true)
    })
  })

  it("has the validation loss of the script's last checkpoint, up to F16's rounding", () => {
    const last = report.checkpoints.at(-1)!
    expect(last.step).toBe(report.shape.steps)
    expect(Math.abs(report.file.val_loss - last.val_loss)).toBeLessThan(0.01)
    expect(report.file.val_loss).toBeLessThan(4.6) // the target docs/design.md states for the sample (measured 4.54)
  })
})
