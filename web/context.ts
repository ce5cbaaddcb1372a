// What every panel may read and do. The playground owns it; panels never talk to each other directly.

import type { StepName, Trace } from 'attention-playground'
import type { Texts, Translate } from './i18n'
import type { PlaygroundState } from './params'

export interface Highlight {
  /** A query position (rows of Q, scores, weights, output). */
  q: number | null
  /** A key position (rows of K and V, columns of scores and weights). */
  k: number | null
}

export interface Selection {
  step: StepName
  i: number
  j: number
}

export interface Ctx {
  state: PlaygroundState
  t: Translate
  texts: Texts
  trace: Trace | null
  hl: Highlight
  sel: Selection | null
  /** The controls' "More options" fold is open (advanced rules, tokenizers, heads, temperature, cell editing). */
  moreOptions: boolean
  setMoreOptions(open: boolean): void
  setState(patch: Partial<PlaygroundState>): void
  setHighlight(q: number | null, k: number | null): void
  select(sel: Selection | null): void
}

export interface Panel {
  el: HTMLElement
  /** Called after every recompute and on language change. */
  render(ctx: Ctx): void
  highlight?(ctx: Ctx): void
  select?(ctx: Ctx): void
  /** Stops observers and timers (the widget's element can be removed at any time). */
  dispose?(): void
  /**
   * The Train tab's "look inside this step": the trace of the trained model's last layer and its token labels. A
   * view that can show a trained model's numbers implements it (the shell calls every view's and then opens the
   * backward view); the others leave it out.
   */
  showTrained?(trace: Trace, labels: string[]): void
  /**
   * A language model's safetensors bytes (nanoGPT's layout, e.g. the Train tab's `trainer.exportSafetensors()`): a
   * view that writes with a language model shows it (the generate view); resolves once it is shown or refused.
   */
  showLanguageModel?(bytes: Uint8Array, name: string): Promise<void>
}
