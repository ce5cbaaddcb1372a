// The two ways a nanoGPT checkpoint becomes the file ap.loadLanguageModel opens, under real PyTorch
// (/usr/bin/python3, Debian's python3-torch): the converter python/attention_playground/nanogpt.py and the torch
// snippet of docs/your-model.md (run as printed there). Both on tests/fixtures/lm/nanogpt-ckpt.pt, a checkpoint torch
// saved as nanoGPT's train.py does (_orig_mod. names, torch < 2 attn.bias buffers, tied lm_head, model_args), and
// its meta.pkl; the model opened must give the logits torch computed from that checkpoint (nanogpt-ref.json).
import { execFileSync, spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { readSafetensors } from '../../dist/index.js'
import { ap, expectTensorClose, loadFixture, useEngine } from '../support/helpers'
import { scratchDir } from '../support/scratch-dir'

const PY = '/usr/bin/python3'
const FIX = new URL('../fixtures/lm/', import.meta.url).pathname
const PYTHON_DIR = new URL('../../python/', import.meta.url).pathname
const ref = loadFixture('lm/nanogpt-ref.json')

useEngine()

beforeAll(() => {
  const probe = existsSync(PY) ? spawnSync(PY, ['-c', 'import torch'], { encoding: 'utf8' }) : null
  if (!probe || probe.status !== 0) {
    throw new Error(`lm-convert: PyTorch is needed under ${PY}; install it with: apt-get install -y python3-torch`)
  }
})

function opensWithTorchLogits(file: string): void {
  using m = ap.loadLanguageModel(readFileSync(file))
  expect(m.config).toMatchObject({
    vocabSize: ref.vocab.length,
    context: 16,
    layers: 2,
    heads: 2,
    dModel: 16,
    tied: true,
  })
  expect(m.vocab).toEqual(ref.vocab)
  expectTensorClose(m.forward(m.encode(ref.text)).logits, ref.logits, 'logits', { atol: 1e-5, rtol: 0 })
}

describe('python/attention_playground/nanogpt.py', () => {
  it("converts ckpt.pt + meta.pkl: nanoGPT's names without the prefix, the buffers or the tied lm_head; torch's logits", () => {
    const dir = scratchDir('ap-lm-')
    const out = join(dir, 'model.safetensors')
    const r = JSON.parse(
      execFileSync(
        PY,
        [
          '-m',
          'attention_playground.nanogpt',
          join(FIX, 'nanogpt-ckpt.pt'),
          '--meta',
          join(FIX, 'nanogpt-meta.pkl'),
          '-o',
          out,
        ],
        { cwd: PYTHON_DIR, encoding: 'utf8', timeout: 280_000 },
      ),
    )
    expect(r.metadata.n_head).toBe('2')
    expect(r.metadata.context).toBe('16')
    const f = readSafetensors(readFileSync(out))
    const names = [...f.tensors.keys()]
    expect(names.some((n) => n.startsWith('_orig_mod.') || n.endsWith('.attn.bias') || n === 'lm_head.weight')).toBe(
      false,
    )
    expect(names).toContain('transformer.h.1.mlp.c_proj.weight')
    opensWithTorchLogits(out)
  }, 300_000)

  it('says what is wrong: no vocabulary, a vocabulary of the wrong size', () => {
    const run = (args: string[]) =>
      spawnSync(PY, ['-m', 'attention_playground.nanogpt', join(FIX, 'nanogpt-ckpt.pt'), ...args], {
        cwd: PYTHON_DIR,
        encoding: 'utf8',
      })
    expect(run(['-o', '/dev/null']).stderr).toMatch(/give meta= \(nanoGPT's meta\.pkl\) or vocab=/)
    const dir = scratchDir('ap-lm-')
    writeFileSync(join(dir, 'v.json'), '["a", "b"]')
    expect(run(['--vocab', join(dir, 'v.json'), '-o', join(dir, 'x.safetensors')]).stderr).toMatch(
      /the vocabulary has 2 strings but transformer\.wte\.weight has 18 rows/,
    )
  }, 300_000)
})

describe('docs/your-model.md: the torch snippet', () => {
  it('runs as printed on a nanoGPT checkpoint and writes a file that gives torch’s logits', () => {
    const doc = readFileSync(new URL('../../docs/your-model.md', import.meta.url), 'utf8')
    const m = /<!-- nanogpt-snippet -->\s*```python\n([\s\S]*?)```/.exec(doc)
    expect(m, 'docs/your-model.md has the snippet after <!-- nanogpt-snippet -->').not.toBeNull()
    const dir = scratchDir('ap-lm-')
    mkdirSync(join(dir, 'out'))
    mkdirSync(join(dir, 'data', 'shakespeare_char'), { recursive: true })
    copyFileSync(join(FIX, 'nanogpt-ckpt.pt'), join(dir, 'out', 'ckpt.pt'))
    copyFileSync(join(FIX, 'nanogpt-meta.pkl'), join(dir, 'data', 'shakespeare_char', 'meta.pkl'))
    writeFileSync(join(dir, 'snippet.py'), m![1])
    execFileSync(PY, ['snippet.py'], { cwd: dir, encoding: 'utf8', timeout: 280_000 })
    opensWithTorchLogits(join(dir, 'model.safetensors'))
  }, 300_000)
})
