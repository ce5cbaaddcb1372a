// What each view runs: its panel's factory and its questions, one entry per view of the views table
// (web/view-table.ts), and the views' styles. The one module that imports the views (web/views/); the shell
// alone imports it (shell/panels.ts builds the panels, the quiz and the tour read the questions). tsc holds the
// two tables together: a view of the table without its entry here, an entry for no view, or a factory for a
// view the shell draws itself (`panel` 'pipeline' or 'train' in the table) does not compile.

import type { Engine } from 'attention-playground'
import type { Ctx, Panel } from '../context'
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
import { TOUR_VIEW, VIEW_TABLE, type OwnPanelView, type View } from '../view-table'
import { BackwardView } from '../views/backward'
import { DecodeView } from '../views/decode'
import { FlashView } from '../views/flash'
import { GenerateView } from '../views/generate'
import { generateQuiz } from '../views/generate-quiz'
import { GENERATE_STYLES } from '../views/generate-styles'
import { HeadsView } from '../views/heads'
import { ModelView, MODEL_STYLES } from '../views/model'
import { modernQuiz } from '../views/modern-quiz'
import { PositionsView } from '../views/positions'
import { ScalingView } from '../views/scaling'
import { SinksView } from '../views/sinks'
import { VIEW_STYLES } from '../views/styles'

/** Builds a view's panel once, when the playground is mounted; it is rendered only while its view is open. */
export type PanelFactory = (engine: Engine, ctx: Ctx) => Panel

/** One view's code: its questions ("Check your understanding"), and its panel's factory when it draws its own. */
type ViewFactories<V extends View> = { readonly quiz: QuizFor } & (V extends OwnPanelView
  ? { readonly panel: PanelFactory }
  : { readonly panel?: never })

const FACTORIES = {
  why: { panel: () => new WhyPanel(), quiz: whyQuiz },
  origin: { panel: (_engine, ctx) => new OriginPanel(ctx), quiz: originQuiz },
  pipeline: { quiz: pipelineQuiz },
  scaling: { panel: (engine) => new ScalingView(engine), quiz: scalingQuiz },
  decode: { panel: (engine, ctx) => new DecodeView(engine, ctx), quiz: decodeQuiz },
  positions: { panel: (engine, ctx) => new PositionsView(engine, ctx), quiz: positionsQuiz },
  backward: { panel: (engine, ctx) => new BackwardView(engine, ctx), quiz: backwardQuiz },
  flash: { panel: (engine) => new FlashView(engine), quiz: modernQuiz('flash') },
  heads: { panel: (engine) => new HeadsView(engine), quiz: modernQuiz('heads') },
  sinks: { panel: (engine) => new SinksView(engine), quiz: modernQuiz('sinks') },
  train: { quiz: trainQuiz },
  model: { panel: (engine, ctx) => new ModelView(ctx, engine), quiz: noQuiz },
  generate: { panel: (engine, ctx) => new GenerateView(engine, ctx), quiz: generateQuiz },
} satisfies { readonly [V in View]: ViewFactories<V> }

/** The views' own styles, added to the playground's stylesheet. */
export const VIEWS_CSS = MODEL_STYLES + VIEW_STYLES + GENERATE_STYLES

/** What the quiz panels and the guided tour read of the views. */
export const QUIZ_VIEWS: QuizViews = { quiz: (view) => FACTORIES[view].quiz, tour: TOUR_VIEW }

/**
 * The model view's panel: the playground's handle reaches it (`model()`, `openModel`, `selectModelHead`) and
 * gives it the page's sample file.
 */
export type ModelPanel = ReturnType<(typeof FACTORIES)['model']['panel']>

export interface ViewPanels {
  /** The panel of each view that draws its own, in tab order. */
  views: Array<{ view: View; panel: Panel }>
  model: ModelPanel
}

/** Builds the panel of each view that draws its own (the pipeline and Train are the shell's). */
export function createViewPanels(engine: Engine, ctx: Ctx): ViewPanels {
  let model: ModelPanel | null = null
  const views: ViewPanels['views'] = []
  for (const { name } of VIEW_TABLE) {
    const f: { panel?: PanelFactory; quiz: QuizFor } = FACTORIES[name]
    // Built in tab order, the model view's kept with its own type.
    if (name === 'model') views.push({ view: name, panel: (model = FACTORIES.model.panel(engine, ctx)) })
    else if (f.panel) views.push({ view: name, panel: f.panel(engine, ctx) })
  }
  return { views, model: model! }
}
