// The trainer with each position encoding against PyTorch autograd (tests/fixtures/gen_grad_positions.py:
// hand-written torch, rope as transformers' rotate_half / apply_rotary_pos_emb): the loss and every parameter's
// gradient, for learned, sinusoidal, rope and none, one head open and two heads causal; then training itself.
import { describe, expect, it } from 'vitest'
import type { TrainerOptions } from '../../dist/index.js'
import { ap, expectGradientsLike, loadFixture, useEngine } from '../support/helpers'

useEngine()

const fx = loadFixture('grad/positions.json')

describe('trainer gradients with positions equal PyTorch autograd', () => {
  it('covers every encoding the trainer takes', () => {
    const names = new Set(fx.cases.map((c: { config: { positions: string } }) => c.config.positions))
    expect([...names].sort()).toEqual(['learned', 'none', 'rope', 'sinusoidal'])
  })

  for (const c of fx.cases) {
    it(c.name, () => {
      const { task, ...cfg } = c.config
      const tr = ap.createTrainer({ task, seed: 0, ...cfg } as TrainerOptions)
      try {
        expect(tr.info.config.positions).toBe(c.config.positions)
        expectGradientsLike(tr, c)
      } finally {
        tr.dispose()
      }
    })
  }
})

describe('training with positions', () => {
  // Reversing 6 digits needs each digit's place: without positions the rows see the same set of digits.
  const heldOut = (positions: TrainerOptions['positions']) => {
    const tr = ap.createTrainer({ task: 'reverse', dModel: 32, seed: 4, positions })
    try {
      for (let i = 0; i < 6; i++) tr.step(50)
      return tr.evaluate().accuracy
    } finally {
      tr.dispose()
    }
  }

  it('reverse: sinusoidal positions learn it, no positions cannot', () => {
    const none = heldOut('none')
    const sinusoidal = heldOut('sinusoidal')
    expect(sinusoidal).toBeGreaterThan(0.9)
    expect(none).toBeLessThan(0.45)
  })

  it('rope: nothing added to the residual stream, no position parameter; the default stays learned', () => {
    const rope = ap.createTrainer({ task: 'induction', positions: 'rope', seed: 1 })
    const plain = ap.createTrainer({ task: 'induction', seed: 1 })
    try {
      expect(Object.keys(rope.parameters())).not.toContain('position')
      expect(plain.info.config.positions).toBe('learned')
      expect(Object.keys(plain.parameters())).toContain('position')
      expect(rope.info.config.ropeBase).toBe(10000)
      const before = rope.evaluate().loss
      rope.step(40)
      expect(rope.evaluate().loss).toBeLessThan(before)
    } finally {
      rope.dispose()
      plain.dispose()
    }
  })
})
