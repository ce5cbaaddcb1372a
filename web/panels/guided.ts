// Guided mode: Prev / Next through the course's five steps, each with a short explanation, the
// step's panel brought into view and the others dimmed.

import type { Ctx, Panel } from '../context'
import { h, prefersReducedMotion } from '../dom'
import type { MsgKey } from '../i18n'
import type { PlaygroundState } from '../state'
import { scaleIsOn } from '../model/options'
import { QuizPanel } from '../quiz/quiz'

type Try = (s: PlaygroundState) => Partial<PlaygroundState>

export const GUIDED_STEPS: Array<{ title: MsgKey; body: MsgKey; steps: string[]; tryKey?: MsgKey; tryIt?: Try }> = [
  { title: 'guided1Title', body: 'guided1Body', steps: ['Q', 'K', 'scores'] },
  {
    title: 'guided2Title',
    body: 'guided2Body',
    steps: ['scaledScores'],
    tryKey: 'tryScale',
    tryIt: (s) => ({ scale: scaleIsOn(s) ? 'off' : 'on' }),
  },
  {
    title: 'guided3Title',
    body: 'guided3Body',
    steps: ['maskedScores'],
    tryKey: 'tryCausal',
    tryIt: (s) => ({ mask: s.mask === 'causal' ? 'none' : 'causal' }),
  },
  {
    title: 'guided4Title',
    body: 'guided4Body',
    steps: ['weights'],
    tryKey: 'tryTemperature',
    tryIt: (s) => ({ temperature: s.temperature === 1 ? 3 : 1 }),
  },
  { title: 'guided5Title', body: 'guided5Body', steps: ['V', 'output'] },
]

export class GuidedPanel implements Panel {
  readonly el: HTMLElement
  private counter = h('span', { class: 'guided-count' })
  private title = h('h3')
  private body = h('p')
  private prev = h('button', { type: 'button', name: 'prev' })
  private next = h('button', { type: 'button', name: 'next', class: 'btn-primary' })
  private exit = h('button', { type: 'button', name: 'exit', class: 'btn-small' })
  private tryBtn = h('button', { type: 'button', name: 'try' })
  private lastStep = 0
  private rendered = false
  /** The step's questions, right after its explanation. */
  private quiz = new QuizPanel(true)

  constructor(
    ctx: Ctx,
    private host: () => HTMLElement,
  ) {
    this.el = h(
      'section',
      { class: 'guided', 'data-panel': 'guided', 'aria-live': 'polite' },
      h('div', { class: 'guided-top' }, this.counter, this.exit),
      this.title,
      this.body,
      h('div', { class: 'guided-nav' }, this.prev, this.next, this.tryBtn),
      this.quiz.el,
    )
    this.prev.addEventListener('click', () => ctx.setState({ guided: Math.max(1, ctx.state.guided - 1) }))
    this.next.addEventListener('click', () =>
      ctx.setState({ guided: Math.min(GUIDED_STEPS.length, ctx.state.guided + 1) }),
    )
    this.exit.addEventListener('click', () => ctx.setState({ guided: 0 }))
    this.tryBtn.addEventListener('click', () => {
      const step = GUIDED_STEPS[ctx.state.guided - 1]
      if (step?.tryIt) ctx.setState(step.tryIt(ctx.state))
    })
  }

  render(ctx: Ctx): void {
    const { t, state } = ctx
    const n = state.guided
    const first = !this.rendered
    this.rendered = true
    this.el.hidden = n === 0 || state.view !== 'pipeline'
    const root = this.host()
    root.classList.toggle('touring', n > 0)
    for (const p of root.querySelectorAll<HTMLElement>('[data-step]')) p.classList.remove('tour-focus')
    if (n === 0) {
      this.lastStep = 0
      return
    }
    const step = GUIDED_STEPS[n - 1]
    this.counter.textContent = t('stepCounter')
      .replace('{n}', String(n))
      .replace('{total}', String(GUIDED_STEPS.length))
    this.tryBtn.hidden = !step.tryIt
    if (step.tryKey) this.tryBtn.textContent = t(step.tryKey)
    this.title.textContent = t(step.title)
    this.body.textContent = t(step.body)
    this.prev.textContent = `← ${t('prev')}`
    this.next.textContent = `${t('next')} →`
    this.exit.textContent = t('guidedExit')
    this.prev.disabled = n === 1
    this.next.disabled = n === GUIDED_STEPS.length
    for (const name of step.steps) {
      const p = root.querySelector<HTMLElement>(`[data-step="${name}"]`)
      if (p) p.classList.add('tour-focus')
    }
    const target = root.querySelector<HTMLElement>(`[data-step="${step.steps[step.steps.length - 1]}"]`)
    // Only when the learner moves through the tour: a widget that starts guided must not scroll the
    // course page it sits in on load. 'nearest' scrolls as little as possible (not at all when the
    // panel is already in view).
    if (!first && n !== this.lastStep && target && typeof target.scrollIntoView === 'function') {
      target.scrollIntoView({ behavior: prefersReducedMotion() ? 'auto' : 'smooth', block: 'nearest' })
    }
    this.lastStep = n
    this.quiz.render(ctx)
  }
}
