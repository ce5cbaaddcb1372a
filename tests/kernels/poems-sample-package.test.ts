// The committed poems sample through the package: ap.loadLanguageModel opens public/samples/poems.safetensors
// (F16, read into float32) and model.generate with the prompts and seeds scripts/poems_torch.py used (the first
// character of validation poem i, temperature 0.8, seed 1 + i) writes the poems torch sampled, which
// public/samples/poems.json holds; the share of them in form (scripts/poem-form.mjs) is then the stated one.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { formShare } from '../../scripts/poem-form.mjs'
import { ap, useEngine } from '../support/helpers'

useEngine()

const ROOT = new URL('../../', import.meta.url).pathname
const report = JSON.parse(readFileSync(ROOT + 'public/samples/poems.json', 'utf8')) as {
  file: { poems: string[]; form: number }
}
const prompts = readFileSync(ROOT + 'public/poems/validation.txt', 'utf8')
  .split('\n')
  .map((p) => [...p][0])

describe('the poems sample in the package', () => {
  it("writes torch's sampled poems with generate (the first 40 of 250)", () => {
    using m = ap.loadLanguageModel(readFileSync(ROOT + 'public/samples/poems.safetensors'))
    const written = Array.from({ length: 40 }, (_, i) => {
      const r = m.generate({ prompt: prompts[i], maxTokens: 63, temperature: 0.8, seed: 1 + i })
      return prompts[i] + r.text
    })
    expect(written).toEqual(report.file.poems.slice(0, 40))
    expect(formShare(written).share).toBeCloseTo(formShare(report.file.poems.slice(0, 40)).share, 10)
  })
})
