// The committed poems sample measured again in torch: scripts/poems_torch.py --check reads the file with
// python/attention_playground/reader.py into tests/fixtures/gpt_torch.py's model and gives the validation loss,
// the head scores and the first sampled poems that public/samples/poems.json states (the same seeds and sampler).
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { requireTorch } from '../support/tools'

const ROOT = new URL('../../', import.meta.url).pathname

describe('the poems sample in torch', () => {
  it('has the stated validation loss, head scores and poems', () => {
    const py = requireTorch()
    const report = JSON.parse(readFileSync(ROOT + 'public/samples/poems.json', 'utf8'))
    const out = execFileSync(
      py,
      [ROOT + 'scripts/poems_torch.py', '--check', ROOT + 'public/samples/poems.safetensors', '--samples', '20'],
      { encoding: 'utf8', timeout: 600_000 },
    )
    const again = JSON.parse(out)
    expect(again.val_loss).toBeCloseTo(report.file.val_loss, 4)
    // the scores to 4 decimals, as written (another BLAS than the one that trained it rounds a little otherwise)
    type Head = { scores: Record<string, number>; label: string | null }
    const heads = again.heads as Head[][]
    heads.forEach((layer, l) =>
      layer.forEach((h, i) => {
        const want = (report.file.heads as Head[][])[l][i]
        expect(h.label, `layer ${l} head ${i}`).toBe(want.label)
        for (const r of Object.keys(want.scores)) expect(h.scores[r]).toBeCloseTo(want.scores[r], 3)
      }),
    )
    expect(again.poems).toEqual(report.file.poems.slice(0, 20))
  }, 660_000)
})
