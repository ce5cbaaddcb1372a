// The Train tab's task `poems` inside the worker: the corpus fetched once (public/poems: vocab.json, train.txt,
// validation.txt, read one code point at a time through the vocabulary), ap.createTrainer({ task: 'poems' }) with
// the panel's seed, learning rate, positions and run length, one optimizer step per turn of the worker's event loop
// (a step takes 0.2–1.5 s, so pause, step and ping messages get through between steps), and every POEMS_EVERY steps
// the validation loss, sampled poems and their form, and the heads' scores. Everything the panel shows is measured
// here, by the package; the panel only draws it.
import type { Engine, PoemsTrainer } from 'attention-playground'
import { keepsForm, poemOf, poemStarts } from '../../scripts/poem-form.mjs'
import type {
  FromWorker,
  PoemShot,
  PoemsCorpusUrls,
  PoemsInfo,
  PoemsSnapshot,
  ToWorker,
  TrainSettings,
} from './protocol'
import { POEMS_EVERY } from './protocol'

/** The corpus as ids: each poem followed by id 0 ("\n"), as the files are written (docs/lm-spec.md). */
export interface PoemsCorpus {
  vocab: string[]
  train: Uint16Array
  validation: Uint16Array
}

/** The validation poems the loss is measured on while training (about one step's cost; all 902 in the bench). */
export const VALIDATION_POEMS = 200
/** The poems the head scores are measured on. */
export const SCORE_POEMS = 100
/** Poems sampled at each measurement: the share that keeps the form, and the first one shown. */
export const SAMPLES = 16
/** Sampled poems written in one turn of the worker's loop. */
const SAMPLES_A_TURN = 8
/** The run's length when the panel gives none: the trainer's default schedule (docs/perf-notes.md, 2026-12-02). */
export const DEFAULT_RUN = 500

/** Text → ids, one code point at a time; a character outside the vocabulary is its unknown character "□". */
export function encodePoems(text: string, index: ReadonlyMap<string, number>, file: string): Uint16Array {
  const unknown = index.get('□')
  const out = new Uint16Array(text.length)
  let n = 0
  for (const ch of text) {
    const id = index.get(ch) ?? unknown
    if (id === undefined) throw new Error(`${file}: “${ch}” is not in vocab.json, which has no “□” either`)
    out[n++] = id
  }
  return out.slice(0, n)
}

const corpora = new Map<string, Promise<PoemsCorpus>>()

/** The corpus at `urls`, fetched once per worker; a failed fetch says which file and is tried again next time. */
export function loadPoemsCorpus(urls: PoemsCorpusUrls): Promise<PoemsCorpus> {
  const key = JSON.stringify(urls)
  let p = corpora.get(key)
  if (!p) {
    p = fetchCorpus(urls)
    p.catch(() => corpora.delete(key))
    corpora.set(key, p)
  }
  return p
}

async function fetchCorpus(urls: PoemsCorpusUrls): Promise<PoemsCorpus> {
  const get = async (url: string) => {
    const r = await fetch(url)
    if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`)
    return r.text()
  }
  const [vocabText, train, validation] = await Promise.all([get(urls.vocab), get(urls.train), get(urls.validation)])
  const vocab = JSON.parse(vocabText) as string[]
  const index = new Map(vocab.map((c, i) => [c, i]))
  return {
    vocab,
    train: encodePoems(train, index, urls.train),
    validation: encodePoems(validation, index, urls.validation),
  }
}

type Post = (m: FromWorker, transfer?: Transferable[]) => void

/**
 * One poems model in the worker. `handle` takes the panel's messages after `reset`; the worker's own loop is here
 * (one step per turn). Errors go to `fail` (the worker's: a wasm trap replaces the worker).
 */
export class PoemsSession {
  private remaining = 0
  private timer: ReturnType<typeof setTimeout> | null = null
  private losses: number[] = []
  private validation: PoemsSnapshot['validation'] = null
  private form: PoemsSnapshot['form'] = null
  private sample: PoemShot | null = null
  private heads: PoemsSnapshot['heads'] = null
  private finishedAt = 0
  /** The run's end was reached: its snapshot (after the measurements) says so. */
  private finishing = false
  /** Measurements still to take at this step, one a turn of the loop. */
  private pending: Array<() => void> = []
  /** What is queued (or taken) at which step, so a measurement is not queued twice. */
  private queued = { steps: -1, what: new Set<'validation' | 'heads'>() }
  private readonly prompts: number[]

  private constructor(
    readonly trainer: PoemsTrainer,
    private readonly corpus: PoemsCorpus,
    private readonly runLength: number,
    private readonly post: Post,
    private readonly fail: (e: unknown) => void,
  ) {
    this.prompts = poemStarts(corpus.validation, SAMPLES)
  }

  static async create(
    ap: Engine,
    settings: TrainSettings,
    urls: PoemsCorpusUrls,
    post: Post,
    fail: (e: unknown) => void,
  ) {
    const corpus = await loadPoemsCorpus(urls)
    const runLength = settings.steps ?? DEFAULT_RUN
    const trainer = ap.createTrainer({
      task: 'poems',
      vocab: corpus.vocab,
      train: corpus.train,
      validation: corpus.validation,
      seed: settings.seed,
      lr: settings.lr,
      positions: settings.positions === 'rope' ? 'rope' : 'learned',
      decaySteps: runLength,
      warmup: Math.min(100, runLength - 1),
    })
    return new PoemsSession(trainer, corpus, runLength, post, fail)
  }

  /** Tells the panel the model is there (its shape), then measures step 0. */
  ready(): void {
    const c = this.trainer.config
    const info: PoemsInfo = {
      config: { ...c },
      validationPoems: Math.min(VALIDATION_POEMS, c.validationPoems),
      scorePoems: Math.min(SCORE_POEMS, c.validationPoems),
      samples: this.prompts.length,
    }
    this.post({ type: 'poemsReady', info, snapshot: this.snapshot() })
    this.measure(true)
  }

  get playing(): boolean {
    return this.remaining === Infinity
  }

  handle(m: Exclude<ToWorker, { type: 'ping' } | { type: 'reset' }>): void {
    switch (m.type) {
      case 'play':
        if (!this.playing) this.run(Infinity)
        break
      case 'pause':
        this.remaining = 0
        this.send() // paused at once; the measurements of this step follow
        this.measure(true)
        this.wake()
        break
      case 'step':
        this.run(Math.max(1, Math.min(10_000, Math.floor(m.n))))
        break
      case 'inspect': {
        const bytes = this.trainer.exportSafetensors()
        this.post({ type: 'weights', bytes, steps: this.trainer.steps }, [bytes.buffer])
        break
      }
      // the learning rate and the seed are the schedule's: the panel starts a new model for them; no sentence here
      case 'lr':
      case 'sentence':
        break
    }
  }

  private run(steps: number): void {
    this.remaining = steps
    this.wake()
  }

  /** The next turn of the loop, unless one is already due. */
  private wake(): void {
    this.timer ??= setTimeout(() => this.loop(), 0)
  }

  /**
   * One turn: a piece of the due measurements (each about a step's cost; the snapshot goes when the last is done),
   * else one step (and the measurements due after it). A turn at a time, so pause, step and the panel's pings are
   * answered within about a step.
   */
  private loop(): void {
    this.timer = null
    try {
      if (this.pending.length) {
        this.pending.shift()!()
        if (!this.pending.length) this.send(this.finishing)
      } else if (this.remaining > 0) {
        this.trainStep()
      }
    } catch (e) {
      this.remaining = 0
      this.pending = []
      this.fail(e)
      return
    }
    if (this.pending.length || this.remaining > 0) this.wake()
  }

  private trainStep(): void {
    this.losses.push(this.trainer.step(1).loss)
    this.remaining--
    const steps = this.trainer.steps
    // the end of the run pauses once (Play goes on at lr / 10)
    this.finishing = steps >= this.runLength && !this.finishedAt
    if (this.finishing) {
      this.finishedAt = steps
      this.remaining = 0
    }
    // a run of steps that ends (Step, the run's end) measures everything; while playing, every POEMS_EVERY steps
    if (this.remaining === 0) this.measure(true)
    else if (steps % POEMS_EVERY.validation === 0) this.measure(steps % POEMS_EVERY.heads === 0)
    if (!this.pending.length) this.send()
  }

  /**
   * Queues what is not yet measured at this step: the validation loss, the sampled poems (a few a turn), and the
   * heads when asked. The loop runs them before the next step.
   */
  measure(heads: boolean): void {
    const tr = this.trainer
    const steps = tr.steps
    if (this.queued.steps !== steps) this.queued = { steps, what: new Set() }
    const due = (what: 'validation' | 'heads', done: { steps: number } | null) => {
      if (done?.steps === steps || this.queued.what.has(what)) return false
      this.queued.what.add(what)
      return true
    }
    if (due('validation', this.validation)) {
      this.pending.push(() => (this.validation = { steps, loss: tr.evaluate({ limit: VALIDATION_POEMS }).loss }))
      const shots: PoemShot[] = []
      for (let i = 0; i < this.prompts.length; i += SAMPLES_A_TURN)
        this.pending.push(() => {
          for (const [k, id] of this.prompts.slice(i, i + SAMPLES_A_TURN).entries())
            shots.push(this.write(id, 1 + i + k))
          if (shots.length < this.prompts.length) return
          this.sample = shots[0]
          this.form = { steps, kept: shots.filter((p) => p.keepsForm).length, total: shots.length }
        })
    }
    if (heads && due('heads', this.heads))
      this.pending.push(() => (this.heads = { steps, scores: tr.headScores({ limit: SCORE_POEMS }) }))
    this.wake()
  }

  /** A poem from the first character `id`, temperature 0.8, mulberry32(seed): the sample's measurement. */
  private write(id: number, seed: number): PoemShot {
    const s = this.trainer.sample({ prompt: [id], temperature: 0.8, seed })
    const written = this.corpus.vocab[id] + (s.text ?? '')
    const poem = poemOf(written)
    return {
      steps: this.trainer.steps,
      poem,
      written: poem ?? written,
      keepsForm: poem !== null && keepsForm(poem),
    }
  }

  private snapshot(finished = false): PoemsSnapshot {
    const losses = this.losses
    this.losses = []
    return {
      steps: this.trainer.steps,
      lrInUse: this.trainer.lrInUse,
      playing: this.playing,
      losses,
      validation: this.validation,
      form: this.form,
      sample: this.sample,
      heads: this.heads,
      finished,
    }
  }

  private send(finished = false): void {
    this.post({ type: 'poems', snapshot: this.snapshot(finished) })
    this.finishing = false
  }

  dispose(): void {
    this.remaining = 0
    this.pending = []
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    this.trainer.dispose()
  }
}
