// Every rule that settles one field of the state by the others, in one place (`normalize`): the page's
// changes, a link's and the widget's attributes all go through it. Beside the other rules of what a
// change does (changes.ts) and what a state means for the engine (options.ts).

import { RULE_TRAITS, type Notice, type PlaygroundState } from '../params'
import { resetsEdits, resetsPositions, settleWeights } from './changes'

/** How a state came to change, for `normalize`. */
export interface Change {
  /** The state before (a link or the attributes: the base they apply to); null: none (a first state). */
  prev: PlaygroundState | null
  /** The fields the change set itself: a reset rule leaves them as given. */
  given: ReadonlySet<string>
  /**
   * true: read from a link or attributes, where values that clash fall back (with a notice) the same on
   * the page and in the widget; false: the learner's own change, which keeps them and lets the engine
   * say why it cannot run.
   */
  fromLink: boolean
}

/**
 * Every rule that settles one field by the others, in one place; changes `s` in place and returns the
 * notices for what a link asked for and did not get:
 * - trained weights fix the model's sizes: they bring them, and a learner's change of one of them goes back
 *   to random weights (`settleWeights`, compute/changes.ts);
 * - a new sentence, tokenizer or mode drops the padded keys and masked cells (bound to positions), and
 *   with a new size or seed the cell edits too, unless the change set them;
 * - the causal mask belongs to the decoder's own self-attention: cross attention never carries it
 *   (a link falls back to its base's mask, and says so);
 * - from a link: `dot` / `scaled-dot` need dk = dq (dk falls back to dq), heads must divide dq, dk and dv
 *   (heads falls back to 1);
 * - from a link: rope needs dq = dk and an even dq / heads, alibi needs scores to bias (not concat): positions
 *   fall back to none;
 * - the shown head is one of the heads.
 */
export function normalize(s: PlaygroundState, change: Change): Notice[] {
  const { prev, given, fromLink } = change
  const notices: Notice[] = []
  if (prev) {
    const patch = Object.fromEntries([...given].map((k) => [k, s[k as keyof PlaygroundState]]))
    Object.assign(s, settleWeights(prev, patch, s))
  }
  if (prev && resetsPositions(prev, s)) {
    if (!given.has('padKeys')) s.padKeys = []
    if (!given.has('maskCells')) s.maskCells = []
  }
  if (prev && resetsEdits(prev, s) && !given.has('edits')) s.edits = []
  if (s.head >= s.heads) s.head = 0
  if (fromLink && RULE_TRAITS[s.score].dotProduct && s.dq !== s.dk) {
    notices.push({
      param: 'dk',
      value: `${s.dk} (${s.score} needs dk = dq = ${s.dq})`,
      clash: { key: 'noticeDkClash', vars: { v: s.dk, score: s.score, dq: s.dq } },
    })
    s.dk = s.dq
  }
  if (fromLink && (s.dq % s.heads || s.dk % s.heads || s.dv % s.heads)) {
    notices.push({
      param: 'heads',
      value: `${s.heads} (must divide dq = ${s.dq}, dk = ${s.dk}, dv = ${s.dv})`,
      clash: { key: 'noticeHeadsClash', vars: { v: s.heads, dq: s.dq, dk: s.dk, dv: s.dv } },
    })
    s.heads = 1
    s.head = 0
  }
  if (fromLink) notices.push(...settlePositions(s))
  if (s.mode === 'cross' && s.mask === 'causal') {
    if (fromLink) notices.push({ param: 'mask', value: 'causal', reason: 'crossCausal' })
    s.mask = fromLink && prev && prev.mask !== 'causal' ? prev.mask : 'none'
  }
  return notices
}

/** From a link: positions the sizes or the rule cannot take fall back to none, with a notice (engine rows P2, P5). */
function settlePositions(s: PlaygroundState): Notice[] {
  const dh = s.dq / s.heads
  if (s.positions === 'rope' && (s.dq !== s.dk || dh % 2 !== 0)) {
    s.positions = 'none'
    return [
      {
        param: 'positions',
        value: `rope (needs dq = dk and an even dq / heads, got dq = ${s.dq}, dk = ${s.dk}, heads = ${s.heads})`,
        clash: { key: 'noticeRopeClash', vars: { dq: s.dq, dk: s.dk, heads: s.heads } },
      },
    ]
  }
  if (s.positions === 'alibi' && RULE_TRAITS[s.score].linear) {
    s.positions = 'none'
    return [
      {
        param: 'positions',
        value: `alibi (${s.score} has no query-key scores to bias)`,
        clash: { key: 'noticeAlibiClash', vars: { score: s.score } },
      },
    ]
  }
  return []
}
