// The numbers of the "Write a poem" view (views/generate.ts): a language model opened from safetensors bytes
// (`ap.loadLanguageModel`), one poem written with the package's own `generate` (its sampler, its KV cache, each
// step's top ten before and after temperature / top-k / top-p and the attention rows of the token read), one
// traced `forward` over the poem for the residual stream and the logit lens, and the head scores of
// docs/lm-spec.md measured by the package. The view draws these and computes nothing of its own.

import type {
  Candidate,
  Engine,
  GenerateResult,
  HeadRole,
  LanguageModel,
  LanguageModelHeadScores,
  LanguageModelTrace,
} from 'attention-playground'
import { safetensorsHeaderLength } from 'attention-playground/files'

/** What the reader chooses: the first line and the sampler's settings (docs/lm-spec.md, "Sampling"). */
export interface PoemSettings {
  /** The text the model continues (read one character at a time through the vocabulary). */
  prompt: string
  /** 0: greedy. */
  temperature: number
  /** 0: every token. */
  topK: number
  /** 1: no cut. */
  topP: number
  /** mulberry32's seed: one draw per written character. */
  seed: number
}

/**
 * The view's first poem: Li Bai's first line at the temperature poems_torch.py measures the form at (0.8), the 20 most
 * likely kept (so "after" differs from "before" visibly), and a seed whose poem keeps the form without the corpus's
 * unknown character □ (11 of seeds 1–13 write one; the seed is on screen and "Another poem" moves on from it).
 */
export const POEM_DEFAULTS: Readonly<Omit<PoemSettings, 'prompt'>> = { temperature: 0.8, topK: 20, topP: 1, seed: 14 }

/** How many guesses of the logit lens are kept per position and block. */
export const LENS_TOP = 5

/** One written character and how it was drawn (the package's GenerateStep, with the attention rows unpacked). */
export interface PoemStep {
  /** Where the written character sits; the query that chose it is the character at position − 1. */
  position: number
  id: number
  token: string
  u: number
  greedy: boolean
  kept: number
  before: Candidate[]
  after: Candidate[]
  /** [layer][head][key]: the weights the query at position − 1 gave keys 0 … position − 1. */
  attention: Float32Array[][]
}

export interface Poem {
  settings: PoemSettings
  /** Every token as the model read or wrote it (the prompt first), one string per id. */
  tokens: string[]
  /** The model's vocabulary (one string per id). */
  vocab: string[]
  ids: number[]
  promptLength: number
  steps: PoemStep[]
  reason: GenerateResult['reason']
  /**
   * `forward(ids, { trace: true, lens: LENS_TOP })` over the whole poem (the last written token included), filled by
   * tracePoem: the view draws the poem first and traces it in the next task.
   */
  trace: LanguageModelTrace | null
}

/** Opens a model file's bytes (throws the package's AttentionError for a bad file). */
export function openLanguageModel(engine: Engine, bytes: ArrayBuffer | Uint8Array): LanguageModel {
  return engine.loadLanguageModel(bytes)
}

/** The prompt's characters that the vocabulary lacks (each once, in order): the view names them before generating. */
export function missingCharacters(model: LanguageModel, prompt: string): string[] {
  const vocab = new Set(model.vocab)
  return [...new Set(Array.from(prompt).filter((c) => !vocab.has(c)))]
}

function unpackAttention(t: { data: Float32Array; shape: number[] } | undefined): Float32Array[][] {
  if (!t) return []
  const [layers, heads, n] = t.shape
  return Array.from({ length: layers }, (_, l) =>
    Array.from({ length: heads }, (_, hd) => t.data.slice((l * heads + hd) * n, (l * heads + hd + 1) * n)),
  )
}

/** Writes a poem with `model.generate` (up to the context; it stops after the end-of-poem token). */
export function writePoem(model: LanguageModel, s: PoemSettings): Poem {
  const r = model.generate({
    prompt: s.prompt,
    temperature: s.temperature,
    // top-k past the vocabulary keeps every token, as topK = vocabSize does (the package takes at most that)
    topK: Math.min(s.topK, model.config.vocabSize),
    topP: s.topP,
    seed: s.seed,
    attention: true,
  })
  const ids = [...r.promptIds, ...r.ids]
  const vocab = model.vocab
  return {
    settings: { ...s },
    tokens: ids.map((id) => vocab[id]),
    vocab,
    ids,
    promptLength: r.promptIds.length,
    steps: r.steps.map((st) => ({
      position: st.position,
      id: st.id,
      token: st.token ?? vocab[st.id],
      u: st.u,
      greedy: st.greedy,
      kept: st.kept,
      before: st.before,
      after: st.after,
      attention: unpackAttention(st.attention),
    })),
    reason: r.reason,
    trace: null,
  }
}

/** The text on show after `written` characters of the poem: the prompt and what was written, the end token left out. */
export function poemText(poem: Poem, written: number, end = '\n'): string {
  return poem.tokens
    .slice(0, poem.promptLength + written)
    .filter((t, i, all) => !(t === end && i === all.length - 1))
    .join('')
}

/** The characters that end a line of a poem (a line break follows them on the grid). */
const LINE_ENDS = new Set(['，', '。', '？', '！', '；', '、'])
/** A line of the poems' form: five characters and their punctuation. Other text wraps at this width. */
export const GRID_WIDTH = 6

/** Where each token sits on the poem's grid: a new line after each line-ending mark, and at GRID_WIDTH cells. */
export function gridPlaces(tokens: readonly string[]): Array<{ line: number; col: number }> {
  let line = 0,
    col = 0
  return tokens.map((t) => {
    if (col >= GRID_WIDTH) {
      line++
      col = 0
    }
    const at = { line, col }
    col++
    if (LINE_ENDS.has(t) || t === '\n') col = GRID_WIDTH
    return at
  })
}

/**
 * The keys docs/lm-spec.md's head scores read for the query at position i: the same place in the previous line
 * (i − 6, from i ≥ 6), the previous character (i − 1, from i ≥ 1), the previous line's end (6·⌊i/6⌋ − 1, from i ≥ 6).
 */
export function roleKeys(i: number): Record<HeadRole, number | null> {
  return {
    previousLine: i >= 6 ? i - 6 : null,
    previousChar: i >= 1 ? i - 1 : null,
    lineEnd: i >= 6 ? 6 * Math.floor(i / 6) - 1 : null,
  }
}

/** The poems of a text file (one a line, as public/poems/validation.txt) that the model's vocabulary can read. */
export function readablePoems(model: LanguageModel, text: string): string[] {
  const vocab = new Set(model.vocab)
  return text
    .split('\n')
    .filter((p) => p.length > 0)
    .map((p) => p + '\n')
    .filter((p) => Array.from(p).every((c) => vocab.has(c)))
}

export interface HeadMeasure {
  scores: LanguageModelHeadScores
  /** How many poems the scores pool. */
  poems: number
  /** The largest score of all heads and roles, where it is (0-based layer and head). */
  best: { role: HeadRole; value: number; layer: number; head: number }
}

export const HEAD_ROLES: readonly HeadRole[] = ['previousLine', 'previousChar', 'lineEnd']

/** How many queries of a poem of `n` ids (cut to the context) each score pools: i ≥ 6, i ≥ 1, i ≥ 6. */
function queries(n: number): Record<HeadRole, number> {
  return { previousLine: Math.max(0, n - 6), previousChar: Math.max(0, n - 1), lineEnd: Math.max(0, n - 6) }
}

/**
 * The head scores over many poems a chunk at a time, so the page stays responsive (the package measures
 * `chunk` poems per call, a forward pass each). Each chunk's means are turned back into sums by their query
 * counts and pooled: docs/lm-spec.md's definition (the sum over poems and queries divided by the count), equal to
 * one `headScores` call over all the poems; the labels then follow the same rule (the largest score, when it is ≥
 * the package's threshold).
 */
export class HeadMeter {
  private next = 0
  private sums: Record<HeadRole, number[][]> | null = null
  private counts: Record<HeadRole, number> = { previousLine: 0, previousChar: 0, lineEnd: 0 }
  private threshold = 0.4

  constructor(
    private readonly model: LanguageModel,
    private readonly poems: readonly string[],
    private readonly chunk = 40,
  ) {}

  get done(): boolean {
    return this.next >= this.poems.length
  }

  /** Measures the next chunk; false once every poem is measured. */
  step(): boolean {
    if (this.done) return false
    const part = this.poems.slice(this.next, this.next + this.chunk)
    this.next += part.length
    const s = this.model.headScores(part)
    this.threshold = s.threshold
    const context = this.model.config.context
    const n: Record<HeadRole, number> = { previousLine: 0, previousChar: 0, lineEnd: 0 }
    for (const p of part) {
      const q = queries(Math.min(Array.from(p).length, context))
      for (const r of HEAD_ROLES) n[r] += q[r]
    }
    this.sums ??= {
      previousLine: s.previousLine.map((row) => row.map(() => 0)),
      previousChar: s.previousChar.map((row) => row.map(() => 0)),
      lineEnd: s.lineEnd.map((row) => row.map(() => 0)),
    }
    for (const r of HEAD_ROLES) {
      s[r].forEach((row, l) => row.forEach((v, hd) => (this.sums![r][l][hd] += v * n[r])))
      this.counts[r] += n[r]
    }
    return !this.done
  }

  /** The pooled scores of the poems measured so far (null before the first chunk). */
  result(): HeadMeasure | null {
    const sums = this.sums
    if (!sums) return null
    const mean = (r: HeadRole) => sums[r].map((row) => row.map((v) => (this.counts[r] ? v / this.counts[r] : 0)))
    const scores: LanguageModelHeadScores = {
      previousLine: mean('previousLine'),
      previousChar: mean('previousChar'),
      lineEnd: mean('lineEnd'),
      labels: [],
      threshold: this.threshold,
    }
    let best: HeadMeasure['best'] = { role: 'previousLine', value: -1, layer: 0, head: 0 }
    scores.labels = scores.previousLine.map((row, l) =>
      row.map((_, hd) => {
        let role: HeadRole = 'previousLine'
        for (const r of HEAD_ROLES) if (scores[r][l][hd] > scores[role][l][hd]) role = r
        if (scores[role][l][hd] > best.value) best = { role, value: scores[role][l][hd], layer: l, head: hd }
        return scores[role][l][hd] >= this.threshold ? role : null
      }),
    )
    return { scores, poems: this.next, best }
  }
}

/** One block's part in the residual stream at one position: what attention and the MLP add, and the lens after. */
export interface BlockAtPosition {
  input: Float32Array
  attention: Float32Array
  mlp: Float32Array
  output: Float32Array
  lens: Candidate[]
}

export function norm(v: ArrayLike<number>): number {
  let s = 0
  for (let i = 0; i < v.length; i++) s += v[i] * v[i]
  return Math.sqrt(s)
}

/**
 * Traces the whole poem once (`poem.trace`): the residual stream and the lens at every position are the package's
 * forward of those ids (causal: a position's rows do not depend on what was written after it).
 */
export function tracePoem(model: LanguageModel, poem: Poem): LanguageModelTrace {
  poem.trace ??= model.forward(poem.ids, { trace: true, lens: LENS_TOP }).trace!
  return poem.trace
}

/** The residual stream at `position` (rows of the traced poem's [n, dModel] tensors), block by block, with the lens. */
export function residualAt(poem: Poem, position: number): BlockAtPosition[] {
  if (!poem.trace) throw new Error('residualAt: trace the poem first (tracePoem)')
  const row = (t: { data: Float32Array; shape: number[] }) => {
    const d = t.shape[1]
    return t.data.slice(position * d, (position + 1) * d)
  }
  return poem.trace.blocks.map((b) => ({
    input: row(b.input),
    attention: row(b.attention),
    mlp: row(b.mlp),
    output: row(b.output),
    lens: (b.lens?.ids[position] ?? []).map((id, k) => ({
      id,
      token: poem.vocab[id],
      p: b.lens!.probs[position][k],
    })),
  }))
}

/** The KV cache at a step: keys (and values) held per head and layer, and its size in float32 bytes. */
export function kvCacheAt(
  model: LanguageModel,
  step: PoemStep,
): { rows: number; layers: number; heads: number; dModel: number; bytes: number } {
  const { layers, heads, dModel } = model.config
  const rows = step.position
  return { rows, layers, heads, dModel, bytes: 2 * layers * rows * dModel * 4 }
}

/** A safetensors file's `__metadata__` (strings), read from its header alone; {} when it has none or is not one. */
export function fileMetadata(bytes: Uint8Array): Record<string, string> {
  try {
    const n = safetensorsHeaderLength(bytes.subarray(0, 8), bytes.byteLength)
    const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n))) as Record<string, unknown>
    const md = header.__metadata__
    if (!md || typeof md !== 'object') return {}
    return Object.fromEntries(Object.entries(md).filter(([, v]) => typeof v === 'string')) as Record<string, string>
  } catch {
    return {}
  }
}
