/* global importScripts, tf, createHarness */
// The worker of bench/lm_bench.mjs (a classic worker: tfjs and its wasm backend load as the UMD scripts a plain page
// would use; our package through import()). Messages { id, cmd, args } → { id, result } or { id, error }:
//   setup { backend, tfThreads, harness }  our engine (one thread, trainer module loaded), tfjs-backend-wasm (its SIMD
//                                          build; tfThreads 2 on an isolated page), the corpus, the kernel harness
//   ceiling                                the register tile alone on cache-resident data (bench/wasm_harness's, built
//                                          for this worker), GFLOP/s at d = 64
//   agree { steps, skipTfjs }              a fresh trainer and the same weights in tfjs, `steps` optimizer steps on the
//                                          same windows: both losses per step, the initial weights as safetensors
//                                          (base64) and the windows
//   round { index }                        one optimizer step each (ours, tfjs), ms
//   generate { file, cache, seed }         the sample model writing from one character up to its context, ms per char
// The model and its optimizer: docs/lm-spec.md (the poems trainer's defaults: 2 layers × 4 heads × d 64, context 64,
// batch 32), AdamW with nanoGPT's groups at a constant learning rate (warm-up 0, the cosine over 1,000,000 steps).
'use strict'

const S = { ours: null, trainer: null, tfModel: null, windows: null, vocab: null, harness: null, lines: [] }
const HP = { lr: 3e-3, beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: 0.1 }

function mulberry32(seed) {
  let s = seed >>> 0
  return () => {
    s = (s + 0x6d2b79f5) >>> 0
    let t = s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

async function text(url) {
  const r = await fetch(url)
  if (!r.ok) throw new Error(`${url}: ${r.status}`)
  return r.text()
}

// Windows of context + 1 ids starting at poem starts (as the trainer draws them), batch by batch, from one seed.
function windowsOf(train, context, batch, count, seed) {
  const starts = []
  for (let i = 0; i + context + 1 <= train.length;) {
    starts.push(i)
    while (i < train.length && train[i] !== 0) i++
    i++
  }
  const u = mulberry32(seed)
  return Array.from({ length: count }, () =>
    Array.from({ length: batch }, () => {
      const s = starts[Math.floor(u() * starts.length)]
      return train.subarray(s, s + context + 1)
    }),
  )
}

// ---- the same model in tfjs ops ---------------------------------------------------------------------------------

function tfjsModel(params, cfg) {
  const vars = {}
  for (const [name, t] of Object.entries(params)) vars[name] = tf.variable(tf.tensor(t.data, t.shape), true, name)
  // nanoGPT's groups: 2-D tensors decay (decoupled, torch's AdamW: p ← p·(1 − lr·wd) before the Adam step).
  const decayed = Object.entries(params)
    .filter(([, t]) => t.shape.length === 2 && t.shape[0] > 1)
    .map(([n]) => n)
  const optimizer = tf.train.adam(HP.lr, HP.beta1, HP.beta2, HP.eps)
  const C = cfg.dModel
  const H = cfg.heads
  const hs = C / H
  const V = cfg.vocabSize
  const row = (name) => tf.reshape(vars[name], [-1]) // the trainer's vectors are [1, n]
  const ln = (x, w, b) => {
    const mean = tf.mean(x, -1, true)
    const xc = tf.sub(x, mean)
    const v = tf.mean(tf.square(xc), -1, true)
    return tf.add(tf.mul(tf.mul(xc, tf.rsqrt(tf.add(v, 1e-5))), row(w)), row(b))
  }
  const linear = (x, w, b) => tf.add(tf.matMul(x, vars[w], false, true), row(b))
  const heads = (t, B, T) => tf.transpose(tf.reshape(t, [B, T, H, hs]), [0, 2, 1, 3])

  function loss(ids, targets, B, T) {
    // tfjs-backend-wasm 4.22 has no UnsortedSegmentSum, so gather cannot be differentiated: a one-hot matmul embeds.
    // and its OneHot kernel writes int32 bits whatever the dtype asked (1 reads as 1.4e-45 in float32): cast instead.
    const onehot = tf.cast(tf.oneHot(tf.tensor1d(ids, 'int32'), V), 'float32')
    let x = tf.matMul(onehot, vars['transformer.wte.weight'])
    x = tf.reshape(tf.add(tf.reshape(x, [B, T, C]), tf.slice(vars['transformer.wpe.weight'], [0, 0], [T, C])), [
      B * T,
      C,
    ])
    const causal = tf.mul(tf.sub(1, tf.linalg.bandPart(tf.ones([T, T]), -1, 0)), -1e9)
    for (let l = 0; l < cfg.layers; l++) {
      const p = (k) => `transformer.h.${l}.${k}`
      const qkv = linear(ln(x, p('ln_1.weight'), p('ln_1.bias')), p('attn.c_attn.weight'), p('attn.c_attn.bias'))
      const [q, k, v] = tf.split(qkv, 3, 1).map((t) => heads(t, B, T))
      const att = tf.softmax(tf.add(tf.mul(tf.matMul(q, k, false, true), 1 / Math.sqrt(hs)), causal))
      const y = tf.reshape(tf.transpose(tf.matMul(att, v), [0, 2, 1, 3]), [B * T, C])
      x = tf.add(x, linear(y, p('attn.c_proj.weight'), p('attn.c_proj.bias')))
      const u = linear(ln(x, p('ln_2.weight'), p('ln_2.bias')), p('mlp.c_fc.weight'), p('mlp.c_fc.bias'))
      const gelu = tf.mul(tf.mul(u, 0.5), tf.add(1, tf.erf(tf.mul(u, Math.SQRT1_2)))) // exact, torch.nn.GELU()
      x = tf.add(x, linear(gelu, p('mlp.c_proj.weight'), p('mlp.c_proj.bias')))
    }
    const logits = tf.matMul(
      ln(x, 'transformer.ln_f.weight', 'transformer.ln_f.bias'),
      vars['transformer.wte.weight'],
      false,
      true,
    )
    const target = tf.cast(tf.oneHot(tf.tensor1d(targets, 'int32'), V), 'float32')
    return tf.neg(tf.mean(tf.sum(tf.mul(target, tf.logSoftmax(logits)), -1)))
  }

  return {
    step(ids, targets, B, T) {
      tf.tidy(() => {
        for (const n of decayed) vars[n].assign(tf.mul(vars[n], 1 - HP.lr * HP.weightDecay))
      })
      const { value, grads } = tf.variableGrads(() => loss(ids, targets, B, T))
      optimizer.applyGradients(grads)
      const l = value.dataSync()[0]
      value.dispose()
      tf.dispose(grads)
      return l
    },
    dispose() {
      optimizer.dispose()
      tf.dispose(Object.values(vars))
    },
  }
}

// Inputs and targets of a batch of windows, flat.
function split(batch) {
  const B = batch.length
  const T = batch[0].length - 1
  const ids = new Int32Array(B * T)
  const targets = new Int32Array(B * T)
  batch.forEach((w, b) => {
    ids.set(w.subarray(0, T), b * T)
    targets.set(w.subarray(1), b * T)
  })
  return { ids, targets, B, T }
}

function freshTrainer() {
  S.trainer?.dispose()
  S.trainer = S.ours.createTrainer({
    task: 'poems',
    vocab: S.vocab,
    train: S.train,
    warmup: 0,
    decaySteps: 1_000_000,
    lr: HP.lr,
    beta1: HP.beta1,
    beta2: HP.beta2,
    weightDecay: HP.weightDecay,
  })
  return S.trainer
}

const commands = {
  async setup({ backend, tfThreads, harness, rounds }) {
    const { init } = await import('/dist/index.js')
    S.ours = await init({ backend, threads: 1, trainer: true })
    S.ours.warmUp()
    S.vocab = JSON.parse(await text('/public/poems/vocab.json'))
    const index = new Map(S.vocab.map((c, i) => [c, i]))
    S.train = Uint16Array.from(Array.from(await text('/public/poems/train.txt'), (c) => index.get(c)))
    const tr = freshTrainer()
    S.cfg = tr.config
    S.windows = windowsOf(S.train, S.cfg.context, S.cfg.batch, rounds + 8, 1)
    importScripts(
      '/node_modules/@tensorflow/tfjs/dist/tf.min.js',
      '/node_modules/@tensorflow/tfjs-backend-wasm/dist/tf-backend-wasm.min.js',
    )
    tf.wasm.setWasmPaths('/node_modules/@tensorflow/tfjs-backend-wasm/wasm-out/')
    if (tfThreads === 1) tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false)
    else tf.wasm.setThreadsCount(tfThreads)
    await tf.setBackend('wasm')
    await tf.ready()
    if (harness) {
      importScripts(harness.script)
      S.harness = await createHarness({ locateFile: (f) => harness.dir + f, print: (l) => S.lines.push(l) })
    }
    return {
      backend: S.ours.backend,
      config: S.cfg,
      tfjs: {
        version: tf.version.tfjs,
        backend: tf.getBackend(),
        simd: tf.env().getBool('WASM_HAS_SIMD_SUPPORT'),
        threads: tf.wasm.getThreadsCount?.(),
      },
      isolated: self.crossOriginIsolated,
    }
  },
  ceiling() {
    S.lines.length = 0
    S.harness._harness_ceiling(64)
    return JSON.parse(S.lines.find((l) => l.startsWith('{')))
  },
  agree({ steps, skipTfjs }) {
    const tr = freshTrainer()
    const bytes = tr.exportSafetensors()
    let init = ''
    for (let i = 0; i < bytes.length; i += 0x8000) init += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
    S.tfModel?.dispose()
    S.tfModel = tfjsModel(tr.parameters(), S.cfg)
    const ours = []
    const tfjs = []
    for (let s = 0; s < steps; s++) {
      ours.push(tr.trainOn(S.windows[s]).loss)
      if (!skipTfjs) {
        const b = split(S.windows[s])
        tfjs.push(S.tfModel.step(b.ids, b.targets, b.B, b.T))
      }
    }
    // the weights as base64 safetensors, and every window (the torch peer trains on the same ones)
    return { ours, tfjs, init: btoa(init), windows: S.windows.map((b) => b.map((w) => Array.from(w))) }
  },
  round({ index, skipTfjs }) {
    const batch = S.windows[(index % (S.windows.length - 4)) + 4]
    let t0 = performance.now()
    const ours = S.trainer.trainOn(batch).loss
    const oursMs = performance.now() - t0
    if (skipTfjs) return { oursMs, ours }
    const b = split(batch)
    t0 = performance.now()
    const tfjs = S.tfModel.step(b.ids, b.targets, b.B, b.T)
    return { oursMs, tfjsMs: performance.now() - t0, ours, tfjs }
  },
  async generate({ file, cache, seeds }) {
    S.lm ??= S.ours.loadLanguageModel(await (await fetch(file)).arrayBuffer())
    const context = S.lm.config.context
    const out = []
    for (const seed of seeds) {
      const prompt = S.vocab[4 + (seed % 100)]
      const t0 = performance.now()
      const r = S.lm.generate({ prompt, maxTokens: context, temperature: 0.8, seed, stop: null, cache })
      const ms = performance.now() - t0
      out.push({ seed, chars: r.ids.length, ms, msPerChar: ms / r.ids.length, reason: r.reason, text: r.text })
    }
    return out
  },
}

self.onmessage = async (e) => {
  const { id, cmd, args } = e.data
  try {
    self.postMessage({ id, result: await commands[cmd](args ?? {}) })
  } catch (err) {
    self.postMessage({ id, error: String(err?.stack ?? err) })
  }
}
