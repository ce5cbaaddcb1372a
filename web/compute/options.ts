// The state in the engine's terms: the run options and the scale it implies.

import type { RunOptions } from 'attention-playground'
import { RULE_TRAITS, type PlaygroundState } from '../params'
import { engineMask } from './masks'
import { engineText } from './segment'

/** The scale multiplier for the engine: undefined lets the engine apply the rule's default. */
export function resolveScale(s: PlaygroundState): number | false | undefined {
  if (s.scale === 'auto') return undefined
  if (s.scale === 'off') return false
  return 1 / Math.sqrt(s.dk / s.heads)
}

/** Whether ÷√d_k is in effect (for the toggle's checked state). */
export function scaleIsOn(s: PlaygroundState): boolean {
  if (s.scale === 'auto') return RULE_TRAITS[s.score].scaledByDefault
  return s.scale === 'on'
}

export function baseRunOptions(s: PlaygroundState, nq: number, nk: number): RunOptions {
  const o: RunOptions = {
    tokenizer: s.tokenizer,
    dModel: s.dModel,
    dq: s.dq,
    dk: s.dk,
    dv: s.dv,
    seed: s.seed,
    score: s.score,
    mask: engineMask(s, nq, nk),
    temperature: s.temperature,
    heads: s.heads,
  }
  if (s.positions !== 'none') o.positions = s.positions
  if (s.positions === 'rope' && s.ropeBase !== 10000) o.ropeBase = s.ropeBase
  const scale = resolveScale(s)
  if (scale !== undefined) o.scale = scale
  if (s.mode === 'cross') {
    o.source = engineText(s.source, s.tokenizer)
    o.target = engineText(s.target, s.tokenizer)
  } else {
    o.text = engineText(s.text, s.tokenizer)
  }
  return o
}
