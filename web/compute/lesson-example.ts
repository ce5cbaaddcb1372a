// The lesson's own example (lesson 000, panels/lesson-example.ts draws it): self-attention with Q = K = V = X on
// the lesson's vectors, plain dot-product scores, no scale, no mask.

import type { AttentionResult, Engine } from 'attention-playground'

/** Softmax(X Xᵀ) X for the rows of `vectors` (each one token's vector). */
export function selfAttentionOf(engine: Engine, vectors: readonly (readonly number[])[]): AttentionResult {
  const x = { data: new Float32Array(vectors.flat()), shape: [vectors.length, vectors[0].length] }
  return engine.attention({ query: x, key: x, value: x, score: 'dot', mask: 'none' })
}
