// Export: the whole configuration as a PyTorch program that prints the same numbers.
//
// Everything the learner typed ends up in the Python program only inside string literals written by
// JSON.stringify (valid Python literals), never in comments or code, so a sentence such as
// `"\nimport os` cannot inject Python.

import { commentsToZh } from './comments-zh'
import { TRAINED } from '../compute/trained'
import type { ScoreRule, Tensor, Trace } from 'attention-playground'
import type { PlaygroundState } from '../params'
import { PER_HEAD_STEPS } from '../compute/heads'
import { maskMatrix, paddedKeys, range } from '../compute/masks'
import { f32 } from './csv'

const py = (s: string) => JSON.stringify(s)
const pyList = (xs: readonly (string | number)[]) =>
  `[${xs.map((x) => (typeof x === 'string' ? py(x) : String(x))).join(', ')}]`

export function pyTensor(t: Tensor, indent: string, closeIndent: string): string {
  const [rows, cols] = t.shape
  const lines: string[] = []
  for (let i = 0; i < rows; i++) {
    const row = Array.from(t.data.subarray(i * cols, (i + 1) * cols), (v) => f32(v))
    lines.push(`${indent}[${row.join(', ')}],`)
  }
  return `torch.tensor([\n${lines.join('\n')}\n${closeIndent}])`
}

function wrapList(name: string, xs: readonly (string | number)[]): string {
  const one = `${name} = ${pyList(xs)}`
  if (one.length <= 100) return one
  const items = xs.map((x) => (typeof x === 'string' ? py(x) : String(x)))
  const lines: string[] = []
  let cur = ''
  for (const it of items) {
    if (cur && cur.length + it.length + 2 > 92) {
      lines.push(cur)
      cur = ''
    }
    cur += (cur ? ' ' : '') + it + ','
  }
  if (cur) lines.push(cur)
  return `${name} = [\n${lines.map((l) => '    ' + l).join('\n')}\n]`
}

/** The sizes every section reads. */
interface Shape {
  cross: boolean
  heads: number
  dModel: number
  dq: number
  dk: number
  dv: number
  nq: number
  nk: number
}

function shapeOf(state: PlaygroundState, trace: Trace): Shape {
  const cross = state.mode === 'cross' && !!trace.sourceTokens
  const nq = trace.tokens.length
  return {
    cross,
    heads: trace.heads || 1,
    dModel: trace.embeddings.shape[1],
    dq: trace.Wq.shape[1],
    dk: trace.Wk.shape[1],
    dv: trace.Wv.shape[1],
    nq,
    nk: cross ? (trace.sourceTokens?.length ?? nq) : nq,
  }
}

/** Per scoring rule: how its parameters are drawn per head (nn.Linear, in the engine's order) and the score. */
interface RuleCode {
  params: (nk: number) => string[]
  score: string[]
}
const DOT_CODE: RuleCode = {
  params: () => ['    params.append({})   # dot products have no parameters'],
  score: ['        return q @ k.T'],
}
const RULE_CODE: Record<ScoreRule, RuleCode> = {
  dot: DOT_CODE,
  'scaled-dot': DOT_CODE,
  general: {
    params: () => ['    params.append({"W": nn.Linear(dkh, dqh, bias=False).weight.detach()})   # q^T W k'],
    score: ['        return (q @ p["W"]) @ k.T'],
  },
  additive: {
    params: () => [
      '    Wa_q = nn.Linear(dqh, dkh, bias=False).weight.detach()   # v^T tanh(Wa_q q + Wa_k k)',
      '    Wa_k = nn.Linear(dkh, dkh, bias=False).weight.detach()',
      '    v = nn.Linear(dkh, 1, bias=False).weight.detach()[0]',
      '    params.append({"Wq": Wa_q, "Wk": Wa_k, "v": v})',
    ],
    score: [
      '        a = q @ p["Wq"].T                  # [nq, h]',
      '        b = k @ p["Wk"].T                  # [nk, h]',
      '        return torch.tanh(a[:, None, :] + b[None, :, :]) @ p["v"]',
    ],
  },
  concat: {
    params: (nk) => [
      `    lin = nn.Linear(dqh + dkh, ${nk})   # one score per value row from [q_i; k_i]`,
      '    params.append({"W": lin.weight.detach(), "b": lin.bias.detach()})',
    ],
    score: [
      '        W, b = p["W"], p["b"]',
      '        return q @ W[:, :q.shape[1]].T + k @ W[:, q.shape[1]:].T + b   # needs nq == nk',
    ],
  },
}

function headerSection(state: PlaygroundState, trace: Trace, sh: Shape): string[] {
  const L = [
    '# Attention Playground: this program reproduces the numbers on screen with PyTorch.',
    '# Run: python3 attention.py        (--json: strict JSON, masked scores as the string "-inf"; --help)',
    "# The random draws follow PyTorch's CPU generator in the same order as the playground:",
    "# embedding table, W_q, W_k, W_v, then the scoring rule's parameters per head.",
    'import json',
    'import math',
    'import sys',
    '',
    'import torch',
    'import torch.nn as nn',
    '',
    `seed = ${state.seed}`,
    `d_model, d_q, d_k, d_v = ${sh.dModel}, ${sh.dq}, ${sh.dk}, ${sh.dv}`,
    `heads = ${sh.heads}`,
    `score_rule = ${py(state.score)}`,
    `temperature = ${f32(Math.fround(state.temperature))}`,
    '',
    `# Tokenization (${state.tokenizer}) done by the playground and written out here, so this program needs no tokenizer.`,
  ]
  if (sh.cross) L.push(`source_text = ${py(state.source)}`, `target_text = ${py(state.target)}`)
  else L.push(`text = ${py(state.text)}`)
  L.push(wrapList('vocab', trace.vocab))
  if (sh.cross) {
    L.push(wrapList('source_tokens', trace.sourceTokens ?? []), wrapList('source_ids', trace.sourceTokenIds ?? []))
    L.push(wrapList('target_tokens', trace.tokens), wrapList('target_ids', trace.tokenIds))
  } else {
    L.push(wrapList('tokens', trace.tokens), wrapList('token_ids', trace.tokenIds))
  }
  return L
}

/** Per encoding: the helpers it needs, written out from their sources (docs/positions.md). */
const POSITION_HELPERS: Record<PlaygroundState['positions'], string[]> = {
  none: [],
  learned: [],
  sinusoidal: [
    '',
    'def sinusoidal(n, d):',
    '    # P[m, 2i] = sin(m / 10000^(2i/d)), P[m, 2i+1] = cos(same)   (Vaswani et al. 2017)',
    '    m = torch.arange(n, dtype=torch.float64)[:, None]',
    '    c = torch.arange(d)',
    '    angle = m / 10000.0 ** ((c - c % 2).double() / d)',
    '    return torch.where(c % 2 == 0, torch.sin(angle), torch.cos(angle)).float()',
  ],
  rope: [
    '',
    'def rotate_half(x):',
    '    # as transformers: dimension i pairs with i + d/2',
    '    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2 :]',
    '    return torch.cat((-x2, x1), dim=-1)',
    '',
    '',
    'def rope(x, base):',
    '    # as LLaMA: position m turns pair i by m * base^(-2i/d)',
    '    d = x.shape[-1]',
    '    inv_freq = 1.0 / (base ** (torch.arange(0, d, 2).float() / d))',
    '    freqs = torch.outer(torch.arange(x.shape[0]).float(), inv_freq)',
    '    emb = torch.cat((freqs, freqs), dim=-1)',
    '    return x * emb.cos() + rotate_half(x) * emb.sin()',
  ],
  alibi: [
    '',
    'def alibi_slopes(n_heads):',
    "    # as BLOOM's build_alibi_tensor (also for a head count that is not a power of two)",
    '    closest = 2 ** math.floor(math.log2(n_heads))',
    '    base = torch.tensor(2 ** (-(2 ** -(math.log2(closest) - 3))), dtype=torch.float32)',
    '    slopes = torch.pow(base, torch.arange(1, 1 + closest, dtype=torch.int32))',
    '    if closest != n_heads:',
    '        extra = torch.tensor(2 ** (-(2 ** -(math.log2(2 * closest) - 3))), dtype=torch.float32)',
    '        k = torch.arange(1, 1 + 2 * min(closest, n_heads - closest), 2, dtype=torch.int32)',
    '        slopes = torch.cat([slopes, torch.pow(extra, k)])',
    '    return slopes',
  ],
}

function drawsSection(state: PlaygroundState, sh: Shape): string[] {
  const n = Math.max(sh.nq, sh.nk)
  const table =
    state.positions === 'learned'
      ? [`P = nn.Embedding(${n}, d_model).weight.detach()   # learned positions, drawn right after the embeddings`]
      : state.positions === 'sinusoidal'
        ? [`P = sinusoidal(${n}, d_model)   # fixed positions`]
        : []
  return [
    ...POSITION_HELPERS[state.positions],
    '',
    'torch.manual_seed(seed)',
    'E = nn.Embedding(len(vocab), d_model)           # normal_(0, 1) draws',
    ...table,
    'W_q = torch.rand(d_model, d_q)',
    'W_k = torch.rand(d_model, d_k)',
    'W_v = torch.rand(d_model, d_v)',
    'dqh, dkh, dvh = d_q // heads, d_k // heads, d_v // heads',
    'params = []',
    'for h in range(heads):',
    ...RULE_CODE[state.score].params(sh.nk),
  ]
}

/** The embeddings, the edited tensors written out whole (the trace holds what the engine used), Q, K, V. */
function inputsSection(state: PlaygroundState, trace: Trace, sh: Shape): string[] {
  const L = ['', 'with torch.no_grad():']
  if (sh.cross) {
    L.push(
      '    x = E(torch.tensor(target_ids))        # decoder side: queries',
      '    x_src = E(torch.tensor(source_ids))    # encoder side: keys and values',
    )
  } else {
    L.push('    x = E(torch.tensor(token_ids))')
  }
  const trained = state.weights === 'trained'
  if (trained) {
    // The trained model's last layer: its input and projections written out whole (the edits are in them).
    L.push(
      "    # trained weights: x is the last layer's input (token + position embeddings, then the layers below), not E(ids)",
    )
    for (const [pyName, t] of [
      ['x', trace.embeddings],
      ['W_q', trace.Wq],
      ['W_k', trace.Wk],
      ['W_v', trace.Wv],
    ] as const) {
      L.push(
        `    # ${pyName}: trained, layer ${TRAINED.layers} of ${TRAINED.layers} of the Train tab's coreference model (written out whole):`,
      )
      L.push(`    ${pyName} = ${pyTensor(t, '        ', '    ')}`)
    }
  }
  const edited = new Set(trained ? [] : state.edits.map((e) => e.t))
  const editTargets: Array<[PlaygroundState['edits'][number]['t'], string, Tensor | undefined]> = [
    ['embeddings', 'x', trace.embeddings],
    ['sourceEmbeddings', 'x_src', sh.cross ? trace.sourceEmbeddings : undefined],
    ['Wq', 'W_q', trace.Wq],
    ['Wk', 'W_k', trace.Wk],
    ['Wv', 'W_v', trace.Wv],
  ]
  for (const [name, pyName, t] of editTargets) {
    if (!edited.has(name) || !t) continue
    const cells = state.edits
      .filter((e) => e.t === name)
      .map((e) => `(${e.r}, ${e.c})`)
      .join(', ')
    L.push(`    # ${name} as edited in the playground (cells ${cells}):`)
    L.push(`    ${pyName} = ${pyTensor(t, '        ', '    ')}`)
  }
  const src = sh.cross ? 'x_src' : 'x'
  if (state.positions === 'sinusoidal' || state.positions === 'learned') {
    L.push('    xp = x + P[: x.shape[0]]   # positions added before the projections')
    if (sh.cross) L.push('    xp_src = x_src + P[: x_src.shape[0]]')
    const srcp = sh.cross ? 'xp_src' : 'xp'
    L.push('    Q = xp @ W_q', `    K = ${srcp} @ W_k`, `    V = ${srcp} @ W_v`)
  } else {
    L.push('    Q = x @ W_q', `    K = ${src} @ W_k`, `    V = ${src} @ W_v`)
  }
  L.push('    nq, nk = Q.shape[0], K.shape[0]', '')
  return L
}

/** The mask (True = masked: the score becomes -inf before the softmax) and the scale. */
function maskAndScaleSection(state: PlaygroundState, trace: Trace, sh: Shape): string[] {
  const L: string[] = []
  switch (state.mask) {
    case 'causal':
      L.push(
        '    mask = torch.triu(torch.ones(nq, nk, dtype=torch.bool), diagonal=1)   # causal: query i sees keys j <= i',
      )
      break
    case 'padding':
      L.push(
        `    padded_keys = ${pyList(paddedKeys(state, sh.nk))}   # key padding: these key positions are masked for every query`,
        '    mask = torch.zeros(nq, nk, dtype=torch.bool)',
        '    mask[:, padded_keys] = True',
      )
      break
    case 'cells': {
      const m = maskMatrix(state, range(sh.nq), sh.nk)
      L.push('    mask = torch.tensor([   # cells masked by hand (1 = masked)')
      for (let i = 0; i < sh.nq; i++)
        L.push(`        [${Array.from(m.subarray(i * sh.nk, (i + 1) * sh.nk)).join(', ')}],`)
      L.push('    ], dtype=torch.bool)')
      break
    }
    case 'none':
      L.push('    mask = torch.zeros(nq, nk, dtype=torch.bool)   # no mask')
  }
  const scaleTex = Math.fround(1 / Math.sqrt(sh.dk / sh.heads))
  if (trace.scale === 1) L.push('    scale = 1.0')
  else if (Math.abs(trace.scale - scaleTex) <= 1e-7 * scaleTex)
    L.push('    scale = 1 / math.sqrt(dkh)   # ÷√d_k (per head)')
  else L.push(`    scale = ${f32(trace.scale)}`)
  L.push('')
  return L
}

/** The head loop: rope turns q and k first, alibi's bias joins the scaled scores before the mask. */
function headLoop(state: PlaygroundState): string[] {
  const rope = state.positions === 'rope'
  const alibi = state.positions === 'alibi'
  return [
    ...(rope ? ['    rotated_q, rotated_k = [], []'] : []),
    ...(alibi
      ? [
          '    slopes, biases = alibi_slopes(heads), []',
          '    distance = (torch.arange(nq)[:, None] - torch.arange(nk)[None, :]).abs().float()',
        ]
      : []),
    '    for h in range(heads):',
    '        qh = Q[:, h * dqh:(h + 1) * dqh]',
    '        kh = K[:, h * dkh:(h + 1) * dkh]',
    '        vh = V[:, h * dvh:(h + 1) * dvh]',
    ...(rope
      ? [
          `        qh, kh = rope(qh, ${state.ropeBase}), rope(kh, ${state.ropeBase})   # RoPE: each head turned by position`,
          '        rotated_q.append(qh)',
          '        rotated_k.append(kh)',
        ]
      : []),
    '        s = score(qh, kh, params[h])',
    '        ss = s * scale',
    ...(alibi
      ? [
          '        bias = -slopes[h] * distance   # ALiBi: -m_h |i - j|, before the mask',
          '        biases.append(bias)',
          '        ms = (ss + bias).masked_fill(mask, float("-inf"))',
        ]
      : ['        ms = ss.masked_fill(mask, float("-inf"))']),
    '        w = torch.softmax(ms / temperature, dim=-1)',
    '        w = torch.nan_to_num(w, nan=0.0)   # a query whose keys are all masked gets zero weights',
    '        outputs.append(w @ vh)',
    '        for name, t in zip(steps, (s, ss, ms, w)):',
    '            steps[name].append(t)',
  ]
}

/** The position steps the program shows beside the twelve. */
function shownPositions(state: PlaygroundState): string[] {
  switch (state.positions) {
    case 'sinusoidal':
    case 'learned':
      return ['shown["positions"] = P']
    case 'rope':
      return ['shown["rotatedQ"] = torch.cat(rotated_q, dim=1)', 'shown["rotatedK"] = torch.cat(rotated_k, dim=1)']
    case 'alibi':
      return ['shown["positionBias"] = biases[0] if heads == 1 else torch.stack(biases)']
    case 'none':
      return []
  }
}

/** The steps per head, as the engine runs them, then the printing. */
function stepsSection(state: PlaygroundState, sh: Shape): string[] {
  return [
    '    def score(q, k, p):',
    ...RULE_CODE[state.score].score,
    '',
    `    steps = {k: [] for k in (${PER_HEAD_STEPS.map(py).join(', ')})}`,
    '    outputs = []',
    ...headLoop(state),
    '    output = torch.cat(outputs, dim=1)',
    '    result = {name: (ts[0] if heads == 1 else torch.stack(ts)) for name, ts in steps.items()}',
    '',
    'shown = {"embeddings": x, "Wq": W_q, "Wk": W_k, "Wv": W_v, "Q": Q, "K": K, "V": V, **result, "output": output}',
    ...(sh.cross ? ['shown["sourceEmbeddings"] = x_src'] : []),
    ...shownPositions(state),
    'HELP = """usage: python3 attention.py [--json]',
    '  prints every step: embeddings, W_q, W_k, W_v, Q, K, V, scores, scaled, masked, weights, output',
    '  --json  one JSON object {step: nested lists}; masked scores are the string "-inf"',
    '          ("inf" and "nan" likewise), so strict parsers such as JSON.parse read it"""',
    '',
    '',
    'def finite(v):',
    '    # json.dumps would write -Infinity, which is not JSON: non-finite floats become strings.',
    '    if isinstance(v, list):',
    '        return [finite(x) for x in v]',
    '    if isinstance(v, float) and not math.isfinite(v):',
    '        return "nan" if math.isnan(v) else ("-inf" if v < 0 else "inf")',
    '    return v',
    '',
    '',
    'if "--help" in sys.argv or "-h" in sys.argv:',
    '    print(HELP)',
    'elif "--json" in sys.argv:',
    '    print(json.dumps({name: finite(t.tolist()) for name, t in shown.items()}, allow_nan=False))',
    'else:',
    '    torch.set_printoptions(precision=4, sci_mode=False, linewidth=140)',
    '    for name, t in shown.items():',
    '        print(f"{name} {tuple(t.shape)}")',
    '        print(t)',
    '',
  ]
}

/**
 * A Python program (torch only) that redraws the configuration's random numbers exactly as the
 * engine does (docs/design.md, "Random draws of run"), applies the learner's edits and mask, and
 * prints every step; with `--json` it prints them as JSON (the tests compare that to the engine).
 */
export function pytorchCode(state: PlaygroundState, trace: Trace): string {
  const sh = shapeOf(state, trace)
  const code = [
    ...headerSection(state, trace, sh),
    ...drawsSection(state, sh),
    ...inputsSection(state, trace, sh),
    ...maskAndScaleSection(state, trace, sh),
    ...stepsSection(state, sh),
  ].join('\n')
  return state.lang === 'zh' ? commentsToZh(code) : code
}
