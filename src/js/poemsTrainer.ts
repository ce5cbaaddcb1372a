/**
 * `ap.createTrainer({ task: 'poems' })` (issue 37 item 6): the language model of loadLanguageModel (nanoGPT's
 * layout, LM-SPEC.md) trained from scratch on token ids — the Train tab's task "Tang poems". One implementation:
 * src/core/lm_train.h's lm::Trainer (lm::Model, backward, AdamW, lr_at), bound in src/bindings/lm_train_bindings.cpp.
 *
 * The data are the ids of the corpus's streams (public/poems/train.txt and validation.txt read through vocab.json,
 * each poem followed by id 0 = "\n"); the trainer never parses text. A training window is context + 1 ids starting
 * at a poem's first character, drawn uniformly over the poems with a seeded generator (design.md).
 */
import { writeSafetensors } from './safetensors.js'
import type { HeadRole, LanguageModelHeadScores } from './languageModel.js'
import { AttentionError, checkOptions, readOptions, toTensor, unwrap } from './util.js'
import type { Tensor, TensorLike } from './util.js'

/** Ids as the trainer takes them: an array or a typed array of integers. */
export type TokenIds = ArrayLike<number>

export interface PoemsTrainerOptions {
  task: 'poems'
  /** Blocks. Default 2. */
  layers?: number
  /** Attention heads per block (must divide dModel). Default 4. */
  heads?: number
  /** Width of the residual stream. Default 64. */
  dModel?: number
  /** Vocabulary size. Default `vocab.length` when `vocab` is given, else 2,401 (public/poems/vocab.json's). */
  vocabSize?: number
  /** Positions a window has (the model's block size). Default 64. */
  context?: number
  /** Windows per step. Default 32. */
  batch?: number
  /** 'learned' (default, wpe) or 'rope'. */
  positions?: 'learned' | 'rope'
  /** The schedule's peak. Default 3e-3. */
  lr?: number
  /** Linear warm-up steps (nanoGPT's get_lr). Default 100. */
  warmup?: number
  /** The cosine decay reaches minLr at this step, and stays there. Default 500. */
  decaySteps?: number
  /** Default lr / 10. */
  minLr?: number
  /** AdamW (torch's, nanoGPT's groups: decay on 2-D tensors only). Defaults 0.1, 0.9, 0.95. */
  weightDecay?: number
  beta1?: number
  beta2?: number
  /** torch.nn.utils.clip_grad_norm_'s max norm; 0 (default) = none, as scripts/poems_torch.py trains. */
  gradClip?: number
  /** Seeds the weights and the windows: same seed, same run. Default 0. */
  seed?: number
  /** The train stream's ids (each poem followed by 0). Needed by step(). */
  train?: TokenIds
  /** The validation stream's ids. Needed by evaluate(), headScores() and sample() without a prompt. */
  validation?: TokenIds
  /** One string per id (vocab.json): sample() then writes text and reads string prompts; the export carries it. */
  vocab?: string[]
}

export interface PoemsTrainerConfig {
  task: 'poems'
  layers: number
  heads: number
  dModel: number
  vocabSize: number
  context: number
  batch: number
  positions: 'learned' | 'rope'
  lr: number
  warmup: number
  decaySteps: number
  minLr: number
  weightDecay: number
  beta1: number
  beta2: number
  gradClip: number
  seed: number
  /** How many numbers the model has. */
  parameters: number
  /** How many training windows there are to draw from (poems with context + 1 ids from their start on). */
  windows: number
  validationPoems: number
}

export interface PoemSampleOptions {
  /** A string (read through the vocabulary) or ids. Default: the first character of validation poem `seed`. */
  prompt?: string | TokenIds
  /** Default 0.8 (the sample's measurements). */
  temperature?: number
  topK?: number
  topP?: number
  /** mulberry32's seed. Default 0. */
  seed?: number
  /** Default: up to the context. */
  maxTokens?: number
}

export interface PoemSample {
  promptIds: number[]
  /** What the model wrote after the prompt (ends with id 0 when it stopped there). */
  ids: number[]
  /** The prompt and what was written before the "\n" (with a vocabulary; absent when no "\n" was written). */
  poem?: string
  text?: string
  reason: 'stop' | 'maxTokens' | 'context'
}

export interface PoemsTrainer {
  readonly config: Readonly<PoemsTrainerConfig>
  /** Optimizer steps done. */
  readonly steps: number
  /** The learning rate of the next step. */
  readonly lrInUse: number
  /** n optimizer steps (default 1) on drawn windows: the mean training loss over them. */
  step(n?: number): { loss: number }
  /** One optimizer step on your windows (each of the same length, 2 to context + 1 ids): its loss before the step. */
  trainOn(windows: TokenIds[]): { loss: number }
  /** The validation loss (nats per character): every character after the first of each poem, read alone. */
  evaluate(options?: { limit?: number }): { loss: number }
  /** A poem written by the current weights (the LM sampler, stop at "\n"). */
  sample(options?: PoemSampleOptions): PoemSample
  /** previousLine / previousChar / lineEnd of every head over the validation poems (lm::head_scores). */
  headScores(options?: { limit?: number }): LanguageModelHeadScores
  /** Every tensor by its nanoGPT name (copies). */
  parameters(): Record<string, Tensor>
  /** Replaces the named tensors (shapes as parameters() gives them); all are checked before any is changed. */
  setParameters(params: Record<string, TensorLike>): void
  /**
   * The current weights as a safetensors file in nanoGPT's layout (F32, tied: no lm_head), `__metadata__` vocab,
   * n_head, positions, context, steps: what ap.loadLanguageModel opens.
   */
  exportSafetensors(): Uint8Array
  dispose(): void
  [Symbol.dispose](): void
}

interface RawLmTrainer {
  configure(o: object, train: unknown, validation: unknown, vocab: string[]): unknown
  step(n: number): unknown
  trainOn(w: Int32Array, batch: number): unknown
  evaluate(limit: number): unknown
  sample(o: object): unknown
  headScores(limit: number): unknown
  parameters(): unknown
  setParameters(p: object): unknown
  delete(): void
}

/** The defaults (LM-SPEC.md's in-browser run). */
export const POEMS_DEFAULTS = Object.freeze({
  layers: 2,
  heads: 4,
  dModel: 64,
  vocabSize: 2401,
  context: 64,
  batch: 32,
  positions: 'learned' as const,
  lr: 3e-3,
  warmup: 100,
  decaySteps: 500,
  weightDecay: 0.1,
  beta1: 0.9,
  beta2: 0.95,
  gradClip: 0,
  seed: 0,
})

const registry =
  typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry<{ raw: RawLmTrainer; live: boolean }>((h) => {
        if (h.live) {
          h.live = false
          h.raw.delete()
        }
      })
    : undefined

const disposeSymbol: symbol = (Symbol as unknown as { dispose?: symbol }).dispose ?? Symbol.for('Symbol.dispose')

function kind(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v
}

function integer(name: string, v: unknown, lo: number, hi: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < lo || v > hi) {
    throw new AttentionError(
      `${name}: expected an integer from ${lo} to ${hi}, got ${typeof v === 'number' ? v : kind(v)}`,
    )
  }
  return v
}

function number(name: string, v: unknown, lo: number, hi: number, open = false): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v > hi || (open ? v <= lo : v < lo)) {
    throw new AttentionError(
      `${name}: expected a number ${open ? 'above' : 'from'} ${lo} ${open ? 'and at most' : 'to'} ${hi}, got ${typeof v === 'number' ? v : kind(v)}`,
    )
  }
  return v
}

/** Ids copied into an Int32Array, each checked to be an integer id below vocabSize. */
export function idsOf(name: string, v: unknown, vocabSize: number): Int32Array {
  const isView = ArrayBuffer.isView(v) && !(v instanceof DataView)
  if (!Array.isArray(v) && !isView) {
    throw new AttentionError(`${name}: expected an array (or typed array) of token ids, got ${kind(v)}`)
  }
  const a = v as ArrayLike<number>
  const out = new Int32Array(a.length)
  for (let i = 0; i < a.length; i++) {
    const x = a[i]
    if (typeof x !== 'number' || !Number.isInteger(x) || x < 0 || x >= vocabSize) {
      throw new AttentionError(
        `${name}[${i}]: expected a token id from 0 to ${vocabSize - 1}, got ${typeof x === 'number' ? x : kind(x)}`,
      )
    }
    out[i] = x
  }
  return out
}

export function createPoemsTrainerFor(module: unknown, options: Record<string, unknown>): PoemsTrainer {
  const { o, done } = readOptions('createTrainer', options)
  const mod = module as { LmTrainerHandle?: new () => RawLmTrainer }
  if (typeof mod?.LmTrainerHandle !== 'function') {
    throw new AttentionError("createTrainer: this engine build has no language-model trainer (task 'poems')")
  }
  let vocab: string[] = []
  if (o.vocab !== undefined) {
    if (!Array.isArray(o.vocab)) throw new AttentionError(`vocab: expected an array of strings, got ${kind(o.vocab)}`)
    vocab = (o.vocab as unknown[]).map((s, i) => {
      if (typeof s !== 'string') throw new AttentionError(`vocab[${i}]: expected a string, got ${kind(s)}`)
      return s
    })
  }
  const d = POEMS_DEFAULTS
  const vocabSize = integer('vocabSize', o.vocabSize ?? (vocab.length || d.vocabSize), 1, 65536)
  if (vocab.length && vocab.length !== vocabSize) {
    throw new AttentionError(`vocabSize: ${vocabSize} does not match vocab's ${vocab.length} strings`)
  }
  const positions = (o.positions ?? d.positions) as 'learned' | 'rope'
  if (positions !== 'learned' && positions !== 'rope') {
    throw new AttentionError(`positions: expected 'learned' or 'rope', got ${JSON.stringify(positions)}`)
  }
  const lr = number('lr', o.lr ?? d.lr, 0, 1, true)
  const warmup = integer('warmup', o.warmup ?? d.warmup, 0, 1_000_000)
  const conf = {
    layers: integer('layers', o.layers ?? d.layers, 1, 24),
    heads: integer('heads', o.heads ?? d.heads, 1, 64),
    dModel: integer('dModel', o.dModel ?? d.dModel, 1, 2048),
    vocabSize,
    context: integer('context', o.context ?? d.context, 1, 2048),
    batch: integer('batch', o.batch ?? d.batch, 1, 65536),
    positions,
    lr,
    warmup,
    decaySteps: integer('decaySteps', o.decaySteps ?? d.decaySteps, warmup + 1, 1_000_000),
    minLr: number('minLr', o.minLr ?? lr / 10, 0, lr),
    weightDecay: number('weightDecay', o.weightDecay ?? d.weightDecay, 0, 10),
    beta1: number('beta1', o.beta1 ?? d.beta1, 0, 0.999999),
    beta2: number('beta2', o.beta2 ?? d.beta2, 0, 0.999999),
    gradClip: number('gradClip', o.gradClip ?? d.gradClip, 0, 1e6),
    seed: integer('seed', o.seed ?? d.seed, 0, 4294967295),
  }
  const train = o.train === undefined ? undefined : idsOf('train', o.train, vocabSize)
  const validation = o.validation === undefined ? undefined : idsOf('validation', o.validation, vocabSize)
  const task = o.task as 'poems' // trainer.ts sends task 'poems' here
  done()
  const raw = new mod.LmTrainerHandle()
  try {
    const info = unwrap<{ parameters: number; windows: number; validationPoems: number; lrInUse: number }>(
      raw.configure(conf, train, validation, vocab),
    )
    const config: PoemsTrainerConfig = {
      task,
      ...conf,
      parameters: info.parameters,
      windows: info.windows,
      validationPoems: info.validationPoems,
    }
    const t = new LivePoemsTrainer(raw, Object.freeze(config), vocab, info.lrInUse, validation)
    if (disposeSymbol !== Symbol.dispose) {
      ;(t as unknown as Record<symbol, () => void>)[disposeSymbol] = () => t.dispose()
    }
    registry?.register(t, t.handle, t.handle)
    return t
  } catch (e) {
    raw.delete()
    throw e
  }
}

class LivePoemsTrainer implements PoemsTrainer {
  readonly handle: { raw: RawLmTrainer; live: boolean }
  private done = 0
  private inUse: number
  private readonly firsts: number[] = []

  constructor(
    raw: RawLmTrainer,
    readonly config: Readonly<PoemsTrainerConfig>,
    private readonly vocab: string[],
    lrInUse: number,
    validation: Int32Array | undefined,
  ) {
    this.handle = { raw, live: true }
    this.inUse = lrInUse
    // each validation poem's first id (the default prompts)
    if (validation)
      for (let i = 0; i < validation.length; i++)
        if (i === 0 || validation[i - 1] === 0) this.firsts.push(validation[i])
  }

  private live(): RawLmTrainer {
    if (!this.handle.live) throw new AttentionError('trainer: already disposed')
    return this.handle.raw
  }

  get steps(): number {
    return this.done
  }

  get lrInUse(): number {
    return this.inUse
  }

  private progress(r: { loss: number; steps: number; lrInUse: number }): { loss: number } {
    this.done = r.steps
    this.inUse = r.lrInUse
    return { loss: r.loss }
  }

  step(n = 1): { loss: number } {
    integer('n', n, 1, 1_000_000)
    return this.progress(unwrap(this.live().step(n)))
  }

  trainOn(windows: TokenIds[]): { loss: number } {
    if (!Array.isArray(windows) || windows.length === 0) {
      throw new AttentionError(`windows: expected a non-empty array of windows (arrays of ids), got ${kind(windows)}`)
    }
    const rows = windows.map((w, i) => idsOf(`windows[${i}]`, w, this.config.vocabSize))
    const len = rows[0].length
    rows.forEach((r, i) => {
      if (r.length !== len) {
        throw new AttentionError(
          `windows[${i}]: has ${r.length} ids, windows[0] has ${len}: they must be the same length`,
        )
      }
    })
    const flat = new Int32Array(rows.length * len)
    rows.forEach((r, i) => flat.set(r, i * len))
    return this.progress(unwrap(this.live().trainOn(flat, rows.length)))
  }

  evaluate(options?: { limit?: number }): { loss: number } {
    const { o, done } = readOptions('evaluate', options)
    const limit = integer('limit', o.limit ?? 0, 0, 1_000_000)
    done()
    return unwrap(this.live().evaluate(limit))
  }

  sample(options?: PoemSampleOptions): PoemSample {
    const { o, done } = readOptions('sample', options)
    const seed = integer('seed', o.seed ?? 0, 0, 4294967295)
    let prompt: string | Int32Array
    if (o.prompt === undefined) {
      if (!this.firsts.length) {
        throw new AttentionError('prompt: give one (no validation poems were given to take a first character from)')
      }
      prompt = Int32Array.of(this.firsts[seed % this.firsts.length])
    } else if (typeof o.prompt === 'string') {
      prompt = o.prompt
    } else {
      prompt = idsOf('prompt', o.prompt, this.config.vocabSize)
    }
    const promptLength = typeof prompt === 'string' ? [...prompt].length : prompt.length
    const args = {
      prompt,
      maxTokens: o.maxTokens ?? Math.max(0, this.config.context - promptLength),
      temperature: o.temperature ?? 0.8,
      topK: o.topK ?? 0,
      topP: o.topP ?? 1,
      seed,
    }
    done()
    const r = unwrap<PoemSample>(this.live().sample(args))
    if (this.vocab.length && r.reason === 'stop') {
      r.poem = (r.promptIds.map((i) => this.vocab[i]).join('') + (r.text ?? '')).split('\n')[0]
    }
    return r
  }

  headScores(options?: { limit?: number }): LanguageModelHeadScores {
    const { o, done } = readOptions('headScores', options)
    const limit = integer('limit', o.limit ?? 0, 0, 1_000_000)
    done()
    const r = unwrap<LanguageModelHeadScores>(this.live().headScores(limit))
    r.labels = r.labels.map((row) => row.map((l) => (l ?? null) as HeadRole | null))
    return r
  }

  parameters(): Record<string, Tensor> {
    return unwrap<Record<string, Tensor>>(this.live().parameters())
  }

  setParameters(params: Record<string, TensorLike>): void {
    const p = checkOptions('setParameters', params)
    const t: Record<string, Tensor> = {}
    for (const [k, v] of Object.entries(p)) t[k] = toTensor(`parameters.${k}`, v as TensorLike)
    unwrap(this.live().setParameters(t))
  }

  exportSafetensors(): Uint8Array {
    const c = this.config
    const meta: Record<string, string> = {
      n_head: String(c.heads),
      positions: c.positions,
      context: String(c.context),
      steps: String(this.done),
      shape: JSON.stringify({
        layers: c.layers,
        heads: c.heads,
        dModel: c.dModel,
        vocabSize: c.vocabSize,
        context: c.context,
        batch: c.batch,
        lr: c.lr,
        warmup: c.warmup,
        decaySteps: c.decaySteps,
        seed: c.seed,
      }),
      script: "ap.createTrainer({ task: 'poems' })",
    }
    if (this.vocab.length) meta.vocab = JSON.stringify(this.vocab)
    return writeSafetensors(this.parameters(), meta)
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
