// The drawings of the "Write a poem" view (views/generate.ts), from the numbers of compute/generate.ts: the poem on
// its grid of lines, the next character's bars before and after the sampler's settings, each head's weights on
// the grid with the places the head scores measure outlined, and the residual stream at one position. Each function
// builds plain elements (text through textContent) and computes nothing but colours and widths.

import type { Candidate, HeadRole } from 'attention-playground'
import { h, tokLabel } from '../dom'
import { fmt, oneBased } from '../format'
import type { T } from '../i18n'
import type { GenerateKey } from '../i18n/generate'
import {
  HEAD_ROLES,
  gridPlaces,
  norm,
  roleKeys,
  type BlockAtPosition,
  type HeadMeasure,
  type Poem,
  type PoemStep,
} from '../compute/generate'

type Tr = T<GenerateKey>

/** A probability or a weight as shown: four decimals (the exact value is in the element's data-p). */
export const prob = (p: number): string => fmt(p, 4)

/** A character as the view shows it: the end-of-poem token as ⏎, spaces made visible. */
export function charLabel(tok: string): string {
  return tokLabel(tok)
}

const ROLE_TEXT: Record<HeadRole, GenerateKey> = {
  previousLine: 'genRolePreviousLine',
  previousChar: 'genRolePreviousChar',
  lineEnd: 'genRoleLineEnd',
}

export const roleText = (t: Tr, role: HeadRole): string => t(ROLE_TEXT[role])

/** Lines of cells: `cell(i)` for tokens 0 … count − 1 placed by gridPlaces (the end-of-poem token is left out). */
function gridLines(tokens: readonly string[], count: number, cell: (i: number) => HTMLElement): HTMLElement[] {
  const places = gridPlaces(tokens)
  const lines: HTMLElement[] = []
  for (let i = 0; i < count; i++) {
    if (tokens[i] === '\n') continue
    const { line } = places[i]
    while (lines.length <= line) lines.push(h('div', { class: 'gen-line' }))
    lines[line].append(cell(i))
  }
  return lines.filter((l) => l.childNodes.length > 0)
}

/**
 * The poem after `written` characters: one button per character (choosing the residual stream's position), the
 * first line underlined, the last written character framed, `chosen` marked.
 */
export function poemGrid(
  poem: Poem,
  written: number,
  chosen: number,
  t: Tr,
  choose: (position: number) => void,
): HTMLElement[] {
  const count = poem.promptLength + written
  return gridLines(poem.tokens, count, (i) => {
    const b = h('button', {
      type: 'button',
      class: 'gen-cell',
      'data-position': i,
      'aria-pressed': String(i === chosen),
      'aria-label': `${t('genResidualTitle', { char: charLabel(poem.tokens[i]), pos: i })}`,
      text: charLabel(poem.tokens[i]),
    })
    if (i < poem.promptLength) b.classList.add('prompt')
    if (i === count - 1 && written > 0) b.classList.add('new')
    b.addEventListener('click', () => choose(i))
    return b
  })
}

/** One list of ten bars; `drawn` is marked (class, and the word in text for those who do not see the colour). */
function barList(cands: Candidate[], drawn: number, t: Tr, kind: 'before' | 'after'): HTMLElement {
  const top = cands.length ? cands[0].p : 1
  return h(
    'ol',
    { class: 'gen-bars', 'data-bars': kind },
    ...cands.map((c) => {
      const bar = h('span', { class: 'gen-bar', 'aria-hidden': 'true' })
      bar.style.width = `${((100 * c.p) / (top || 1)).toFixed(1)}%`
      const li = h(
        'li',
        { 'data-id': c.id, 'data-p': String(c.p) },
        h('span', { class: 'gen-bar-char', text: charLabel(c.token ?? '') }),
        h('span', { class: 'gen-bar-track' }, bar),
        h('span', { class: 'gen-bar-p', text: prob(c.p) }),
      )
      if (c.id === drawn) {
        li.classList.add('drawn')
        li.append(h('span', { class: 'gen-bar-mark', text: t('genDrawnMark') }))
      }
      return li
    }),
  )
}

/** The two columns of bars and the sentences under them. */
export function barsFor(step: PoemStep, poem: Poem, t: Tr): HTMLElement[] {
  const s = poem.settings
  const drawn = charLabel(step.token)
  const notShown = !step.after.some((c) => c.id === step.id)
  return [
    h(
      'div',
      { class: 'gen-bar-cols' },
      h(
        'figure',
        { class: 'gen-bar-col' },
        h('figcaption', { text: t('genBefore') }),
        barList(step.before, step.id, t, 'before'),
      ),
      h(
        'figure',
        { class: 'gen-bar-col' },
        h('figcaption', { text: t('genAfter', { T: String(s.temperature), k: String(s.topK), p: String(s.topP) }) }),
        barList(step.after, step.id, t, 'after'),
      ),
    ),
    h('p', { class: 'help', text: t('genKept', { kept: step.kept, vocab: poem.vocab.length }) }),
    h('p', {
      class: 'gen-drawn',
      'data-u': String(step.u),
      text: step.greedy
        ? t('genGreedy', { char: drawn, u: prob(step.u) })
        : t('genDrawn', { char: drawn, u: prob(step.u) }),
    }),
    ...(notShown ? [h('p', { class: 'help', text: t('genNotShown', { char: drawn }) })] : []),
  ]
}

/** A weight's cell colour: light enough that dark text keeps its contrast. */
function shade(el: HTMLElement, w: number): void {
  el.style.background = `rgba(28, 100, 209, ${(0.45 * Math.max(0, Math.min(1, w))).toFixed(3)})`
}

/** What the head is measured to do, or that it has no role (its largest score named). */
function headLabel(m: HeadMeasure | null, l: number, hd: number, t: Tr): string {
  if (!m) return ''
  const { scores } = m
  const label = scores.labels[l]?.[hd] ?? null
  if (label) return t('genHeadLabel', { role: roleText(t, label), score: prob(scores[label][l][hd]) })
  let best: HeadRole = 'previousLine'
  for (const r of HEAD_ROLES) if (scores[r][l][hd] > scores[best][l][hd]) best = r
  return t('genHeadNoLabel', { role: roleText(t, best), score: prob(scores[best][l][hd]) })
}

/** One head's weights from the query at `step.position − 1` over the keys before it, on the poem's grid. */
function headFigure(poem: Poem, step: PoemStep, l: number, hd: number, m: HeadMeasure | null, t: Tr): HTMLElement {
  const w = step.attention[l][hd]
  const q = step.position - 1
  const roles = roleKeys(q)
  let top = 0
  for (let j = 1; j < w.length; j++) if (w[j] > w[top]) top = j
  const lines = gridLines(poem.tokens, q + 1, (j) => {
    const c = h('span', { class: 'gen-cell', 'data-key': j, 'data-w': String(w[j]), text: charLabel(poem.tokens[j]) })
    shade(c, w[j])
    for (const r of HEAD_ROLES) if (roles[r] === j) c.classList.add(`role-${r}`)
    if (j === q) c.classList.add('query')
    return c
  })
  const topText = t('genHeadTop', { char: charLabel(poem.tokens[top]), w: prob(w[top]) })
  const label = headLabel(m, l, hd, t)
  return h(
    'figure',
    { class: 'gen-head', 'data-layer': l, 'data-head': hd, 'data-label': m?.scores.labels[l]?.[hd] ?? 'none' },
    h('figcaption', {}, h('strong', { text: t('genHeadCaption', { l: oneBased(l), h: oneBased(hd) }) }), ' ', label),
    h(
      'div',
      {
        class: 'gen-grid',
        role: 'img',
        'aria-label': `${t('genHeadCaption', { l: oneBased(l), h: oneBased(hd) })}: ${topText}`,
      },
      ...lines,
    ),
    h('p', { class: 'gen-head-top', text: topText }),
  )
}

export function headFigures(poem: Poem, step: PoemStep, m: HeadMeasure | null, t: Tr): HTMLElement[] {
  return step.attention.flatMap((heads, l) => heads.map((_, hd) => headFigure(poem, step, l, hd, m, t)))
}

/** The sentence over the heads: measuring, none specialises (with the largest score), or how many do. */
export function scoresSentence(m: HeadMeasure | null, t: Tr): string {
  if (!m) return ''
  const { scores, best } = m
  const labelled = scores.labels.flat().filter((x) => x !== null).length
  if (labelled === 0)
    return t('genScoresNone', {
      n: m.poems,
      threshold: scores.threshold,
      l: oneBased(best.layer),
      h: oneBased(best.head),
      role: roleText(t, best.role),
      score: prob(best.value),
    })
  return t('genScoresSome', {
    n: m.poems,
    threshold: scores.threshold,
    count: labelled,
    total: scores.labels.flat().length,
  })
}

/** A vector as a strip of coloured cells (blue positive, red negative; the row's largest |value| is full colour). */
function strip(v: Float32Array): HTMLElement {
  let max = 0
  for (const x of v) max = Math.max(max, Math.abs(x))
  const el = h('span', { class: 'gen-strip', 'aria-hidden': 'true' })
  for (const x of v) {
    const c = h('span')
    const a = max > 0 ? Math.abs(x) / max : 0
    c.style.background = x >= 0 ? `rgba(28, 100, 209, ${a.toFixed(3)})` : `rgba(200, 40, 40, ${a.toFixed(3)})`
    el.append(c)
  }
  return el
}

function vectorRow(label: string, v: Float32Array, t: Tr, kind: string): HTMLElement {
  const n = norm(v)
  return h(
    'tr',
    { 'data-residual': kind, 'data-norm': String(n) },
    h('th', { scope: 'row', text: label }),
    h('td', {}, strip(v)),
    h('td', { class: 'gen-norm', text: t('genResidualNorm', { norm: fmt(n, 3) }) }),
  )
}

function lensRow(label: string, lens: Candidate[], b: number): HTMLElement {
  return h(
    'tr',
    { 'data-residual': `lens-${b}`, 'data-lens': lens.map((c) => `${c.id}:${c.p}`).join(',') },
    h('th', { scope: 'row', text: label }),
    h('td', {
      colspan: 2,
      class: 'gen-lens',
      text: lens.map((c) => `${charLabel(c.token ?? '')} ${prob(c.p)}`).join(' · '),
    }),
  )
}

/** The residual stream at one position: the embedding, then per block what attention and the MLP add and the lens. */
export function residualTable(blocks: BlockAtPosition[], t: Tr): HTMLElement {
  const rows: HTMLElement[] = []
  if (blocks.length) rows.push(vectorRow(t('genResidualEmbedding'), blocks[0].input, t, 'embedding'))
  blocks.forEach((b, i) => {
    const n = oneBased(i)
    rows.push(vectorRow(t('genResidualAttention', { b: n }), b.attention, t, `attention-${i}`))
    rows.push(vectorRow(t('genResidualMlp', { b: n }), b.mlp, t, `mlp-${i}`))
    rows.push(lensRow(t('genResidualLens', { b: n }), b.lens, i))
  })
  return h('table', { class: 'gen-residual decode-table' }, h('tbody', {}, ...rows))
}
