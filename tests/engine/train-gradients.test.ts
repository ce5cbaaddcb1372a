// The trainer's backward pass against PyTorch autograd (tests/fixtures/gen_grad_fixtures.py, float64):
// every parameter's gradient, for every scoring rule, one head without a mask and two heads with the
// causal mask and a temperature, on a batch mixing head targets and attention pointers.
import { readdirSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { Tensor, TrainerOptions } from '../../dist/index.js'
import {
  loadFixture,
  toTensor,
  type TensorJson,
  ap,
  useEngine,
  itEachCase,
  expectGradientsLike,
} from '../support/helpers'

useEngine()

function create(opts: TrainerOptions) {
  return ap.createTrainer(opts)
}

const files = readdirSync(new URL('../fixtures/grad/', import.meta.url))
  .filter((f) => f.startsWith('grad-') && f.endsWith('.json'))
  .sort()

describe('trainer gradients equal PyTorch autograd', () => {
  it('has a fixture for every scoring rule', () => {
    expect(files).toEqual([
      'grad-additive.json',
      'grad-concat.json',
      'grad-dot.json',
      'grad-general.json',
      'grad-scaled-dot.json',
    ])
  })

  for (const file of files) {
    const fx = loadFixture(`grad/${file}`)
    for (const c of fx.cases) {
      it(c.name, () => {
        const { task, ...cfg } = c.config
        const tr = create({ task, seed: 0, ...cfg })
        try {
          expectGradientsLike(tr, c)
        } finally {
          tr.dispose()
        }
      })
    }
  }
})

describe('trainer optimizers equal torch.optim', () => {
  const fx = loadFixture('grad/optim.json')
  itEachCase(fx, (c) => {
    const { task, ...cfg } = c.config
    const tr = create({ task, seed: 0, ...cfg, optimizer: c.optimizer, lr: c.lr })
    try {
      const params: Record<string, Tensor> = {}
      for (const [k, v] of Object.entries<TensorJson>(c.params)) params[k] = toTensor(v)
      tr.setParameters(params)
      for (let s = 0; s < c.steps; s++) {
        const r = tr.trainOn(c.batch)
        expect(Math.abs(r.loss - c.losses[s]), `loss before step ${s + 1}`).toBeLessThan(
          1e-5 * Math.max(1, c.losses[s]),
        )
      }
      expect(tr.steps).toBe(c.steps)
      const got = tr.parameters()
      let moved = 0
      for (const [k, ref] of Object.entries<Tensor>(c.after)) {
        let maxErr = 0
        for (let i = 0; i < ref.data.length; i++) {
          maxErr = Math.max(maxErr, Math.abs(got[k].data[i] - ref.data[i]))
          if (Math.abs(ref.data[i] - c.params[k].data[i]) > 1e-6) moved++
        }
        // float32 vs float64 over a few steps; Adam moves each weight by about lr per step
        expect(maxErr, `${k}: max error ${maxErr}`).toBeLessThanOrEqual(2e-5)
      }
      expect(moved).toBeGreaterThan(100) // the steps did change the model
    } finally {
      tr.dispose()
    }
  })
})
