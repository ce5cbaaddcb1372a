// Guided mode: Prev / Next through the course's five steps, each with a short explanation, the
// step's panel brought into view and the others dimmed. The card never covers the panel it explains: on a
// wide page it sticks to the top and the panel scrolls in just below it (offset = the card's height); on a
// narrow one (a phone, or a widget in a narrow column) it is docked in the flow right above the panel, its
// questions right below the panel, so that nothing in it has to scroll inside it.

import type { Ctx, Panel } from '../context'
import { h, prefersReducedMotion } from '../dom'
import type { MsgKey } from '../i18n'
import type { PlaygroundState } from '../params'
import { scaleIsOn } from '../compute/options'
import { QuizPanel } from '../quiz/quiz'
import type { QuizViews } from '../quiz/questions'

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
  // The first panel is the one the step points at (scrolled to, the card docked above it).
  { title: 'guided5Title', body: 'guided5Body', steps: ['output', 'V'] },
]

/** Scrolls the panel's top to its scroll margin (the card's height) below the viewport's top. */
function scrollToStep(target: HTMLElement, instant: boolean): void {
  if (typeof target.scrollIntoView !== 'function') return
  target.scrollIntoView({ behavior: instant || prefersReducedMotion() ? 'auto' : 'smooth', block: 'start' })
}

/** Narrower than this (CSS px of the playground's own width), the card is docked in the flow above its panel. */
export const DOCK_WIDTH = 600
/** The gap between the card and the panel it explains. */
const GAP = 12
/** The sticky card's `top` (styles.ts .guided). */
const STICKY_TOP = 8

/** The fields the tour's tries change: undone when the learner moves on, restored when the tour ends. */
const TRY_FIELDS = ['scale', 'mask', 'temperature'] as const
type TryField = (typeof TRY_FIELDS)[number]
type TryValues = Partial<Pick<PlaygroundState, TryField>>

function pick(s: PlaygroundState, keys: readonly string[]): TryValues {
  const out: Record<string, unknown> = {}
  for (const k of keys) if ((TRY_FIELDS as readonly string[]).includes(k)) out[k] = s[k as TryField]
  return out as TryValues
}

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
  /** Where the card and its questions live when not docked (set when first docked). */
  private home: Comment | null = null
  /** The tried fields as they were before the tour (restored on exit). */
  private before: TryValues | null = null
  /** The fields the current step's try changed, as they were before it (undone on the next move). */
  private tried: TryValues | null = null
  /** The step's questions, right after its explanation. */
  private quiz: QuizPanel

  constructor(
    ctx: Ctx,
    private host: () => HTMLElement,
    private views: QuizViews,
    /** The page (not a widget in a course page): a `guided=` link scrolls to its step on load. */
    private scrollOnLoad = false,
  ) {
    this.quiz = new QuizPanel(views, true)
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
      if (!step?.tryIt) return
      const patch = step.tryIt(ctx.state)
      // The first try of a step remembers the values before it; a second (toggling back) keeps those.
      this.tried = { ...pick(ctx.state, Object.keys(patch)), ...this.tried }
      ctx.setState(patch)
    })
  }

  /**
   * Called by the playground for every change before it is applied: moving to another step undoes the
   * step's try, and leaving the tour brings back the tried fields as they were before it (unless the change
   * sets them itself).
   */
  settle(prev: PlaygroundState, next: PlaygroundState, patch: Partial<PlaygroundState>): void {
    if (prev.guided === next.guided) return
    if (prev.guided === 0) {
      this.before = pick(prev, TRY_FIELDS)
      this.tried = null
      return
    }
    const restore = (vals: TryValues) => {
      for (const k of Object.keys(vals) as TryField[]) if (!(k in patch)) Object.assign(next, { [k]: vals[k] })
    }
    if (this.tried) restore(this.tried)
    this.tried = null
    if (next.guided === 0 && this.before) {
      restore(this.before)
      this.before = null
    }
  }

  render(ctx: Ctx): void {
    const { t, state } = ctx
    const n = state.guided
    const first = !this.rendered
    this.rendered = true
    this.el.hidden = n === 0 || state.view !== this.views.tour
    const root = this.host()
    root.classList.toggle('touring', n > 0)
    for (const p of root.querySelectorAll<HTMLElement>('[data-step]')) p.classList.remove('tour-focus')
    if (n === 0) {
      this.lastStep = 0
      this.dock(null)
      return
    }
    // A tour opened by a link or an attribute: what it started from is the state of its first render.
    this.before ??= pick(state, TRY_FIELDS)
    const step = GUIDED_STEPS[n - 1]
    this.counter.textContent = t('stepCounter', { n, total: GUIDED_STEPS.length })
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
    const target = root.querySelector<HTMLElement>(`[data-step="${step.steps[0]}"]`)
    this.quiz.render(ctx)
    const shown = !this.el.hidden && !!target && target.offsetParent !== null
    this.dock(shown && root.getBoundingClientRect().width <= DOCK_WIDTH ? target : null)
    // Measured once every panel of this render is drawn (the panels above it change height as they draw).
    const scroll = first ? this.scrollOnLoad : n !== this.lastStep
    if (shown && scroll)
      requestAnimationFrame(() => {
        // The panel scrolls to just below the card: sticky at the top, or docked right above it (the CSS
        // scroll-margin of .tour-focus), at most so far that its title and first rows stay on screen.
        // Only when the learner moves through the tour (a widget that starts guided must not scroll the
        // course page it sits in on load); the page's own `guided=` link does scroll to its step.
        const card = this.el.getBoundingClientRect()
        const below = this.el.classList.contains('docked')
          ? target.getBoundingClientRect().top - card.top + GAP
          : card.height + STICKY_TOP + GAP
        root.style.setProperty('--ap-tour-offset', `${Math.round(Math.min(below, innerHeight - 160))}px`)
        scrollToStep(target, first)
      })
    this.lastStep = n
  }

  /** Docks the card right above `target` and its questions right below it, or (null) puts both back home. */
  private dock(target: HTMLElement | null): void {
    const docked = this.el.classList.contains('docked')
    if (!target) {
      if (!docked || !this.home) return
      this.el.classList.remove('docked')
      this.quiz.el.classList.remove('docked')
      this.home.after(this.el)
      this.el.append(this.quiz.el)
      return
    }
    if (!this.home) {
      this.home = document.createComment('guided')
      this.el.before(this.home)
    }
    this.el.classList.add('docked')
    this.quiz.el.classList.add('docked')
    if (target.previousElementSibling !== this.el) target.before(this.el)
    if (target.nextElementSibling !== this.quiz.el) target.after(this.quiz.el)
  }
}
