// The decoder side of the seq2seq lesson in cross mode (panels/decoder.ts draws it): the target sentence
// attending to itself under a causal mask, with the page's tokenizer, sizes, seed and temperature and one
// scaled-dot head at its default scale.

import type { Engine, RunOptions } from 'attention-playground'
import type { PlaygroundState } from '../params'
import { headMatrix, type Matrix } from './heads'
import { baseRunOptions } from './options'

export interface DecoderAttention {
  weights: Matrix
  tokens: string[]
}

/** The decoder's run options, from the page's own (baseRunOptions) on the target sentence. */
export function decoderRunOptions(s: PlaygroundState): RunOptions {
  const decoder: PlaygroundState = { ...s, mode: 'self', text: s.target, score: 'scaled-dot', mask: 'causal' }
  return baseRunOptions({ ...decoder, scale: 'auto', heads: 1 }, 0, 0)
}

/** The decoder's weights, run again only when its options change (the last options kept as the key). */
export class DecoderSelfAttention {
  private key = ''

  constructor(private engine: Engine) {}

  /** The new weights, or null when the options are the last call's. Throws the engine's error (once per options). */
  update(s: PlaygroundState): DecoderAttention | null {
    const options = decoderRunOptions(s)
    const key = JSON.stringify(options)
    if (key === this.key) return null
    this.key = key
    const tr = this.engine.run(options)
    return { weights: headMatrix(tr.weights, 0), tokens: tr.tokens }
  }
}
