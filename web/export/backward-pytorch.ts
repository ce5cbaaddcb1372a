// "Copy as PyTorch code" of the backward view: a program that builds the same forward pass from the view's
// numbers, calls loss.backward() and prints the gradients as JSON (tests/integration/export-backward.test.ts runs it
// under torch and compares with ap.runBackward). No text the learner typed goes into the program.

import type { RunBackwardResult, Tensor } from 'attention-playground'
import { pyTensor } from './pytorch'
import { f32 } from './csv'
import type { Goal } from '../compute/backward'
import { head0 } from '../compute/backward'

function maskRows(r: RunBackwardResult): string {
  const m = head0(r.maskedScores)
  const [nq, nk] = m.shape
  const rows: string[] = []
  for (let i = 0; i < nq; i++) {
    const row = Array.from(m.data.subarray(i * nk, (i + 1) * nk), (v) => (v === -Infinity ? 'True' : 'False'))
    rows.push(`    [${row.join(', ')}],`)
  }
  return `torch.tensor([\n${rows.join('\n')}\n])`
}

const leaf = (name: string, t: Tensor) => `${name} = ${pyTensor(t, '    ', '')}.double().requires_grad_()`

/** The program for the view's current numbers (r: its last runBackward) and goal. */
export function backwardProgram(r: RunBackwardResult, goal: Goal): string {
  const cross = !!r.sourceEmbeddings
  const o = r.options
  const loss =
    goal.kind === 'attend'
      ? `loss = -torch.log(weights[0][${goal.i}, ${goal.j}])  # make token ${goal.i} attend to token ${goal.j}`
      : [
          `target = torch.tensor([${Array.from(goal.target!, (v) => f32(v)).join(', ')}]).double()`,
          `loss = ((O[${goal.i}] - target) ** 2).sum()  # make output row ${goal.i} equal the target`,
        ].join('\n')
  // the package's names for the program's tensors
  const grads: Array<[string, string]> = [
    ['gradEmbeddings', 'E'],
    ['gradWq', 'Wq'],
    ['gradWk', 'Wk'],
    ['gradWv', 'Wv'],
    ['gradQuery', 'Q'],
    ['gradKey', 'K'],
    ['gradValue', 'V'],
    ['gradOutput', 'O'],
  ]
  return [
    '# Attention Playground: the backward pass of attention, with torch.autograd.',
    'import json',
    '',
    'import torch',
    '',
    leaf('E', r.embeddings),
    cross ? leaf('E_source', r.sourceEmbeddings!) : 'E_source = E  # self-attention',
    leaf('Wq', r.Wq),
    leaf('Wk', r.Wk),
    leaf('Wv', r.Wv),
    `masked = ${maskRows(r)}  # True: the key is masked for this query`,
    `scale, temperature, heads = ${f32(Math.fround(r.scale))}, ${f32(Math.fround(o.temperature))}, ${o.heads}`,
    '',
    'Q, K, V = E @ Wq, E_source @ Wk, E_source @ Wv',
    'for t in (Q, K, V):',
    '    t.retain_grad()',
    'dqh, dvh = Q.shape[1] // heads, V.shape[1] // heads',
    'full = masked.all(1)  # fully masked rows: weights 0 (PyTorch alone would give NaN)',
    'outs, weights, scores = [], [], []',
    'for h in range(heads):',
    '    q, k, v = Q[:, h * dqh:(h + 1) * dqh], K[:, h * dqh:(h + 1) * dqh], V[:, h * dvh:(h + 1) * dvh]',
    '    S = scale * (q @ k.T) / temperature',
    '    S.retain_grad()',
    "    A = torch.softmax(S.masked_fill(masked, float('-inf')).masked_fill(full[:, None], 0.0), dim=-1)",
    '    A = A * (~full)[:, None]',
    '    A.retain_grad()',
    '    outs.append(A @ v)',
    '    weights.append(A)',
    '    scores.append(S)',
    'O = torch.cat(outs, dim=1)',
    'O.retain_grad()',
    loss,
    'loss.backward()',
    '',
    '',
    'def grad(t):',
    '    return (t.grad if t.grad is not None else torch.zeros_like(t)).tolist()',
    '',
    '',
    'print(json.dumps({',
    "    'loss': loss.item(),",
    ...grads.map(([name, v]) => `    '${name}': grad(${v}),`),
    ...(cross ? ["    'gradSourceEmbeddings': grad(E_source),"] : []),
    "    'gradWeights': [grad(a) for a in weights],",
    "    'gradScores': [grad(s) for s in scores],",
    '}))',
    '',
  ].join('\n')
}
