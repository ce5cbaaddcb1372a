// Export: a panel as PNG, a matrix as CSV, and the whole configuration as a PyTorch program that
// prints the same numbers. No external libraries: the PNG comes from a canvas, the rest is text.
//
// Everything the learner typed ends up in the Python program only inside string literals written by
// JSON.stringify (valid Python literals), never in comments or code, so a sentence such as
// `"\nimport os` cannot inject Python.

import type { Tensor, Trace } from './engine-types'
import type { PlaygroundState } from './state'

// ---------------------------------------------------------------------------------------------
// PNG

/**
 * Renders one panel (its title, shape line and heatmap) into a fresh canvas and encodes it as PNG.
 * The heatmap pixels are the panel's own canvas, so colours and layout are what the learner sees.
 */
export async function exportPanelPng(panelEl: HTMLElement): Promise<Blob> {
  const maps = Array.from(panelEl.querySelectorAll<HTMLCanvasElement>('canvas.hm-canvas, canvas'))
    .filter((c) => c.width > 0 && c.height > 0)
  if (maps.length === 0) {
    const name = panelEl.dataset.step ?? panelEl.dataset.panel ?? panelEl.tagName.toLowerCase()
    throw new Error(`exportPanelPng: panel "${name}" has no drawn heatmap canvas to export`)
  }
  const map = maps[0]
  // The heatmap canvas is drawn at devicePixelRatio: draw the text at the same density.
  const ratio = map.clientWidth > 0 ? map.width / map.clientWidth : 1
  const title = (panelEl.querySelector('h2, h3, header')?.querySelector('h2, h3') ?? panelEl.querySelector('h2, h3'))?.textContent?.trim() ?? ''
  const shape = panelEl.querySelector('.shape')?.textContent?.trim() ?? ''
  const pad = Math.round(12 * ratio)
  const titlePx = Math.round(15 * ratio)
  const shapePx = Math.round(12 * ratio)
  const font = 'system-ui, "Noto Sans CJK SC", "WenQuanYi Micro Hei", "Microsoft YaHei", sans-serif'

  const out = document.createElement('canvas')
  const measure = out.getContext('2d')
  if (!measure) throw new Error('exportPanelPng: this browser gives no 2-D canvas context')
  measure.font = `600 ${titlePx}px ${font}`
  const titleW = measure.measureText(title).width
  measure.font = `${shapePx}px ui-monospace, monospace`
  const shapeW = measure.measureText(shape).width
  const headH = (title ? titlePx + pad / 2 : 0) + (shape ? shapePx + pad / 2 : 0)
  out.width = Math.ceil(Math.max(map.width, titleW, shapeW) + 2 * pad)
  out.height = Math.ceil(headH + map.height + 2 * pad)

  const g = out.getContext('2d')!
  g.fillStyle = '#ffffff'
  g.fillRect(0, 0, out.width, out.height)
  g.fillStyle = '#1d2330'
  g.textBaseline = 'top'
  let y = pad
  if (title) {
    g.font = `600 ${titlePx}px ${font}`
    g.fillText(title, pad, y)
    y += titlePx + pad / 2
  }
  if (shape) {
    g.font = `${shapePx}px ui-monospace, monospace`
    g.fillStyle = '#1c64d1'
    g.fillText(shape, pad, y)
    y += shapePx + pad / 2
  }
  g.drawImage(map, pad, Math.round(y))
  return new Promise<Blob>((resolve, reject) => {
    out.toBlob((b) => (b ? resolve(b) : reject(new Error('exportPanelPng: the canvas could not be encoded as PNG'))), 'image/png')
  })
}

/** Saves a blob under a file name through a temporary link (no server round trip). */
export function downloadBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob)
  const a = document.createElement('a')
  a.href = url
  a.download = name
  a.rel = 'noopener'
  a.click()
  // Revoked later, not at once: the browser may still be reading the blob for the download.
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

// ---------------------------------------------------------------------------------------------
// CSV

/** Shortest decimal that reads back as the same float32 (9 significant digits always suffice). */
export function f32(v: number): string {
  if (v === -Infinity) return '-inf'
  if (v === Infinity) return 'inf'
  if (Number.isNaN(v)) return 'nan'
  if (v === 0) return Object.is(v, -0) ? '-0' : '0'
  for (let p = 1; p <= 9; p++) {
    const s = v.toPrecision(p)
    if (Math.fround(Number(s)) === v) return String(Number(s))
  }
  return String(Number(v.toPrecision(9)))
}

function csvField(s: string, isLabel: boolean): string {
  // A label is learner text: a leading = + - @ would be run as a formula by spreadsheet programs.
  let v = isLabel && /^[=+\-@\t\r]/.test(s) ? `'${s}` : s
  if (/[",\r\n]/.test(v)) v = `"${v.replace(/"/g, '""')}"`
  return v
}

/**
 * One matrix as CSV (RFC 4180, CRLF): a header row of column labels, then one row per matrix row led
 * by its label. Numbers are exact (they read back as the same float32); masked cells are -inf.
 */
export function matrixCsv(tensor: Tensor, rowLabels: string[], colLabels: string[]): string {
  if (tensor.shape.length !== 2) {
    throw new Error(`matrixCsv: tensor must be 2-D [rows, cols], got shape [${tensor.shape.join(', ')}]`)
  }
  const [rows, cols] = tensor.shape
  if (tensor.data.length !== rows * cols) {
    throw new Error(`matrixCsv: tensor data has ${tensor.data.length} values, shape [${rows}, ${cols}] needs ${rows * cols}`)
  }
  if (rowLabels.length !== rows) throw new Error(`matrixCsv: rowLabels has ${rowLabels.length} labels, the tensor has ${rows} rows`)
  if (colLabels.length !== cols) throw new Error(`matrixCsv: colLabels has ${colLabels.length} labels, the tensor has ${cols} columns`)
  const lines = [['', ...colLabels].map((s, i) => csvField(s, i > 0)).join(',')]
  for (let i = 0; i < rows; i++) {
    const cells = [csvField(rowLabels[i], true)]
    for (let j = 0; j < cols; j++) cells.push(f32(tensor.data[i * cols + j]))
    lines.push(cells.join(','))
  }
  return lines.join('\r\n') + '\r\n'
}

const PER_HEAD = new Set(['scores', 'scaledScores', 'maskedScores', 'weights'])

/** The matrix a step's panel shows (one head of the per-head steps) with its row and column labels. */
export function panelMatrix(trace: Trace, step: string, head = 0): { tensor: Tensor; rows: string[]; cols: string[] } {
  const q = trace.tokens
  const k = trace.sourceTokens ?? trace.tokens
  const dims = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`)
  const pick = (t: Tensor): Tensor => {
    if (t.shape.length === 2) return t
    const [h, r, c] = t.shape
    if (head < 0 || head >= h) throw new Error(`panelMatrix: head must be from 0 to ${h - 1}, got ${head}`)
    return { data: t.data.slice(head * r * c, (head + 1) * r * c), shape: [r, c] }
  }
  const x = (name: keyof Trace): Tensor => trace[name] as Tensor
  switch (step) {
    case 'embeddings': return { tensor: x('embeddings'), rows: q, cols: dims('d', x('embeddings').shape[1]) }
    case 'sourceEmbeddings':
      if (!trace.sourceEmbeddings) throw new Error('panelMatrix: sourceEmbeddings exists only in cross attention')
      return { tensor: trace.sourceEmbeddings, rows: k, cols: dims('d', trace.sourceEmbeddings.shape[1]) }
    case 'Wq': case 'Wk': case 'Wv': {
      const t = x(step)
      return { tensor: t, rows: dims('d', t.shape[0]), cols: dims(step[1], t.shape[1]) }
    }
    case 'Q': return { tensor: x('Q'), rows: q, cols: dims('q', x('Q').shape[1]) }
    case 'K': return { tensor: x('K'), rows: k, cols: dims('k', x('K').shape[1]) }
    case 'V': return { tensor: x('V'), rows: k, cols: dims('v', x('V').shape[1]) }
    case 'output': return { tensor: x('output'), rows: q, cols: dims('v', x('output').shape[1]) }
    default:
      if (PER_HEAD.has(step)) return { tensor: pick(x(step as keyof Trace)), rows: q, cols: k }
      throw new Error(`panelMatrix: unknown step "${step}"; expected one of embeddings, Wq, Wk, Wv, Q, K, V, scores, scaledScores, maskedScores, weights, output`)
  }
}

// ---------------------------------------------------------------------------------------------
// PyTorch code

const py = (s: string) => JSON.stringify(s)
const pyList = (xs: readonly (string | number)[]) => `[${xs.map((x) => (typeof x === 'string' ? py(x) : String(x))).join(', ')}]`

function pyTensor(t: Tensor, indent: string, closeIndent: string): string {
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
    if (cur && cur.length + it.length + 2 > 92) { lines.push(cur); cur = '' }
    cur += (cur ? ' ' : '') + it + ','
  }
  if (cur) lines.push(cur)
  return `${name} = [\n${lines.map((l) => '    ' + l).join('\n')}\n]`
}

/**
 * A Python program (torch only) that redraws the configuration's random numbers exactly as the
 * engine does (docs/design.md, "Random draws of run"), applies the learner's edits and mask, and
 * prints every step; with `--json` it prints them as JSON (the tests compare that to the engine).
 */
export function pytorchCode(state: PlaygroundState, trace: Trace): string {
  const cross = state.mode === 'cross' && !!trace.sourceTokens
  const heads = trace.heads || 1
  const dModel = trace.embeddings.shape[1]
  const dq = trace.Wq.shape[1], dk = trace.Wk.shape[1], dv = trace.Wv.shape[1]
  const nq = trace.tokens.length
  const nk = cross ? trace.sourceTokens!.length : nq
  const dkh = dk / heads
  const rule = state.score
  const L: string[] = []
  const put = (...xs: string[]) => L.push(...xs)

  put(
    '# Attention Playground: this program reproduces the numbers on screen with PyTorch.',
    '# Run: python3 attention.py        (add --json for machine-readable output)',
    '# The random draws follow PyTorch\'s CPU generator in the same order as the playground:',
    '# embedding table, W_q, W_k, W_v, then the scoring rule\'s parameters per head.',
    'import json',
    'import math',
    'import sys',
    '',
    'import torch',
    'import torch.nn as nn',
    '',
    `seed = ${state.seed}`,
    `d_model, d_q, d_k, d_v = ${dModel}, ${dq}, ${dk}, ${dv}`,
    `heads = ${heads}`,
    `score_rule = ${py(rule)}`,
    `temperature = ${f32(Math.fround(state.temperature))}`,
    '',
    `# Tokenization (${state.tokenizer}) written out, so word, char and bpe all give the same ids.`,
  )
  if (cross) {
    put(`source_text = ${py(state.source)}`, `target_text = ${py(state.target)}`)
  } else {
    put(`text = ${py(state.text)}`)
  }
  put(wrapList('vocab', trace.vocab))
  if (cross) {
    put(wrapList('source_tokens', trace.sourceTokens!), wrapList('source_ids', trace.sourceTokenIds!))
    put(wrapList('target_tokens', trace.tokens), wrapList('target_ids', trace.tokenIds))
  } else {
    put(wrapList('tokens', trace.tokens), wrapList('token_ids', trace.tokenIds))
  }
  put(
    '',
    'torch.manual_seed(seed)',
    'E = nn.Embedding(len(vocab), d_model)           # normal_(0, 1) draws',
    'W_q = torch.rand(d_model, d_q)',
    'W_k = torch.rand(d_model, d_k)',
    'W_v = torch.rand(d_model, d_v)',
    'dqh, dkh, dvh = d_q // heads, d_k // heads, d_v // heads',
    'params = []',
    'for h in range(heads):',
  )
  switch (rule) {
    case 'general':
      put('    params.append({"W": nn.Linear(dkh, dqh, bias=False).weight.detach()})   # q^T W k')
      break
    case 'additive':
      put(
        '    Wa_q = nn.Linear(dqh, dkh, bias=False).weight.detach()   # v^T tanh(Wa_q q + Wa_k k)',
        '    Wa_k = nn.Linear(dkh, dkh, bias=False).weight.detach()',
        '    v = nn.Linear(dkh, 1, bias=False).weight.detach()[0]',
        '    params.append({"Wq": Wa_q, "Wk": Wa_k, "v": v})',
      )
      break
    case 'concat':
      put(
        `    lin = nn.Linear(dqh + dkh, ${nk})   # one score per value row from [q_i; k_i]`,
        '    params.append({"W": lin.weight.detach(), "b": lin.bias.detach()})',
      )
      break
    default:
      put('    params.append({})   # dot products have no parameters')
  }
  put('', 'with torch.no_grad():')
  if (cross) {
    put('    x = E(torch.tensor(target_ids))        # decoder side: queries',
      '    x_src = E(torch.tensor(source_ids))    # encoder side: keys and values')
  } else {
    put('    x = E(torch.tensor(token_ids))')
  }

  // Edited cells: the edited tensors are written out whole (the trace holds what the engine used).
  const edited = new Set(state.edits.map((e) => e.t))
  const editTargets: Array<[string, string, Tensor | undefined]> = [
    ['embeddings', 'x', trace.embeddings],
    ['sourceEmbeddings', 'x_src', trace.sourceEmbeddings],
    ['Wq', 'W_q', trace.Wq],
    ['Wk', 'W_k', trace.Wk],
    ['Wv', 'W_v', trace.Wv],
  ]
  for (const [name, pyName, t] of editTargets) {
    if (!edited.has(name as PlaygroundState['edits'][number]['t']) || !t) continue
    if (name === 'sourceEmbeddings' && !cross) continue
    const cells = state.edits.filter((e) => e.t === name).map((e) => `(${e.r}, ${e.c})`).join(', ')
    put(`    # ${name} as edited in the playground (cells ${cells}):`)
    put(`    ${pyName} = ${pyTensor(t, '        ', '    ')}`)
  }

  put(
    '    Q = x @ W_q',
    `    K = ${cross ? 'x_src' : 'x'} @ W_k`,
    `    V = ${cross ? 'x_src' : 'x'} @ W_v`,
    `    nq, nk = Q.shape[0], K.shape[0]`,
    '',
  )
  // Mask: True = masked (the score becomes -inf before the softmax).
  switch (state.mask) {
    case 'causal':
      put('    mask = torch.triu(torch.ones(nq, nk, dtype=torch.bool), diagonal=1)   # causal: query i sees keys j <= i')
      break
    case 'padding': {
      const keys = state.padKeys.filter((j) => j < nk)
      put(`    padded_keys = ${pyList(keys)}   # key padding: these key positions are masked for every query`,
        '    mask = torch.zeros(nq, nk, dtype=torch.bool)',
        '    mask[:, padded_keys] = True')
      break
    }
    case 'cells': {
      const m: number[][] = Array.from({ length: nq }, () => new Array<number>(nk).fill(0))
      for (const [i, j] of state.maskCells) if (i < nq && j < nk) m[i][j] = 1
      put('    mask = torch.tensor([   # cells masked by hand (1 = masked)')
      for (const row of m) put(`        [${row.join(', ')}],`)
      put('    ], dtype=torch.bool)')
      break
    }
    default:
      put('    mask = torch.zeros(nq, nk, dtype=torch.bool)   # no mask')
  }

  const scaleTex = Math.fround(1 / Math.sqrt(dkh))
  let scaleLine: string
  if (trace.scale === 1) scaleLine = '    scale = 1.0'
  else if (Math.abs(trace.scale - scaleTex) <= 1e-7 * scaleTex) scaleLine = '    scale = 1 / math.sqrt(dkh)   # ÷√d_k (per head)'
  else scaleLine = `    scale = ${f32(trace.scale)}`
  put(scaleLine, '')

  put(
    '    def score(q, k, p):',
  )
  switch (rule) {
    case 'general':
      put('        return (q @ p["W"]) @ k.T')
      break
    case 'additive':
      put('        a = q @ p["Wq"].T                  # [nq, h]',
        '        b = k @ p["Wk"].T                  # [nk, h]',
        '        return torch.tanh(a[:, None, :] + b[None, :, :]) @ p["v"]')
      break
    case 'concat':
      put('        W, b = p["W"], p["b"]',
        '        return q @ W[:, :q.shape[1]].T + k @ W[:, q.shape[1]:].T + b   # needs nq == nk')
      break
    default:
      put('        return q @ k.T')
  }
  put(
    '',
    '    steps = {k: [] for k in ("scores", "scaledScores", "maskedScores", "weights")}',
    '    outputs = []',
    '    for h in range(heads):',
    '        qh = Q[:, h * dqh:(h + 1) * dqh]',
    '        kh = K[:, h * dkh:(h + 1) * dkh]',
    '        vh = V[:, h * dvh:(h + 1) * dvh]',
    '        s = score(qh, kh, params[h])',
    '        ss = s * scale',
    '        ms = ss.masked_fill(mask, float("-inf"))',
    '        w = torch.softmax(ms / temperature, dim=-1)',
    '        w = torch.nan_to_num(w, nan=0.0)   # a query whose keys are all masked gets zero weights',
    '        outputs.append(w @ vh)',
    '        for name, t in zip(steps, (s, ss, ms, w)):',
    '            steps[name].append(t)',
    '    output = torch.cat(outputs, dim=1)',
    '    result = {name: (ts[0] if heads == 1 else torch.stack(ts)) for name, ts in steps.items()}',
    '',
    'shown = {"embeddings": x, "Wq": W_q, "Wk": W_k, "Wv": W_v, "Q": Q, "K": K, "V": V, **result, "output": output}',
  )
  if (cross) put('shown["sourceEmbeddings"] = x_src')
  put(
    'if "--json" in sys.argv:',
    '    # -inf (masked cells) is written as -Infinity, which Python\'s json reads back.',
    '    print(json.dumps({name: t.tolist() for name, t in shown.items()}))',
    'else:',
    '    torch.set_printoptions(precision=4, sci_mode=False, linewidth=140)',
    '    for name, t in shown.items():',
    '        print(f"{name} {tuple(t.shape)}")',
    '        print(t)',
    '',
  )
  return L.join('\n')
}
