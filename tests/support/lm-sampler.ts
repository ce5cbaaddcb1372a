// The JS reference sampler of docs/lm-spec.md ("Sampling"), for tests: `model.generate` with a seed must equal
// referenceGenerate over the package's own forward logits. It re-implements the definition, operation for
// operation as tests/fixtures/gpt_torch.py's `sample` (float64, the same order of sums), and
// tests/unit/lm-sampler.test.ts checks it against that function's draws (tests/fixtures/lm-sampler.json).
//
//   p = softmax(logits / temperature); temperature 0 or topK 1: argmax (ties to the lowest id)
//   sorted by probability (ties to the lower id); topK keeps the first k (0: all); topP keeps the smallest prefix
//   whose sum >= topP; renormalised; u from mulberry32(seed), one draw per generated token; the first id whose
//   cumulative probability > u (the last kept id when rounding leaves none).
import { mulberry32 } from '../../web/compute/random'

export interface SampleOptions {
  temperature: number
  /** 0 (or absent): every id. */
  topK?: number
  /** 1 (or absent): no cut. */
  topP?: number
}

/** One id drawn from a row of logits with the uniform `u` in [0, 1). */
export function sampleRow(
  logits: ArrayLike<number>,
  { temperature, topK = 0, topP = 1 }: SampleOptions,
  u: number,
): number {
  const n = logits.length
  if (n === 0) throw new Error('sampleRow(logits): empty row')
  if (temperature === 0 || topK === 1) {
    let best = 0
    for (let i = 1; i < n; i++) if (logits[i] > logits[best]) best = i
    return best
  }
  let m = -Infinity
  for (let i = 0; i < n; i++) m = Math.max(m, logits[i])
  const e = new Float64Array(n)
  let s = 0
  for (let i = 0; i < n; i++) {
    e[i] = Math.exp((logits[i] - m) / temperature)
    s += e[i]
  }
  let order = Array.from({ length: n }, (_, i) => i).sort((a, b) => e[b] - e[a] || a - b)
  let p = order.map((i) => e[i] / s)
  if (topK && topK < order.length) {
    order = order.slice(0, topK)
    p = p.slice(0, topK)
  }
  if (topP < 1) {
    let c = 0
    let keep = p.length
    for (let j = 0; j < p.length; j++) {
      c += p[j]
      if (c >= topP) {
        keep = j + 1
        break
      }
    }
    order = order.slice(0, keep)
    p = p.slice(0, keep)
  }
  let z = 0
  for (const q of p) z += q
  let c = 0
  for (let j = 0; j < order.length; j++) {
    c += p[j] / z
    if (c > u) return order[j]
  }
  return order[order.length - 1]
}

export interface GenerateOptions extends SampleOptions {
  maxTokens: number
  seed: number
  /** The id that ends a poem (generation stops after it): 0 in the poems vocabulary; null: never stop early. */
  endId?: number | null
}

/**
 * What generate writes after `prompt` (ids): at every step the logits of the whole sequence so far from
 * `forward` (ids → [n, vocab] row-major, the package's logits), the last row sampled with one mulberry32(seed) draw.
 * Stops after maxTokens ids, after endId, or when `context` ids are reached.
 */
export function referenceGenerate(
  forward: (ids: number[]) => { data: ArrayLike<number>; vocab: number },
  prompt: number[],
  { maxTokens, seed, endId = 0, ...options }: GenerateOptions,
  context = Infinity,
): number[] {
  const rand = mulberry32(seed)
  const ids = [...prompt]
  const out: number[] = []
  while (out.length < maxTokens && ids.length < context) {
    const { data, vocab } = forward(ids)
    const n = ids.length
    const row = Array.from({ length: vocab }, (_, j) => data[(n - 1) * vocab + j])
    const id = sampleRow(row, options, rand())
    ids.push(id)
    out.push(id)
    if (endId !== null && id === endId) break
  }
  return out
}
