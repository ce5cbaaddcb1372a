// Child of bench/run.mjs: one attention at n rows (d = 64, needWeights false) in a fresh module,
// so the wasm memory it reports is what that call needs, not what earlier cases grew it to.
// Prints one JSON line. Usage: node bench/long_run.mjs <distDir> <n> <runs>
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { cli } from './inputs.mjs'

const USAGE = 'node bench/long_run.mjs <distDir> <n> <runs>'
const [distDir, nArg, runsArg] = cli({}, USAGE, 3)._
if (!runsArg) throw new Error(`usage: ${USAGE}`)
const n = Number(nArg),
  d = 64,
  runs = Number(runsArg)
// Catch the module's WebAssembly.Memory (the export that is one) for packages without ap.memoryBytes().
let memory = null
const orig = WebAssembly.instantiate
WebAssembly.instantiate = (...a) =>
  orig.apply(WebAssembly, a).then((r) => {
    for (const v of Object.values((r.instance ?? r).exports ?? {})) if (v instanceof WebAssembly.Memory) memory = v
    return r
  })
const { init } = await import(pathToFileURL(join(distDir, 'index.js')).href)
const ap = await init()
WebAssembly.instantiate = orig
const memoryBytes = () => (typeof ap.memoryBytes === 'function' ? ap.memoryBytes() : memory?.buffer.byteLength)
const before = memoryBytes()

let s = 7
const rand = (len) =>
  Float32Array.from({ length: len }, () => {
    s ^= s << 13
    s >>>= 0
    s ^= s >>> 17
    s ^= s << 5
    s >>>= 0
    return (s / 4294967296) * 2 - 1
  })
const t = (data) => ({ data, shape: [n, d] })
const Q = t(rand(n * d)),
  K = t(rand(n * d)),
  V = t(rand(n * d))
const times = []
for (let r = 0; r <= runs; r++) {
  const t0 = performance.now()
  const out = ap.attention({ query: Q, key: K, value: V, score: 'scaled-dot', needWeights: false })
  if (r > 0) times.push(performance.now() - t0) // the first call also runs in V8's baseline tier
  if (!out.output.data.every(Number.isFinite)) throw new Error('non-finite output')
}
times.sort((a, b) => a - b)
console.log(
  JSON.stringify({
    n,
    d,
    ms: times[times.length >> 1],
    minMs: times[0],
    memoryBytesBefore: before,
    memoryBytes: memoryBytes(),
    source: typeof ap.memoryBytes === 'function' ? 'ap.memoryBytes()' : 'WebAssembly.Memory',
  }),
)
