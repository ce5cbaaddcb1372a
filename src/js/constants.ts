// The package's name lists (tokenizers, scoring rules, step names, position encodings), with no engine: the
// `attention-playground/constants` entry, which loads no wasm (the page's URL and state logic, and its unit tests,
// import it). The main entry re-exports every name here.

/** The tokenizers, in the order the page lists them. */
export const TOKENIZER_NAMES = ['word-sorted', 'word', 'char', 'bpe'] as const
export type TokenizerName = (typeof TOKENIZER_NAMES)[number]
/** The scoring rules (their definitions: docs/design.md); every other list of them derives from this one. */
export const SCORE_RULES = ['dot', 'scaled-dot', 'general', 'additive', 'concat'] as const
export type ScoreRule = (typeof SCORE_RULES)[number]

/** The fixed step names, in pipeline order (the same in C++, the page's `data-step` and the tests). */
export const STEP_NAMES = [
  'embeddings',
  'Wq',
  'Wk',
  'Wv',
  'Q',
  'K',
  'V',
  'scores',
  'scaledScores',
  'maskedScores',
  'weights',
  'output',
] as const
export type StepName = (typeof STEP_NAMES)[number]

/** How word order enters (docs/positions.md); 'none' is the course's program. */
export const POSITION_ENCODINGS = ['none', 'sinusoidal', 'learned', 'rope', 'alibi'] as const
export type PositionEncoding = (typeof POSITION_ENCODINGS)[number]
/**
 * The steps an encoding adds to a trace (the same names in C++, `data-step` and the tests): `positions` the
 * table added to the embeddings (sinusoidal, learned), `rotatedQ` / `rotatedK` (rope), `positionBias` (alibi).
 */
export const POSITION_STEP_NAMES = ['positions', 'rotatedQ', 'rotatedK', 'positionBias'] as const
export type PositionStepName = (typeof POSITION_STEP_NAMES)[number]
