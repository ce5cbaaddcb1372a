// The Train panel's Web Worker: owns the wasm engine and the trainer, trains in small chunks while
// "playing" (yielding between chunks so pause/step/lr messages get through), and posts snapshots:
// losses, held-out accuracy, the chosen sentence's attention and the embeddings' 2-D PCA. The task `poems`
// (a language model) is a session of its own (poems-session.ts) with its own snapshots.
import { init, type Engine, type Tensor, type Trace, type Trainer, type TrainerOptions } from 'attention-playground'
import { Pca2 } from './pca'
import { errorMessage } from '../format'
import type { FromWorker, InductionSnapshot, Pong, Snapshot, ToWorker, TrainSettings } from './protocol'
import type { HeadScores, PoemsTrainer } from 'attention-playground'
import { PoemsSession } from './poems-session'

const scope = self as unknown as {
  postMessage(m: FromWorker | Pong, transfer?: Transferable[]): void
  onmessage: ((e: MessageEvent<ToWorker>) => void) | null
}

let ap: Engine | null = null
let tr: Trainer | null = null
let poems: PoemsSession | null = null
let playing = false
let sentence = ''
let pca = new Pca2()
let lastTest: Snapshot['test'] = null
let lastRest: number | undefined
let lastScores: HeadScores | null = null
let scoresAt = 0
let lastGrads: Snapshot['gradNorms'] = []
let gradsAt = 0
let lastTrain = { loss: NaN, accuracy: NaN }
let chunksSinceEval = 0
let timer: ReturnType<typeof setTimeout> | null = null

// A chunk is a few optimizer steps (~20–40 ms); evaluating the held-out set costs about as much as
// ten steps, so it runs every few chunks, and the gradient norms (a forward and backward pass on a batch: a fifth of
// a chunk, measured for the induction task) are measured with it.
const CHUNK_STEPS = 5
const EVAL_EVERY = 4

function post(m: FromWorker | Pong, transfer: Transferable[] = []) {
  scope.postMessage(m, transfer)
}

function fail(e: unknown) {
  playing = false
  post({ type: 'error', message: errorMessage(e), fatal: e instanceof WebAssembly.RuntimeError })
}

function create(engine: Engine, settings: TrainSettings & { task: TrainerOptions['task'] }): Trainer {
  const opts: TrainerOptions = {
    task: settings.task,
    score: settings.score,
    heads: settings.heads,
    dModel: settings.dModel,
    optimizer: settings.optimizer,
    lr: settings.lr,
    seed: settings.seed,
    positions: settings.positions,
    // the lr field is the peak: left playing, a constant lr makes some seeds unlearn what they had learned;
    // induction is the exception (its phase change comes after the decay would have ended)
    schedule: settings.task === 'induction' ? 'constant' : 'warmup-cosine',
  }
  if (settings.task === 'next-char' && settings.text) opts.text = settings.text
  return engine.createTrainer(opts)
}

function snapshot(tr: Trainer): Snapshot {
  let attention: Snapshot['attention'] = null
  let attentionError: string | null = null
  try {
    const t = tr.trace(sentence)
    const n = t.tokens.length
    const w = t.weights
    const heads = w.shape.length === 3 ? w.shape[0] : 1
    const avg = new Float32Array(n * n)
    for (let h = 0; h < heads; h++) for (let i = 0; i < n * n; i++) avg[i] += w.data[h * n * n + i] / heads
    attention = { tokens: t.tokens, weights: avg }
  } catch (e) {
    attentionError = errorMessage(e)
  }
  const emb = tr.parameters().embedding
  return {
    restAccuracy: lastRest,
    induction: tr.info.task === 'induction' ? inductionMaps(tr) : undefined,
    gradNorms: lastGrads,
    gradNormsAt: gradsAt,
    steps: tr.steps,
    lrInUse: tr.lrInUse,
    train: lastTrain,
    test: lastTest,
    attention,
    attentionError,
    pca: pca.project(emb.data, emb.shape[0], emb.shape[1]),
    playing,
  }
}

/** Every layer's and head's attention on the watched sequence (null when it does not tokenize). */
function inductionMaps(tr: Trainer): InductionSnapshot {
  const maps: Float32Array[][] = []
  let tokens: string[] = []
  try {
    for (let l = 0; l < tr.info.config.layers; l++) {
      const t = tr.trace(sentence, { layer: l })
      tokens = t.tokens
      const n = t.tokens.length
      const heads = t.weights.shape.length === 3 ? t.weights.shape[0] : 1
      maps.push(Array.from({ length: heads }, (_, h) => t.weights.data.slice(h * n * n, (h + 1) * n * n)))
    }
  } catch {
    return { tokens: [], maps: [], scores: lastScores, scoresAt } // the error is shown with the last layer's map
  }
  return { tokens, maps, scores: lastScores, scoresAt }
}

// The heads' scores are measured on this many held-out sequences (about the cost of two steps).
const SCORE_SAMPLE = 64
const INDUCTION_EVAL = 256

function evaluate(tr: Trainer, limit?: number) {
  // induction's evaluation runs the model twice per sequence (loss, then the split accuracy)
  const n = tr.info.task === 'induction' ? Math.min(limit ?? INDUCTION_EVAL, INDUCTION_EVAL) : limit
  const r = tr.evaluate(n === undefined ? undefined : { limit: n })
  lastTest = { loss: r.loss, accuracy: r.accuracy }
  lastRest = r.restAccuracy
  lastGrads = gradNorms(tr)
  gradsAt = tr.steps
  if (tr.info.task === 'induction') {
    lastScores = tr.headScores({ limit: SCORE_SAMPLE })
    scoresAt = tr.steps
  }
}

/** The gradient norms of the matrices the backward view explains (and the embeddings), on a training batch. */
function gradNorms(tr: Trainer): Snapshot['gradNorms'] {
  let grads: Record<string, Tensor>
  try {
    grads = tr.gradients().grads
  } catch {
    return []
  }
  const last = `layers.${tr.info.config.layers - 1}.`
  return ['Wq', 'Wk', 'Wv', 'Wo', 'embedding']
    .map((n) => (n === 'embedding' ? n : last + n))
    .filter((name) => grads[name])
    .map((name) => {
      let s = 0
      for (const v of grads[name].data) s += v * v
      return { name, norm: Math.sqrt(s) }
    })
}

/**
 * The last layer on the watched sentence as a trace the backward view can run again through ap.runBackward:
 * its input as the embeddings, its W_q, W_k, W_v, and options naming one placeholder word per token.
 */
function inspectTrace(tr: Trainer): { trace: Trace; labels: string[] } {
  const t = tr.trace(sentence)
  const c = tr.info.config
  const options: Trace['options'] = {
    text: t.tokens.map((_, i) => `t${i}`).join(' '),
    tokenizer: 'word',
    dModel: c.dModel,
    dq: c.dq,
    dk: c.dk,
    dv: c.dv,
    seed: 0,
    score: c.score as Trace['options']['score'],
    scale: t.scale,
    mask: c.mask,
    temperature: c.temperature,
    heads: c.heads,
    // the layer's input already holds the learned or sinusoidal positions
    positions: 'none',
    ropeBase: 10000,
  }
  const { Wo: _wo, layerOutput: _out, probs: _p, classes: _c, layer: _l, layers: _ls, ...plain } = t
  return { trace: { ...plain, options }, labels: t.tokens }
}

function send(tr: Trainer) {
  const s = snapshot(tr)
  const transfer: Transferable[] = [s.pca.buffer]
  if (s.attention) transfer.push(s.attention.weights.buffer)
  for (const row of s.induction?.maps ?? []) for (const m of row) transfer.push(m.buffer)
  post({ type: 'snapshot', snapshot: s }, transfer)
}

// While playing, a fixed sample of the held-out set (the task shuffles it once, so a prefix is fair);
// the whole set when paused or stepped.
const EVAL_SAMPLE = 512

function train(tr: Trainer, n: number) {
  lastTrain = tr.step(n)
  if (++chunksSinceEval >= EVAL_EVERY || lastTest === null) {
    evaluate(tr, EVAL_SAMPLE)
    chunksSinceEval = 0
  }
}

function loop() {
  timer = null
  if (!playing || !tr) return
  try {
    train(tr, CHUNK_STEPS)
    send(tr)
  } catch (e) {
    fail(e)
    return
  }
  timer = setTimeout(loop, 0)
}

async function handle(m: Exclude<ToWorker, { type: 'ping' }>) {
  if (m.type === 'reset') {
    playing = false
    if (timer) clearTimeout(timer)
    timer = null
    // The page's engine leaves the trainers out: this worker loads their module (once) beside it.
    ap ??= await (await init()).loadTrainer()
    tr?.dispose()
    tr = null
    poems?.dispose()
    poems = null
    if (m.settings.task === 'poems') {
      if (!m.corpus) throw new Error("task 'poems': the panel gave no corpus (public/poems/)")
      // a newer reset waits in the queue until this one is done, then disposes of it
      const session = await PoemsSession.create(ap, m.settings, m.corpus, post, fail)
      poems = session
      session.ready()
      return
    }
    const fresh = create(ap, { ...m.settings, task: m.settings.task })
    tr = fresh
    pca = new Pca2()
    lastScores = null
    evaluate(fresh, EVAL_SAMPLE)
    lastTrain = { loss: NaN, accuracy: NaN }
    chunksSinceEval = 0
    sentence = m.sentence && m.sentence.trim() ? m.sentence : fresh.info.sample
    const s = snapshot(fresh)
    post({
      type: 'ready',
      info: {
        vocab: fresh.info.vocab,
        sample: fresh.info.sample,
        testSize: fresh.info.testSize,
        trainSize: fresh.info.trainSize,
        layers: fresh.info.config.layers,
        heads: fresh.info.config.heads,
      },
      snapshot: s,
    })
    return
  }
  if (poems) return poems.handle(m)
  if (!tr) throw new Error('trainer: not created yet')
  switch (m.type) {
    case 'play':
      if (!playing) {
        playing = true
        loop()
      }
      break
    case 'pause':
      playing = false
      evaluate(tr)
      send(tr)
      break
    case 'step':
      playing = false
      // measured once, after the steps (train() would measure again when a chunk's evaluation falls due)
      lastTrain = tr.step(Math.max(1, Math.min(10_000, Math.floor(m.n))))
      evaluate(tr, EVAL_SAMPLE)
      chunksSinceEval = 0
      send(tr)
      break
    case 'lr':
      tr.lr = m.lr
      break
    case 'sentence':
      sentence = m.text
      send(tr)
      break
    case 'inspect':
      post({ type: 'inspect', ...inspectTrace(tr) })
      break
  }
}

// For the tests and the benchmarks (as window.__apPlayground on the page): the trainer this worker holds, to read
// its numbers beside what the panel shows (Playwright's worker.evaluate). Nothing of the page calls it.
;(self as unknown as { __apTrainer: () => Trainer | PoemsTrainer | null }).__apTrainer = () => poems?.trainer ?? tr

// The messages are handled one after another: a reset awaits the engine (and task poems its corpus), and a play or
// a step sent meanwhile (a learner pressing Play as the page opens) waits for the trainer it acts on. The watchdog's
// pings are answered at once.
let queue: Promise<void> = Promise.resolve()
scope.onmessage = (e) => {
  if (e.data.type === 'ping') return post({ type: 'pong' })
  const m = e.data
  queue = queue.then(() => handle(m)).catch(fail)
}
