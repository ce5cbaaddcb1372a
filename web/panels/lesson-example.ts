// Lesson 002's own example, beside the 我爱中国 preset: three tokens 我 / 爱 / 中国 with the ids
// [666, 777, 888] and the three vectors the lesson gives, projections simplified to the identity
// (Q = K = V = the embeddings), run through the engine's attention().

import type { Ctx, Panel } from '../context'
import type { Engine } from 'attention-playground'
import { h, setText } from '../dom'
import { Texts } from '../i18n'
import { fmt } from '../format'
import { selfAttentionOf } from '../compute/lesson-example'

export const LESSON_TOKENS = ['我', '爱', '中国']
export const LESSON_IDS = [666, 777, 888]
export const LESSON_VECTORS = [
  [1123, -12, -0.123],
  [-0.1233, -912, -0.123],
  [0.123, 0.2341, 123],
]

export class LessonExample implements Panel {
  readonly el: HTMLElement
  private texts = new Texts()
  private body = h('div', { class: 'table-scroll' })
  /** What the page's own panels do with the sentence (its tokens as split now). */
  private ownRun = h('p', { class: 'hint', 'data-own-run': '' })
  private done = false

  constructor(private engine: Engine) {
    const tx = this.texts.bind
    this.el = h(
      'section',
      { class: 'panel', 'data-panel': 'lessonExample' },
      h('header', { class: 'panel-head' }, tx(h('h3'), 'lessonExTitle')),
      tx(h('p', { class: 'help' }), 'lessonExHelp'),
      this.body,
      tx(h('p', { class: 'hint' }), 'lessonExNote'),
      this.ownRun,
    )
  }

  render(ctx: Ctx): void {
    // Beside the page's own run of the same sentence (by characters or words).
    this.el.hidden = ctx.state.mode !== 'self' || ctx.state.text.replace(/\s+/g, '') !== '我爱中国'
    this.texts.apply(ctx.t)
    if (this.el.hidden || !this.engine.attention) return
    const toks = ctx.trace?.tokens ?? []
    setText(this.ownRun, ctx.t('lessonExOwnRun', { n: toks.length, tokens: toks.join(' / ') }))
    if (this.done && this.body.dataset.lang === ctx.state.lang) return
    const r = selfAttentionOf(this.engine, LESSON_VECTORS)
    const t = ctx.t
    const head = (...c: string[]) => h('thead', {}, h('tr', {}, ...c.map((s) => h('th', { scope: 'col', text: s }))))
    const vec = (d: ArrayLike<number>, i: number) =>
      `[${Array.from(d)
        .slice(i * 3, i * 3 + 3)
        .map((v) => fmt(v, 4))
        .join(', ')}]`
    this.body.replaceChildren(
      h(
        'table',
        { class: 'compare', 'data-lesson-example': '' },
        head(t('lessonExToken'), t('lessonExId'), t('lessonExVector'), t('lessonExWeights'), t('lessonExOutput')),
        h(
          'tbody',
          {},
          ...LESSON_TOKENS.map((tok, i) =>
            h(
              'tr',
              {},
              h('th', { scope: 'row', text: tok }),
              h('td', { text: String(LESSON_IDS[i]) }),
              h('td', { text: vec(LESSON_VECTORS[i], 0) }),
              h('td', { 'data-row': i, text: vec(r.weights!.data, i) }),
              h('td', { text: vec(r.output.data, i) }),
            ),
          ),
        ),
      ),
    )
    this.body.dataset.lang = ctx.state.lang
    this.done = true
  }
}
