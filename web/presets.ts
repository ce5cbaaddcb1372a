// The presets: the course's program, a Chinese sentence by characters, the lessons' "it" sentence on the trained
// model (the Train tab's default run, the Why tab's arcs: "it → animal"; the weights note switches it to random
// weights), and a translation pair for encoder–decoder attention.

import { TRAINED_DIMS, TRAINED_SENTENCE } from './compute/trained'
import { DEFAULT_STATE, type PlaygroundState } from './params'

export type PresetId = 'cat' | 'zh' | 'it' | 'seq2seq'

const COMMON: Partial<PlaygroundState> = {
  dModel: DEFAULT_STATE.dModel,
  dq: DEFAULT_STATE.dq,
  dk: DEFAULT_STATE.dk,
  dv: DEFAULT_STATE.dv,
  seed: DEFAULT_STATE.seed,
  score: 'scaled-dot',
  scale: 'auto',
  mask: 'none',
  temperature: 1,
  heads: 1,
  head: 0,
  padKeys: [],
  maskCells: [],
  edits: [],
  weights: 'random',
  positions: 'none',
}

export const PRESETS: Record<PresetId, Partial<PlaygroundState>> = {
  cat: { ...COMMON, mode: 'self', text: 'this is my cat', tokenizer: 'word-sorted' },
  zh: { ...COMMON, mode: 'self', text: '我爱中国', tokenizer: 'char' },
  it: { ...COMMON, ...TRAINED_DIMS, text: TRAINED_SENTENCE, weights: 'trained' },
  seq2seq: { ...COMMON, mode: 'cross', source: '我 爱 中国', target: 'I love China', tokenizer: 'word' },
}

export const PRESET_IDS = Object.keys(PRESETS) as PresetId[]

export function matchingPreset(s: PlaygroundState): PresetId | null {
  for (const id of PRESET_IDS) {
    const p = PRESETS[id]
    let ok = true
    for (const [k, v] of Object.entries(p)) {
      const cur = (s as unknown as Record<string, unknown>)[k]
      if (Array.isArray(v) ? !(Array.isArray(cur) && cur.length === v.length) : cur !== v) {
        ok = false
        break
      }
    }
    if (ok) return id
  }
  return null
}
