// The backward view's "Copy as PyTorch code": the program (web/export/backward-pytorch.ts) must print, under
// real PyTorch (/usr/bin/python3, torch.autograd after loss.backward()), the gradients ap.runBackward gives.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { RunOptions } from 'attention-playground'
import { ap, expectAllClose, useEngine, type Tol } from '../support/helpers'
import { requireTorch } from '../support/tools'
import { backwardProgram } from '../../web/export/backward-pytorch'
import { head0, outputRow, type Goal } from '../../web/compute/backward'

useEngine()
const dir = mkdtempSync(join(tmpdir(), 'ap-backward-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const TOL: Tol = { atol: 1e-7, rtol: 1e-5, atolOfMax: 1e-5 }

interface Case {
  name: string
  run: RunOptions
  goal: Omit<Goal, 'target'>
}

const CASES: Case[] = [
  { name: 'the course program, attend 0 → 3', run: {}, goal: { kind: 'attend', i: 0, j: 3 } },
  {
    name: 'char tokens, causal, small sizes, output row 3 → row 1',
    run: { text: '我爱中国', tokenizer: 'char', mask: 'causal', dq: 8, dk: 8, dv: 6, dModel: 8 },
    goal: { kind: 'output', i: 3, j: 1 },
  },
  {
    name: 'two heads, scale off, temperature 2, attend 2 → 1',
    run: { text: 'the cat sat down', heads: 2, scale: false, temperature: 2, dq: 8, dk: 8, dv: 8 },
    goal: { kind: 'attend', i: 2, j: 1 },
  },
  {
    name: 'cross attention, output row 0 → row 2',
    run: { source: '我 爱 中国 啊', target: 'I love China', dModel: 8, dq: 8, dk: 8, dv: 4 },
    goal: { kind: 'output', i: 0, j: 2 },
  },
]

function flat(x: unknown): number[] {
  return Array.isArray(x) ? x.flatMap(flat) : [x as number]
}

describe('the backward view’s PyTorch program prints the engine’s gradients', () => {
  for (const c of CASES) {
    it(c.name, () => {
      const py = requireTorch()
      const first = ap.run(c.run)
      const goal: Goal = { ...c.goal, target: c.goal.kind === 'output' ? outputRow(first, c.goal.j) : null }
      const loss =
        goal.kind === 'attend'
          ? ({ kind: 'attend', query: goal.i, key: goal.j } as const)
          : ({ kind: 'output', query: goal.i, target: Array.from(goal.target!) } as const)
      const r = ap.runBackward({ ...c.run, loss })
      const file = join(dir, 'program.py')
      writeFileSync(file, backwardProgram(r, goal))
      const out = JSON.parse(execFileSync(py, [file], { encoding: 'utf8' }))
      expect(out.loss).toBeCloseTo(r.loss, 5)
      const names = ['gradEmbeddings', 'gradWq', 'gradWk', 'gradWv', 'gradQuery', 'gradKey', 'gradValue'] as const
      for (const k of [...names, 'gradOutput'] as const) expectAllClose(r[k].data, flat(out[k]), k, TOL)
      if (r.gradSourceEmbeddings)
        expectAllClose(r.gradSourceEmbeddings.data, flat(out.gradSourceEmbeddings), 'gradSourceEmbeddings', TOL)
      // per head: the engine's [heads, nq, nk] (or [nq, nk]) against the program's list of heads, in order
      expectAllClose(r.gradWeights.data, flat(out.gradWeights), 'gradWeights', TOL)
      expectAllClose(r.gradScores.data, flat(out.gradScores), 'gradScores', TOL)
      expect(head0(r.gradScores).shape).toEqual([r.tokens.length, (r.sourceTokens ?? r.tokens).length])
    })
  }
})
