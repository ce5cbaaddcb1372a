// What the Decoding view's KV-cache panel counts, without the DOM: the cost of one step with and without the cache,
// and the cache's size for real models (their published configurations). The K and V rows it shows are the decode
// model's own (compute/decode.ts, selfK and selfV).

/** Published configurations, from each model's config.json on Hugging Face (`config`): GPT-2's n_layer, n_head, n_embd
 * / n_head, n_ctx; the others' num_hidden_layers, num_attention_heads, num_key_value_heads, hidden_size /
 * num_attention_heads, max_position_embeddings and Mistral's sliding_window. Checked against those files. */
export const KV_MODELS = [
  {
    name: 'GPT-2 small',
    layers: 12,
    heads: 12,
    kvHeads: 12,
    headDim: 64,
    context: 1024,
    window: 0,
    config: 'https://huggingface.co/openai-community/gpt2/blob/main/config.json',
  },
  {
    name: 'LLaMA-2-7B',
    layers: 32,
    heads: 32,
    kvHeads: 32,
    headDim: 128,
    context: 4096,
    window: 0,
    config: 'https://huggingface.co/meta-llama/Llama-2-7b-hf/blob/main/config.json',
  },
  {
    name: 'LLaMA-3-8B',
    layers: 32,
    heads: 32,
    kvHeads: 8,
    headDim: 128,
    context: 8192,
    window: 0,
    config: 'https://huggingface.co/meta-llama/Meta-Llama-3-8B/blob/main/config.json',
  },
  {
    name: 'Mistral-7B',
    layers: 32,
    heads: 32,
    kvHeads: 8,
    headDim: 128,
    context: 32768,
    window: 4096,
    config: 'https://huggingface.co/mistralai/Mistral-7B-v0.1/blob/main/config.json',
  },
] as const

/** 2 · layers · kvHeads · headDim · tokens · bytes (the window caps the tokens kept). */
export function kvCacheBytes(
  m: { layers: number; kvHeads: number; headDim: number; window: number },
  tokens: number,
  bytes = 2,
): number {
  const kept = m.window > 0 ? Math.min(tokens, m.window) : tokens
  return 2 * m.layers * m.kvHeads * m.headDim * kept * bytes
}

/** Step t (t tokens so far, 1-based) of a one-layer, one-head decoder: with the cache, one new q, k, v row and one
 * query against t cached rows; without, the same query row after recomputing all t rows of K and V (what this one
 * layer needs; a decoder of several layers without a cache re-runs the whole prefix, kvLead says so). */
export function kvStepCost(t: number, d: { dModel: number; dq: number; dk: number; dv: number }) {
  const proj = d.dModel * (d.dq + d.dk + d.dv)
  const rowAttn = (rows: number) => rows * (d.dk + d.dv) // scores over `rows` keys, then the weighted sum of V
  const f = 4 // float32
  return {
    withMacs: proj + rowAttn(t),
    withoutMacs: d.dModel * d.dq + t * d.dModel * (d.dk + d.dv) + rowAttn(t),
    // with: read the t cached rows of K and V, write the new one; without: write all t rows, read them once
    withBytes: (t + 1) * (d.dk + d.dv) * f,
    withoutBytes: 2 * t * (d.dk + d.dv) * f,
  }
}
