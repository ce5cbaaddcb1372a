/**
 * The language model (issue 37): a nanoGPT checkpoint in safetensors, run by the C++ engine (src/core/lm.h).
 * `ap.loadLanguageModel(bytes)` (wired in index.ts) calls `loadLanguageModelFor(module, bytes)`.
 *
 * ```ts
 * const model = ap.loadLanguageModel(await (await fetch('poems.safetensors')).arrayBuffer())
 * model.forward(model.encode('床前明月光')).logits           // Tensor [5, vocabSize]
 * model.generate({ prompt: '床前明月光，', maxTokens: 48, temperature: 0.8, topK: 40, seed: 1 }).text
 * model.dispose()
 * ```
 *
 * The file: nanoGPT's state dict (transformer.wte.weight, transformer.h.N.attn.c_attn.weight, …; biases optional,
 * lm_head.weight optional when tied, the torch < 2 `attn.bias` mask buffers and torch.compile's `_orig_mod.` prefix
 * recognised) with `__metadata__` `vocab` (a JSON array of strings, one per id) and `n_head`; optional `positions`
 * ('learned' | 'rope'), `rope_base`, `context` (rope models without mask buffers). docs/your-model.md.
 */
import { readSafetensors } from './safetensors.js'
import { AttentionError, readOptions, unwrap } from './util.js'
import type { Tensor } from './util.js'

/** The shape of a loaded model. */
export interface LanguageModelConfig {
  vocabSize: number
  context: number
  layers: number
  heads: number
  dModel: number
  positions: 'learned' | 'rope'
  ropeBase?: number
  /** lm_head is wte (absent from the file, or equal to it). */
  tied: boolean
  /** Which optional biases the file has, by module (nanoGPT's bias=False has none). */
  biases: Record<'ln_1' | 'attn.c_attn' | 'attn.c_proj' | 'ln_2' | 'mlp.c_fc' | 'mlp.c_proj' | 'ln_f', boolean>
  parameters: number
}

export interface ForwardOptions {
  /** Also return every block's residual stream, what attention and the MLP add, the heads' weights. Default false. */
  trace?: boolean
  /** With trace: the logit lens of each block, its top `lens` tokens per position (0 to 50). Default 0 (none). */
  lens?: number
}

/** One block of a forward trace; every Tensor is [n, dModel] unless said. */
export interface LanguageModelBlockTrace {
  /** The residual stream entering the block (before attention). */
  input: Tensor
  /** What attention adds: c_proj of the heads' outputs. */
  attention: Tensor
  /** input + attention (before the MLP). */
  afterAttention: Tensor
  /** What the MLP adds: c_proj(GELU(c_fc(ln_2(afterAttention)))). */
  mlp: Tensor
  /** afterAttention + mlp: the residual stream leaving the block. */
  output: Tensor
  /** Every head's causal attention weights [heads, n, n]. */
  weights: Tensor
  /** c_fc's output [n, 4·dModel] and its GELU, the MLP's activations [n, 4·dModel]. */
  mlpPreactivations: Tensor
  mlpActivations: Tensor
  /** With `lens`: the top tokens of softmax(ln_f(output)·lm_headᵀ) at each position (ids[n][lens], probs[n][lens]). */
  lens?: { ids: number[][]; probs: number[][] }
}

export interface LanguageModelTrace {
  ids: number[]
  tokens?: string[]
  blocks: LanguageModelBlockTrace[]
  /** ln_f's output [n, dModel] (logits = final · lm_headᵀ). */
  final: Tensor
}

export interface ForwardResult {
  /** [n, vocabSize]: the next-token logits at every position (a copy). */
  logits: Tensor
  trace?: LanguageModelTrace
}

export interface GenerateOptions {
  /** A string read one character at a time through the vocabulary, or token ids. Position 0 is its first token. */
  prompt: string | ArrayLike<number>
  /** Tokens to write at most (0 to context). Default: the context less the prompt. */
  maxTokens?: number
  /** Default 1; 0 = greedy. */
  temperature?: number
  /** Keep the k most probable (0 = all; 1 = greedy). Default 0. */
  topK?: number
  /** Keep the smallest most-probable set whose probability reaches topP, in (0, 1]. Default 1. */
  topP?: number
  /** mulberry32's seed, one draw per written token. Default 0. */
  seed?: number
  /** Stop after writing this token. Default '\n' when the vocabulary has it; null: never. */
  stop?: string | null
  /** The KV cache (default true); false recomputes the whole prefix at every step (same tokens: the reference). */
  cache?: boolean
  /** Keep each step's attention weights of the token read ([layers, heads, position]). Default false. */
  attention?: boolean
}

export interface Candidate {
  id: number
  token?: string
  p: number
}

/** One written token and how it was drawn: enough for a view to play, step and go back. */
export interface GenerateStep {
  /** Where the written token sits (the KV cache then holds `position` keys per head). */
  position: number
  id: number
  token?: string
  /** The uniform in [0, 1) drawn from mulberry32 for this token. */
  u: number
  /** temperature 0 or topK 1: the most probable token, u unused. */
  greedy: boolean
  /** Tokens left after top-k and top-p. */
  kept: number
  /** The ten most probable at temperature 1: softmax(logits). */
  before: Candidate[]
  /** The ten most probable of the distribution drawn from (after temperature, top-k, top-p; renormalised). */
  after: Candidate[]
  /** With `attention: true`: [layers, heads, position] the weights of the token read (at position - 1). */
  attention?: Tensor
}

export interface GenerateResult {
  /** The written ids (the prompt not included). */
  ids: number[]
  text: string
  promptIds: number[]
  /** 'stop' (wrote the stop token), 'maxTokens', or 'context' (the model's context is full). */
  reason: 'stop' | 'maxTokens' | 'context'
  steps: GenerateStep[]
}

export type HeadRole = 'previousLine' | 'previousChar' | 'lineEnd'

/** docs/lm-spec.md's head scores, [layers][heads] each, and the label of each head (null: it does not specialise). */
export interface LanguageModelHeadScores {
  previousLine: number[][]
  previousChar: number[][]
  lineEnd: number[][]
  labels: (HeadRole | null)[][]
  threshold: number
}

export interface LanguageModel {
  readonly config: LanguageModelConfig
  /** One string per id (a copy). */
  readonly vocab: string[]
  /** What reading the file ignored or normalised (the `_orig_mod.` prefix, the mask buffers, a tied lm_head). */
  readonly notes: string[]
  forward(ids: ArrayLike<number>, options?: ForwardOptions): ForwardResult
  generate(options: GenerateOptions): GenerateResult
  /** The ids of a text, one character (code point) at a time; a character outside the vocabulary is an error. */
  encode(text: string): number[]
  decode(ids: ArrayLike<number>): string
  /** Head scores over poems aligned at position 0 (strings or ids; each cut to the context). */
  headScores(poems: (string | ArrayLike<number>)[]): LanguageModelHeadScores
  /** Every tensor by its nanoGPT name (copies). */
  parameters(): Record<string, Tensor>
  dispose(): void
  [Symbol.dispose](): void
}

interface RawLanguageModel {
  load(tensors: unknown, meta: unknown): unknown
  forward(ids: unknown, o: unknown): unknown
  encode(text: unknown): unknown
  decode(ids: unknown): unknown
  generate(o: unknown): unknown
  headScores(poems: unknown): unknown
  parameters(): unknown
  delete(): void
}

const registry =
  typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry<{ raw: RawLanguageModel; live: boolean }>((h) => {
        if (h.live) {
          h.live = false
          h.raw.delete()
        }
      })
    : undefined

const disposeSymbol: symbol = (Symbol as unknown as { dispose?: symbol }).dispose ?? Symbol.for('Symbol.dispose')

/** Ids copied into a plain array in JS (getters run here, never inside embind). */
function idsOf(name: string, v: unknown): unknown {
  if (Array.isArray(v)) return [...(v as unknown[])]
  if (ArrayBuffer.isView(v) && !(v instanceof DataView)) return Array.from(v as unknown as ArrayLike<number>)
  throw new AttentionError(`${name}: expected an array of token ids, got ${v === null ? 'null' : typeof v}`)
}

/**
 * A UTF-16 surrogate without its pair: not text, and it would join the next entry's first character in UTF-8. A pattern
 * rather than `String.prototype.isWellFormed`, which needs Chrome 111 / Firefox 119 while the SIMD engines run on older.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/**
 * `__metadata__` as the engine reads it (n_head, positions, rope_base, context, and the vocabulary as one joined
 * string with each entry's length in UTF-16 code units: one crossing into the engine for all of them), and the
 * vocabulary itself, which the model keeps on this side.
 */
function metaOf(md: Record<string, string>): { meta: Record<string, unknown>; vocab: string[] } {
  const intOf = (key: string) => {
    const s = md[key]
    if (!/^[0-9]{1,9}$/.test(s)) {
      throw new AttentionError(
        `__metadata__.${key}: expected the string of a whole number, got ${JSON.stringify(s.slice(0, 40))}`,
      )
    }
    return Number(s)
  }
  if (md.n_head === undefined) {
    throw new AttentionError('__metadata__.n_head: missing (the number of attention heads, e.g. "4")')
  }
  if (md.vocab === undefined) {
    throw new AttentionError('__metadata__.vocab: missing (a JSON array of strings, one per token id)')
  }
  let vocab: unknown
  try {
    vocab = JSON.parse(md.vocab)
  } catch (e) {
    throw new AttentionError(`__metadata__.vocab: not JSON (${e instanceof Error ? e.message : String(e)})`)
  }
  if (!Array.isArray(vocab)) throw new AttentionError('__metadata__.vocab: expected a JSON array of strings')
  vocab.forEach((s, i) => {
    if (typeof s !== 'string') {
      throw new AttentionError(`__metadata__.vocab[${i}]: expected a string, got ${s === null ? 'null' : typeof s}`)
    }
    if (LONE_SURROGATE.test(s)) {
      throw new AttentionError(`__metadata__.vocab[${i}]: not well-formed text (a UTF-16 surrogate without its pair)`)
    }
  })
  const words = vocab as string[]
  const meta: Record<string, unknown> = {
    heads: intOf('n_head'),
    vocabText: words.join(''),
    vocabLengths: Uint32Array.from(words, (s) => s.length),
  }
  if (md.positions !== undefined) meta.positions = md.positions
  if (md.rope_base !== undefined) {
    const b = Number(md.rope_base)
    if (md.rope_base.trim() === '' || !Number.isFinite(b)) {
      throw new AttentionError(
        `__metadata__.rope_base: expected the string of a number, got ${JSON.stringify(md.rope_base.slice(0, 40))}`,
      )
    }
    meta.ropeBase = b
  }
  if (md.context !== undefined) meta.context = intOf('context')
  return { meta, vocab: words }
}

export function loadLanguageModelFor(module: unknown, bytes: ArrayBuffer | ArrayBufferView): LanguageModel {
  const mod = module as { LanguageModelHandle?: new () => RawLanguageModel }
  if (typeof mod?.LanguageModelHandle !== 'function') {
    throw new AttentionError('loadLanguageModel: this engine build has no language model (LanguageModelHandle missing)')
  }
  const file = readSafetensors(bytes)
  const { meta, vocab } = metaOf(file.metadata)
  const tensors = [...file.tensors].map(([name, t]) => ({ name, shape: t.shape, data: t.data }))
  const raw = new mod.LanguageModelHandle()
  try {
    const info = unwrap<{ config: LanguageModelConfig; notes: string[] }>(raw.load(tensors, meta))
    const model = new LiveLanguageModel(raw, { ...info, vocab })
    if (disposeSymbol !== Symbol.dispose) {
      ;(model as unknown as Record<symbol, () => void>)[disposeSymbol] = () => model.dispose()
    }
    registry?.register(model, model.handle, model.handle)
    return model
  } catch (e) {
    raw.delete()
    throw e
  }
}

class LiveLanguageModel implements LanguageModel {
  readonly handle: { raw: RawLanguageModel; live: boolean }
  readonly config: LanguageModelConfig
  private readonly words: string[]
  private readonly read: string[]

  constructor(raw: RawLanguageModel, info: { config: LanguageModelConfig; notes: string[]; vocab: string[] }) {
    this.handle = { raw, live: true }
    this.config = Object.freeze({ ...info.config, biases: Object.freeze({ ...info.config.biases }) })
    this.words = info.vocab
    this.read = info.notes
  }

  get vocab(): string[] {
    return [...this.words]
  }

  get notes(): string[] {
    return [...this.read]
  }

  private live(): RawLanguageModel {
    if (!this.handle.live) throw new AttentionError('model: already disposed')
    return this.handle.raw
  }

  forward(ids: ArrayLike<number>, options?: ForwardOptions): ForwardResult {
    const { o, done } = readOptions('forward', options)
    const read = { trace: o.trace, lens: o.lens }
    done()
    return unwrap<ForwardResult>(this.live().forward(idsOf('ids', ids), read))
  }

  generate(options: GenerateOptions): GenerateResult {
    const { o, done, missing } = readOptions('generate', options)
    if (o.prompt === undefined) missing('prompt', 'generate: prompt is required (a string or an array of ids)')
    const prompt = typeof o.prompt === 'string' ? o.prompt : idsOf('prompt', o.prompt)
    const promptLength = typeof prompt === 'string' ? [...prompt].length : (prompt as unknown[]).length
    const stop = o.stop === undefined ? (this.words.includes('\n') ? '\n' : null) : o.stop
    const raw: Record<string, unknown> = {
      prompt,
      maxTokens: o.maxTokens ?? Math.max(0, this.config.context - promptLength),
      temperature: o.temperature ?? 1,
      topK: o.topK ?? 0,
      topP: o.topP ?? 1,
      seed: o.seed ?? 0,
      cache: o.cache ?? true,
      attention: o.attention ?? false,
    }
    if (stop !== null) raw.stop = stop
    done()
    return unwrap<GenerateResult>(this.live().generate(raw))
  }

  encode(text: string): number[] {
    return unwrap<number[]>(this.live().encode(text))
  }

  decode(ids: ArrayLike<number>): string {
    return unwrap<string>(this.live().decode(idsOf('ids', ids)))
  }

  headScores(poems: (string | ArrayLike<number>)[]): LanguageModelHeadScores {
    if (!Array.isArray(poems)) throw new AttentionError('poems: expected an array of poems (strings or arrays of ids)')
    const copy = poems.map((p, i) => (typeof p === 'string' ? p : idsOf(`poems[${i}]`, p)))
    return unwrap<LanguageModelHeadScores>(this.live().headScores(copy))
  }

  parameters(): Record<string, Tensor> {
    return unwrap<Record<string, Tensor>>(this.live().parameters())
  }

  dispose(): void {
    if (!this.handle.live) return
    this.handle.live = false
    registry?.unregister(this.handle)
    this.handle.raw.delete()
  }

  [Symbol.dispose](): void {
    this.dispose()
  }
}
