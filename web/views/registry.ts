// The views of the playground, one entry each, in tab order. Everything that lists views reads this
// table: the tab bar (shell/tabs.ts), which panel a view shows (shell/panels.ts), the URL's and the
// widget's `view` (state.ts VIEWS), the control column and the PyTorch export (`controls`), the guided
// tour (`tour`), the quiz under the view (`quiz`), and a test checks the documented list of views against
// it. Adding a view is one entry here plus its file (docs/design.md, "Adding a view").

import type { Engine } from 'attention-playground'
import type { Ctx, Panel } from '../context'
import type { MsgKey } from '../i18n'
import type { View } from '../params'
import { OriginPanel } from '../panels/origin'
import { WhyPanel } from '../panels/why'
import {
  backwardQuiz,
  decodeQuiz,
  noQuiz,
  originQuiz,
  pipelineQuiz,
  positionsQuiz,
  scalingQuiz,
  trainQuiz,
  whyQuiz,
  type QuizFor,
  type QuizViews,
} from '../quiz/questions'
import { BackwardView } from './backward'
import { DecodeView } from './decode'
import { FlashView } from './flash'
import { HeadsView } from './heads'
import { modernQuiz } from './modern-quiz'
import { SinksView } from './sinks'
import { ModelView } from './model'
import { ScalingView } from './scaling'
import { PositionsView } from './positions'

/** Builds a view's panel once, when the playground is mounted; it is rendered only while its view is open. */
export type PanelFactory = (engine: Engine, ctx: Ctx) => Panel

export interface ViewEntry {
  /** The URL's and the widget's `view` value, the tab's `data-view` (a new name: `View` takes it from here). */
  readonly name: string
  /** The tab's label (web/i18n/shell.ts). */
  readonly tab: MsgKey
  /**
   * The view's panel. Two views are the shell's own: 'pipeline' (the step panels' column) and 'train'
   * (the Train panel, loaded when first shown).
   */
  readonly panel: PanelFactory | 'pipeline' | 'train'
  /** The control column and the PyTorch export act on this view (they are hidden on the others). */
  readonly controls: boolean
  /** The guided tour runs on this view (one view has it). */
  readonly tour: boolean
  /** The questions of "Check your understanding" under this view. */
  readonly quiz: QuizFor
  /**
   * The tab bar's group (the path through the views): the lessons' views in the lessons' order, the views
   * beyond the lessons, the tools. Every view ends in a "next" link to the following entry of this table.
   */
  readonly group: ViewGroup
  /** Beyond the lessons: the one-line "what you need first" above the view, with links to those views. */
  readonly needs?: { readonly text: MsgKey; readonly views: readonly string[] }
}

/** The tab bar's groups, in order; each has a label (web/i18n/shell.ts `group…`). */
export const VIEW_GROUPS = ['lessons', 'beyond', 'tools'] as const
export type ViewGroup = (typeof VIEW_GROUPS)[number]

function table<const T extends readonly ViewEntry[]>(entries: T): T {
  return entries
}

export const VIEW_REGISTRY = table([
  {
    name: 'why',
    tab: 'tabWhy',
    panel: () => new WhyPanel(),
    controls: false,
    tour: false,
    quiz: whyQuiz,
    group: 'lessons',
  },
  {
    name: 'origin',
    tab: 'tabOrigin',
    panel: (_engine, ctx) => new OriginPanel(ctx),
    controls: false,
    tour: false,
    quiz: originQuiz,
    group: 'lessons',
  },
  {
    name: 'pipeline',
    tab: 'tabPipeline',
    panel: 'pipeline',
    controls: true,
    tour: true,
    quiz: pipelineQuiz,
    group: 'lessons',
  },
  {
    name: 'scaling',
    tab: 'tabScaling',
    panel: (engine) => new ScalingView(engine),
    controls: false,
    tour: false,
    quiz: scalingQuiz,
    group: 'lessons',
  },
  {
    name: 'decode',
    tab: 'tabDecode',
    panel: (engine, ctx) => new DecodeView(engine, ctx),
    controls: false,
    tour: false,
    quiz: decodeQuiz,
    group: 'lessons',
  },
  {
    name: 'positions',
    tab: 'tabPositions',
    panel: (engine, ctx) => new PositionsView(engine, ctx),
    controls: false,
    tour: false,
    quiz: positionsQuiz,
    group: 'beyond',
    needs: { text: 'needsPositions', views: ['pipeline'] },
  },
  {
    name: 'backward',
    tab: 'tabBackward',
    panel: (engine, ctx) => new BackwardView(engine, ctx),
    controls: false,
    tour: false,
    quiz: backwardQuiz,
    group: 'beyond',
    needs: { text: 'needsBackward', views: ['pipeline', 'train'] },
  },
  {
    name: 'flash',
    tab: 'tabFlash',
    panel: (engine) => new FlashView(engine),
    controls: false,
    tour: false,
    quiz: modernQuiz('flash'),
    group: 'beyond',
    needs: { text: 'needsFlash', views: ['pipeline'] },
  },
  {
    name: 'heads',
    tab: 'tabHeads',
    panel: (engine) => new HeadsView(engine),
    controls: false,
    tour: false,
    quiz: modernQuiz('heads'),
    group: 'beyond',
    needs: { text: 'needsHeads', views: ['pipeline'] },
  },
  {
    name: 'sinks',
    tab: 'tabSinks',
    panel: (engine) => new SinksView(engine),
    controls: false,
    tour: false,
    quiz: modernQuiz('sinks'),
    group: 'beyond',
    needs: { text: 'needsSinks', views: ['pipeline', 'heads'] },
  },
  // The tools: train, your model; the language model's view lands here, one entry of group 'tools'.
  { name: 'train', tab: 'tabTrain', panel: 'train', controls: false, tour: false, quiz: trainQuiz, group: 'tools' },
  {
    name: 'model',
    tab: 'tabModel',
    panel: (engine, ctx) => new ModelView(ctx, engine),
    controls: false,
    tour: false,
    quiz: noQuiz,
    group: 'tools',
  },
])

type TableNames = Record<(typeof VIEW_REGISTRY)[number]['name'], true>

declare module '../params' {
  // The view names every layer reads (`View` in params.ts) are this table's names.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface ViewNames extends TableNames {}
}

/** The views' names in tab order (state.ts re-exports it as VIEWS). */
export const VIEW_NAMES: readonly View[] = VIEW_REGISTRY.map((v) => v.name)

const BY_NAME = new Map<string, ViewEntry>(VIEW_REGISTRY.map((v) => [v.name, v]))

export function viewEntry(view: View): ViewEntry {
  return BY_NAME.get(view)!
}

/** The views whose panel bears the view's name (`data-step` or `data-panel`), which the widget's `steps` may list. */
export const VIEW_PANEL_NAMES: readonly View[] = VIEW_REGISTRY.filter((v) => v.panel !== 'pipeline').map((v) => v.name)

/** The view the guided tour runs on. */
export const TOUR_VIEW: View = VIEW_REGISTRY.find((v) => v.tour)!.name

/** What the quiz panels and the guided tour read of this table. */
export const QUIZ_VIEWS: QuizViews = { quiz: (view) => viewEntry(view).quiz, tour: TOUR_VIEW }
