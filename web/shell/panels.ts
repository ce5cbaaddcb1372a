// Every panel of the playground, built once and laid out in page order: the controls beside the main
// column (pipeline, why, origin, train). Which of them a render draws is decided here too: the long
// view stands in for the n×n panels, and a `steps` list shows only the panels it names.

import type { Engine } from 'attention-playground'
import type { Ctx, Panel } from '../context'
import { h, setText } from '../dom'
import type { Translate } from '../i18n'
import { PER_HEAD_STEPS } from '../model/heads'
import type { LongData } from '../model/long-rows'
import type { View } from '../state'
import { ArithPanel } from '../panels/arith'
import { ControlsPanel } from '../panels/controls'
import { DecoderPanel } from '../panels/decoder'
import { GuidedPanel } from '../panels/guided'
import { LinesPanel } from '../panels/lines'
import { LongPanel } from '../panels/long'
import { OriginPanel } from '../panels/origin'
import { ParamsPanel } from '../panels/params'
import { createStepPanels, type StepPanel } from '../panels/steps'
import { TokensPanel } from '../panels/tokens'
import { WhyPanel } from '../panels/why'
import { ModelView } from '../views/model'
import type { TrainBox } from './train-box'
import { engineError } from '../engine-errors'
import { QuizPanel } from '../quiz/quiz'
import { LessonExample } from '../views/lesson-example'
import { lessonViews } from '../views/views'
import type { Lang } from '../state'

export interface PanelSet {
  controls: ControlsPanel
  /** view=model: a model file's attention. */
  model: ModelView
  /** The step panels (the export buttons go in their headers). */
  steps: StepPanel[]
  all: Panel[]
  pipeline: HTMLElement
  main: HTMLElement
  layout: HTMLElement
  noticeBox: HTMLElement
  banner: HTMLElement
  /** Draws the panels of the current view; `long` swaps the n×n panels for the long view. */
  render(ctx: Ctx, long: LongData | null): void
  /** Shows the engine's message above the panels (the last good result stays). */
  renderError(t: Translate, error: string | null, kept: boolean, lang: Lang): void
}

/** `compact`: inside a course page, whose own landmarks these would nest in (no main, no complementary). */
export function createPanels(
  ctx: Ctx,
  engine: Engine,
  app: () => HTMLElement,
  trainBox: TrainBox,
  trainInline: boolean,
  compact = false,
): PanelSet {
  const controls = new ControlsPanel(ctx)
  const guided = new GuidedPanel(ctx, app)
  const tokens = new TokensPanel()
  const steps = createStepPanels(ctx)
  const params = new ParamsPanel()
  const lines = new LinesPanel()
  const arith = new ArithPanel()
  const decoder = new DecoderPanel(engine)
  const why = new WhyPanel()
  const origin = new OriginPanel(ctx)
  const longPanel = new LongPanel(ctx)
  const model = new ModelView(ctx, engine)
  const extraViews = lessonViews(engine, ctx)
  const quiz = new QuizPanel()
  const lessonEx = new LessonExample(engine)
  const maskedRowsNote = h('p', { class: 'help masked-rows', hidden: true })
  const longNote = h('p', { class: 'banner long-note', hidden: true })
  const linesGrid = h('div', { class: 'grid grid-2' }, lines.el, arith.el)
  const banner = h('div', { class: 'banner error', role: 'alert', hidden: true })
  const noticeBox = h('div', { class: 'banner notice', role: 'status', hidden: true })
  const scoreGroups = steps.groups.slice(3, 5)
  const pipeline = h(
    'div',
    { class: 'pipeline' },
    guided.el,
    tokens.el,
    lessonEx.el,
    ...steps.groups.slice(0, 3),
    params.el,
    longNote,
    longPanel.el,
    ...steps.groups.slice(3),
    maskedRowsNote,
    linesGrid,
    decoder.el,
  )
  if (trainInline) pipeline.append(trainBox.el)
  const main = h(
    compact ? 'div' : 'main',
    { class: 'ap-main' },
    banner,
    noticeBox,
    pipeline,
    why.el,
    origin.el,
    model.el,
    ...extraViews.map((x) => x.panel.el),
    trainInline ? null : trainBox.el,
    quiz.el,
  )
  const layout = h('div', { class: 'ap-layout' }, controls.el, main)
  if (compact) controls.el.setAttribute('role', 'none')
  const all: Panel[] = [
    controls,
    guided,
    tokens,
    ...steps.panels.values(),
    params,
    lines,
    arith,
    decoder,
    why,
    origin,
    longPanel,
    model,
    ...extraViews.map((x) => x.panel),
    quiz,
    lessonEx,
  ]
  // Panels that need the n×n matrices: not drawn in the long view.
  const notLong = new Set<Panel>([lines, arith, ...PER_HEAD_STEPS.map((n) => steps.panels.get(n)!)])
  const onlyIn = new Map<Panel, View>([
    [why, 'why'],
    [origin, 'origin'],
    [model, 'model'],
    ...extraViews.map((x) => [x.panel, x.view] as [Panel, View]),
  ])

  function renderMaskedRows(c: Ctx): void {
    const rows = c.trace?.maskedRows ?? []
    maskedRowsNote.hidden = rows.length === 0
    if (c.trace && rows.length)
      maskedRowsNote.textContent = `${c.t('maskedRowsNote')} ${rows.map((i) => c.trace!.tokens[i] ?? i).join(', ')}`
  }

  return {
    controls,
    model,
    steps: [...steps.panels.values()],
    all,
    pipeline,
    main,
    layout,
    noticeBox,
    banner,
    render(c, long) {
      const view = c.state.view
      pipeline.hidden = view !== 'pipeline'
      why.el.hidden = view !== 'why'
      origin.el.hidden = view !== 'origin'
      model.el.hidden = view !== 'model'
      for (const x of extraViews) x.panel.el.hidden = view !== x.view
      renderMaskedRows(c)
      for (const g of scoreGroups) g.hidden = !!long
      // The panels too (the step filter hides the unlisted ones again; the widget collapses rows by them).
      for (const p of notLong) p.el.hidden = !!long
      linesGrid.hidden = !!long
      longNote.hidden = !long
      if (long) setText(longNote, c.t('longModeNote'))
      longPanel.setData(c, view === 'pipeline' ? long : null)
      for (const p of all) {
        const only = onlyIn.get(p)
        if ((only && view !== only) || (long && notLong.has(p))) continue
        p.render(c)
      }
    },
    renderError(t, error, kept, lang) {
      banner.hidden = !error
      if (banner.childNodes.length) banner.replaceChildren()
      if (!error) return
      const msg = engineError(lang, error)
      banner.append(
        h('strong', { text: t('errorTitle') }),
        ' ',
        h('span', { class: 'error-msg', text: msg.text }),
        ' ',
        h('span', { text: kept ? t('errorKept') : '' }),
      )
      if (msg.detail)
        banner.append(
          h('p', { class: 'error-detail' }, `${t('errorDetail')} `, h('code', { lang: 'en', text: msg.detail })),
        )
    },
  }
}

/** With a `steps` list, hides every panel it does not name (the long view stands in for scores and weights). */
export function applyStepFilter(app: HTMLElement, steps: readonly string[] | undefined): void {
  if (!steps) return
  const show = new Set(steps)
  if (show.has('weights') || show.has('scores')) show.add('long')
  for (const p of app.querySelectorAll<HTMLElement>('[data-step], [data-panel]')) {
    const name = p.dataset.step ?? p.dataset.panel ?? ''
    if (name === 'controls' || name === 'guided') continue
    if (!show.has(name)) p.hidden = true
  }
}
