// Every panel of the playground, built once and laid out in page order: the controls beside the main
// column (the pipeline, then each view of the views table, web/view-table.ts, in tab order). Which of them a render draws
// is decided here too: the long view stands in for the n×n panels, and a `steps` list shows only the
// panels it names.

import type { Engine } from 'attention-playground'
import type { Ctx, Panel } from '../context'
import { h, setText } from '../dom'
import type { Translate } from '../i18n'
import { PER_HEAD_STEPS } from '../compute/heads'
import type { LongData } from '../compute/long-rows'
import type { View } from '../params'
import { ArithPanel } from '../panels/arith'
import { ControlsPanel } from '../panels/controls'
import { DecoderPanel } from '../panels/decoder'
import { GuidedPanel } from '../panels/guided'
import { LinesPanel } from '../panels/lines'
import { LongPanel } from '../panels/long'
import { ParamsPanel } from '../panels/params'
import { createStepPanels, type StepPanel, type StepPanels } from '../panels/steps'
import { TokensPanel } from '../panels/tokens'
import { WeightsNote } from '../panels/weights-note'
import type { TrainBox } from './train-box'
import { engineError } from '../engine-errors'
import { QuizPanel } from '../quiz/quiz'
import { LessonExample } from '../panels/lesson-example'
import { VIEW_TABLE } from '../view-table'
import { createViewPanels, QUIZ_VIEWS, type ModelPanel, type ViewPanels } from './view-factories'
import type { Lang } from '../params'

export interface PanelSet {
  controls: ControlsPanel
  /** The guided tour (the playground lets it settle every change: its tries are undone on moving on). */
  guided: GuidedPanel
  /** view=model: a model file's attention. */
  model: ModelPanel
  /** The step panels (the export buttons go in their headers). */
  steps: StepPanel[]
  all: Panel[]
  pipeline: HTMLElement
  main: HTMLElement
  layout: HTMLElement
  noticeBox: HTMLElement
  banner: HTMLElement
  /** The panel of each view that draws its own (web/view-table.ts), in tab order. */
  views: Array<{ view: View; panel: Panel }>
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
  const panels = buildPanels(ctx, engine, app, compact)
  const els = buildLayout(panels, trainBox, trainInline, compact)
  const { controls, steps } = panels
  const { pipeline, main, layout, noticeBox, banner } = els
  const plan = renderPlan(panels, els.pipeline)
  return {
    controls,
    guided: panels.guided,
    model: panels.model,
    steps: [...steps.panels.values()],
    all: plan.all,
    pipeline,
    main,
    layout,
    noticeBox,
    banner,
    views: panels.views,
    render: (c, long) => renderPanels(c, long, panels, els, plan),
    renderError: (t, error, kept, lang) => renderError(banner, t, error, kept, lang),
  }
}

/** Every panel instance of the playground. */
interface Panels {
  controls: ControlsPanel
  guided: GuidedPanel
  tokens: TokensPanel
  steps: StepPanels
  params: ParamsPanel
  lines: LinesPanel
  arith: ArithPanel
  decoder: DecoderPanel
  longPanel: LongPanel
  /** The panel of each view that draws its own (web/view-table.ts), in tab order. */
  views: ViewPanels['views']
  model: ModelPanel
  quiz: QuizPanel
  lessonEx: LessonExample
  weightsNote: WeightsNote
}

/** The page's elements around the panels: notes, banners and the containers they are laid out in. */
interface Layout {
  /** W_q, W_k, W_v in a fold: closed on narrow screens, where the three grids are two screens tall. */
  wFold: HTMLDetailsElement
  wFoldTitle: HTMLElement
  maskedRowsNote: HTMLElement
  longNote: HTMLElement
  linesGrid: HTMLElement
  banner: HTMLElement
  noticeBox: HTMLElement
  scoreGroups: HTMLElement[]
  pipeline: HTMLElement
  main: HTMLElement
  layout: HTMLElement
}

/** Which panels a render draws, and which the long view hides. */
interface RenderPlan {
  /** Every panel, in render order. */
  all: Panel[]
  /** Panels that need the n×n matrices: not drawn in the long view. */
  notLong: Set<Panel>
  /** Panels drawn only in one view. */
  onlyIn: Map<Panel, View>
  /** The pipeline's panels: not drawn while another view is open. */
  inPipeline: Set<Panel>
}

function buildPanels(ctx: Ctx, engine: Engine, app: () => HTMLElement, compact: boolean): Panels {
  return {
    controls: new ControlsPanel(ctx, QUIZ_VIEWS.tour),
    guided: new GuidedPanel(ctx, app, QUIZ_VIEWS, !compact),
    tokens: new TokensPanel(),
    steps: createStepPanels(ctx),
    params: new ParamsPanel(),
    lines: new LinesPanel(),
    arith: new ArithPanel(),
    decoder: new DecoderPanel(engine),
    longPanel: new LongPanel(ctx),
    // In page order: the views' panels after the pipeline's.
    ...createViewPanels(engine, ctx),
    quiz: new QuizPanel(QUIZ_VIEWS),
    lessonEx: new LessonExample(engine),
    weightsNote: new WeightsNote(ctx),
  }
}

/** Lays the panels out in page order: the controls beside the main column. */
function buildLayout(p: Panels, trainBox: TrainBox, trainInline: boolean, compact: boolean): Layout {
  const maskedRowsNote = h('p', { class: 'help masked-rows', hidden: true })
  const longNote = h('p', { class: 'banner long-note', hidden: true })
  const linesGrid = h('div', { class: 'grid grid-2' }, p.lines.el, p.arith.el)
  const banner = h('div', { class: 'banner error', role: 'alert', hidden: true })
  const noticeBox = h('div', { class: 'banner notice', role: 'status', hidden: true })
  const g = p.steps.groups
  const scoreGroups = [g.scores, g.bias, g.masked]
  const wFoldTitle = h('span')
  const narrow = typeof matchMedia === 'function' && matchMedia('(max-width: 700px)').matches
  const wFold = h('details', { class: 'w-fold', open: !narrow }, h('summary', {}, wFoldTitle), g.weights)
  const pipeline = h(
    'div',
    { class: 'pipeline' },
    p.weightsNote.el,
    p.guided.el,
    p.tokens.el,
    p.lessonEx.el,
    g.embeddings,
    g.positions,
    wFold,
    g.projections,
    g.rotated,
    p.params.el,
    longNote,
    p.longPanel.el,
    g.scores,
    g.bias,
    g.masked,
    g.output,
    maskedRowsNote,
    linesGrid,
    p.decoder.el,
  )
  if (trainInline) pipeline.append(trainBox.el)
  const main = h(
    compact ? 'div' : 'main',
    { class: 'ap-main' },
    banner,
    noticeBox,
    ...VIEW_TABLE.map((v) => {
      if (v.panel === 'pipeline') return pipeline
      if (v.panel === 'train') return trainInline ? null : trainBox.el
      return p.views.find((x) => x.view === v.name)!.panel.el
    }),
    p.quiz.el,
  )
  const layout = h('div', { class: 'ap-layout' }, p.controls.el, main)
  if (compact) p.controls.el.setAttribute('role', 'none')
  return {
    wFold,
    wFoldTitle,
    maskedRowsNote,
    longNote,
    linesGrid,
    banner,
    noticeBox,
    scoreGroups,
    pipeline,
    main,
    layout,
  }
}

function renderPlan(p: Panels, pipeline: HTMLElement): RenderPlan {
  const all: Panel[] = [
    p.controls,
    p.weightsNote,
    p.guided,
    p.tokens,
    ...p.steps.panels.values(),
    p.params,
    p.lines,
    p.arith,
    p.decoder,
    p.longPanel,
    p.lessonEx,
    ...p.views.map((x) => x.panel),
    p.quiz,
  ]
  const notLong = new Set<Panel>([
    p.lines,
    p.arith,
    ...[...PER_HEAD_STEPS, 'positionBias' as const].map((n) => p.steps.panels.get(n)!),
  ])
  const onlyIn = new Map<Panel, View>(p.views.map((x) => [x.panel, x.view]))
  const inPipeline = new Set(all.filter((panel) => pipeline.contains(panel.el)))
  return { all, notLong, onlyIn, inPipeline }
}

/**
 * Draws the panels of the current view; `long` swaps the n×n panels for the long view. The pipeline's panels wait
 * while another view is open (they are drawn from the state when the pipeline opens again): drawing them hidden cost
 * every render on the other views, and a first visit to one of them, its heatmaps' forced layout and all.
 */
function renderPanels(c: Ctx, long: LongData | null, p: Panels, els: Layout, plan: RenderPlan): void {
  const view = c.state.view
  showView(view, p, els)
  renderMaskedRows(els.maskedRowsNote, c)
  setText(els.wFoldTitle, c.t('wFold'))
  showLongMode(c, long, els, plan)
  p.longPanel.setData(c, view === 'pipeline' ? long : null)
  for (const panel of plan.all) {
    const only = plan.onlyIn.get(panel)
    if ((only && view !== only) || (long && plan.notLong.has(panel))) continue
    if (els.pipeline.hidden && plan.inPipeline.has(panel)) continue
    panel.render(c)
  }
}

/** Shows the pipeline or the one view panel the state names (the Train box is the component's). */
function showView(view: View, p: Panels, els: Layout): void {
  els.pipeline.hidden = VIEW_TABLE.find((v) => v.panel === 'pipeline')!.name !== view
  for (const x of p.views) x.panel.el.hidden = view !== x.view
}

/** In the long view: hides the n×n panels and their groups, and shows the long view's note. */
function showLongMode(c: Ctx, long: LongData | null, els: Layout, plan: RenderPlan): void {
  for (const g of els.scoreGroups) g.hidden = !!long
  // The panels too (the step filter hides the unlisted ones again; the widget collapses rows by them).
  for (const panel of plan.notLong) panel.el.hidden = !!long
  els.linesGrid.hidden = !!long
  els.longNote.hidden = !long
  if (long) setText(els.longNote, c.t('longModeNote'))
}

/** Names the query rows the mask leaves with no key at all. */
function renderMaskedRows(note: HTMLElement, c: Ctx): void {
  const rows = c.trace?.maskedRows ?? []
  note.hidden = rows.length === 0
  if (c.trace && rows.length)
    note.textContent = `${c.t('maskedRowsNote')} ${rows.map((i) => c.trace!.tokens[i] ?? i).join(', ')}`
}

/** Shows the engine's message in the banner (the last good result stays). */
function renderError(banner: HTMLElement, t: Translate, error: string | null, kept: boolean, lang: Lang): void {
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
}

/** With a `steps` list, hides every panel it does not name (the long view stands in for scores and weights). */
export function applyStepFilter(app: HTMLElement, steps: readonly string[] | undefined): void {
  if (!steps) return
  const show = new Set(steps)
  if (show.has('weights') || show.has('scores')) show.add('long')
  for (const p of app.querySelectorAll<HTMLElement>('[data-step], [data-panel]')) {
    const name = p.dataset.step ?? p.dataset.panel ?? ''
    if (name === 'controls' || name === 'guided' || name === 'weightsNote') continue
    if (!show.has(name)) p.hidden = true
  }
  // A row of panels whose panels are all hidden would still take its gap: hide the row (and the W fold).
  for (const g of app.querySelectorAll<HTMLElement>('.pipeline > .grid, .pipeline > .w-fold > .grid')) {
    const kids = Array.from(g.children) as HTMLElement[]
    g.hidden = kids.length > 0 && kids.every((k) => k.hidden)
    const fold = g.parentElement
    if (fold instanceof HTMLDetailsElement) {
      fold.hidden = g.hidden
      if (!g.hidden) fold.open = true
    }
  }
}
