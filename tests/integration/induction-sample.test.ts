// The model view's first-visit sample (public/samples/induction.safetensors): under 1 MB, and exactly the
// export of the committed weights. tests/fixtures/gen_induction_sample.py --export-only loads
// tests/fixtures/models/induction-sample.weights.safetensors into the same nn.TransformerEncoder and runs
// python/export_attention.py again; every tensor of that file equals the committed one within 1e-5, and
// the layer-2 heads attend from the second copy to the word after the first (the induction head).
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { readAttentionFile, readSafetensors } from '../../dist/index.js'
import { requireTorch } from '../support/tools'

const ROOT = new URL('../../', import.meta.url).pathname
const SAMPLE = join(ROOT, 'public/samples/induction.safetensors')
const SCRIPT = join(ROOT, 'tests/fixtures/gen_induction_sample.py')

describe('the induction sample model', () => {
  it('is the export of the committed weights (every tensor within 1e-5) and shows an induction head', () => {
    const py = requireTorch()
    expect(statSync(SAMPLE).size).toBeLessThan(1 << 20)
    const dir = mkdtempSync(join(tmpdir(), 'ap-sample-'))
    try {
      const out = join(dir, 'again.safetensors')
      execFileSync(py, [SCRIPT, '--export-only', out], { timeout: 120_000 })
      const committed = readSafetensors(readFileSync(SAMPLE))
      const again = readSafetensors(readFileSync(out))
      const names = [...committed.tensors.keys()].sort()
      expect(names.length).toBe(10) // weights, q, k, v, mask for each of the 2 layers
      expect([...again.tensors.keys()].sort()).toEqual(names)
      expect(again.metadata).toEqual(committed.metadata)
      for (const [name, t] of committed.tensors) {
        const u = again.tensors.get(name)!
        expect(u.shape, name).toEqual(t.shape)
        let worst = 0
        for (let i = 0; i < t.data.length; i++) worst = Math.max(worst, Math.abs(t.data[i] - u.data[i]))
        expect(worst, name).toBeLessThanOrEqual(1e-5)
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
    const file = readAttentionFile(readFileSync(SAMPLE))
    const words = file.tokens
    expect(words.join(' ')).toBe('rain bird moon kite lamp sun owl tree fish kite lamp sun owl tree fish queen jam cat')
    // the second copy (positions 9..14) attends to the word after its first occurrence (i − 5)
    const last = file.layers[1]
    const n = words.length
    const best = Math.max(
      ...Array.from({ length: last.heads }, (_, h) => {
        let s = 0
        for (let i = 9; i < 15; i++) s += last.weights.data[h * n * n + i * n + (i - 5)]
        return s / 6
      }),
    )
    expect(best).toBeGreaterThan(0.8)
  }, 150_000)
})
