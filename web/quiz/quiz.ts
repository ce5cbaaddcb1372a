// The quiz panel under every view: the current view's questions (in the guided tour, the current
// step's first). Markup other tools rely on: each question is an element with data-quiz holding
// its options as <button>s; an answer sets data-quiz-result="right" | "wrong" and shows the
// explanation. Answers are kept in localStorage by question id, in one store that every quiz panel reads
// (the guided tour's and the one under the view): each shows the same count, the whole view's questions.

import type { Ctx, Panel } from '../context'
import { h, setText } from '../dom'
import type { Question, QuizViews } from './questions'

const STORE = 'attention-playground.quiz.v1'

type Results = Record<string, 'right' | 'wrong'>

function load(): Results {
  try {
    const v = JSON.parse(globalThis.localStorage?.getItem(STORE) ?? '{}')
    return v && typeof v === 'object' ? v : {}
  } catch {
    return {} // storage blocked (a sandboxed frame) or unreadable: start afresh
  }
}

function save(r: Results): void {
  try {
    globalThis.localStorage?.setItem(STORE, JSON.stringify(r))
  } catch {
    /* storage blocked: progress lasts this visit */
  }
}

/** Every quiz panel on the page: an answer in one updates the count in all of them. */
const panels = new Set<WeakRef<QuizPanel>>()

export class QuizPanel implements Panel {
  readonly el: HTMLElement
  private title: HTMLElement
  private progress = h('p', { class: 'quiz-progress', role: 'status' })
  private list = h('div', { class: 'quiz-list' })
  private results: Results = load()
  private key = ''
  private last: Ctx | null = null

  /**
   * `views`: each view's questions and the tour's view (web/shell/view-factories.ts).
   * `tour`: the copy inside the guided tour, with the current step's questions only; the panel under
   * the views then leaves those out (one element per question id on the page).
   */
  constructor(
    private views: QuizViews,
    private tour = false,
  ) {
    // Under the guided step's own heading, one level down.
    this.title = h(tour ? 'h4' : 'h3')
    this.el = tour
      ? h('div', { class: 'quiz-panel quiz-tour' }, this.title, this.progress, this.list)
      : h('section', { class: 'panel quiz-panel', 'data-panel': 'quiz' }, this.title, this.progress, this.list)
    panels.add(new WeakRef(this))
  }

  private questions(ctx: Ctx): Question[] {
    const { t, state, trace } = ctx
    const all = this.views.quiz(state.view)(state, trace, t)
    const touring = state.view === this.views.tour && state.guided > 0
    if (this.tour) return touring ? all.filter((q) => q.guided === state.guided) : []
    return touring ? all.filter((q) => q.guided !== state.guided) : all
  }

  render(ctx: Ctx): void {
    const { t, state } = ctx
    setText(this.title, t('quizTitle'))
    this.results = load()
    const qs = this.questions(ctx)
    const key = JSON.stringify([state.lang, qs.map((q) => [q.id, q.prompt])])
    if (key !== this.key) {
      this.key = key
      this.list.replaceChildren(...qs.map((q) => this.question(q, ctx)))
    }
    this.el.hidden = qs.length === 0
    this.last = ctx
    this.showProgress(ctx)
  }

  /** The count of the whole view (the tour's questions and the others alike), from the one store. */
  private showProgress(ctx: Ctx): void {
    this.results = load()
    const { t, state, trace } = ctx
    const all = this.views.quiz(state.view)(state, trace, t)
    const right = all.filter((q) => this.results[q.id] === 'right').length
    setText(this.progress, t('quizProgress', { right, total: all.length }))
  }

  private question(q: Question, ctx: Ctx): HTMLElement {
    const t = ctx.t
    const expl = h('p', { class: 'quiz-expl', hidden: true })
    const box = h('div', { class: 'quiz', 'data-quiz': q.id, role: 'group' })
    const prompt = h('p', { class: 'quiz-q', id: `quiz-${Math.random().toString(36).slice(2)}`, text: q.prompt })
    box.setAttribute('aria-labelledby', prompt.id)
    const show = (chosen: number | null, result: 'right' | 'wrong') => {
      box.dataset.quizResult = result
      expl.hidden = false
      expl.textContent = `${result === 'right' ? `✓ ${t('quizRight')}` : `✗ ${t('quizWrong')} ${t('quizRightIs', { a: q.options[q.right] })}`} ${q.explain}`
      buttons.forEach((b, i) => b.setAttribute('aria-pressed', String(i === chosen)))
    }
    const buttons = q.options.map((o, i) => {
      const b = h('button', { type: 'button', 'aria-pressed': 'false', text: o })
      b.addEventListener('click', () => {
        const result = i === q.right ? 'right' : 'wrong'
        save({ ...load(), [q.id]: result })
        show(i, result)
        for (const ref of panels) {
          const p = ref.deref()
          if (!p) panels.delete(ref)
          else if (p.last) p.showProgress(p.last)
        }
      })
      return b
    })
    box.append(prompt, h('div', { class: 'quiz-opts' }, ...buttons), expl)
    const before = this.results[q.id]
    if (before) show(null, before)
    return box
  }
}
