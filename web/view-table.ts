// The views of the playground, one entry each, in tab order: what every layer may know of a view (its name,
// tab, the parameters it reads, where it sits on the path through the views). A leaf: it imports no view, panel
// or computation, so the state (params.ts, state.ts) and the shell read it alike. What a view runs (its panel
// and its questions) is built in web/shell/view-factories.ts, which only the shell imports. Adding a view is
// one entry here, one in view-factories.ts, and its own files (docs/design.md, "Adding a view").

import type { MsgKey } from './i18n'

/** The tab bar's groups, in order; each has a label (web/i18n/shell.ts `group…`). */
export const VIEW_GROUPS = ['lessons', 'beyond', 'tools'] as const
export type ViewGroup = (typeof VIEW_GROUPS)[number]

export interface ViewEntry<Name extends string = string> {
  /** The URL's and the widget's `view` value, the tab's `data-view` (`View` takes the names from here). */
  readonly name: Name
  /** The tab's label (web/i18n/shell.ts). */
  readonly tab: MsgKey
  /**
   * Who draws the view: `own`, its own panel (built once by its factory in web/shell/view-factories.ts, rendered
   * only while the view is open; its root element carries `data-step` or `data-panel` = the name, so the widget's
   * `steps` may list it); or one of the shell's: `pipeline` (the step panels' column), `train` (the Train panel,
   * loaded when first shown).
   */
  readonly panel: 'own' | 'pipeline' | 'train'
  /**
   * The parameters (PARAMS names, web/params.ts) the view reads besides the ones every view reads (`lang`, `view`,
   * `steps`): a link to the view carries them.
   */
  readonly reads: readonly string[]
  /** The control column and the PyTorch export act on this view (they are hidden on the others); the pipeline's. */
  readonly controls?: true
  /** The guided tour runs on this view (one view has it: the pipeline). */
  readonly tour?: true
  /**
   * The tab bar's group (the path through the views): the lessons' views in the lessons' order, the views
   * beyond the lessons, the tools. Every view ends in a "next" link to the following entry of this table.
   */
  readonly group: ViewGroup
  /**
   * The one-line "what you need first" above the view, with links to those views: every view beyond the lessons,
   * and a tool that builds on others.
   */
  readonly needs?: { readonly text: MsgKey; readonly views: readonly Name[] }
}

function table<const T extends readonly ViewEntry[]>(entries: T): T {
  return entries
}

/** The parameters that build the pipeline's model from its sentences: the views that run it read them all. */
const SENTENCES = ['source', 'target', 'tokenizer', 'dModel', 'dq', 'dv', 'seed'] as const

/** The lesson's controls: the pipeline reads every parameter but the other views' own. */
const PIPELINE_READS = [
  ...['mode', 'text', ...SENTENCES, 'score', 'scale', 'mask', 'dk', 'heads', 'head', 'temperature'],
  ...['positions', 'ropeBase', 'guided', 'weights', 'pad', 'cells', 'edits'],
]

const TABLE = table([
  { name: 'why', tab: 'tabWhy', panel: 'own', reads: [], group: 'lessons' },
  { name: 'origin', tab: 'tabOrigin', panel: 'own', reads: [], group: 'lessons' },
  {
    name: 'pipeline',
    tab: 'tabPipeline',
    panel: 'pipeline',
    reads: PIPELINE_READS,
    group: 'lessons',
    controls: true,
    tour: true,
  },
  { name: 'scaling', tab: 'tabScaling', panel: 'own', reads: ['seed'], group: 'lessons' },
  { name: 'decode', tab: 'tabDecode', panel: 'own', reads: [...SENTENCES, 'step'], group: 'lessons' },
  {
    name: 'positions',
    tab: 'tabPositions',
    panel: 'own',
    reads: ['text', 'seed'],
    group: 'beyond',
    needs: { text: 'needsPositions', views: ['pipeline'] },
  },
  {
    name: 'backward',
    tab: 'tabBackward',
    panel: 'own',
    reads: [],
    group: 'beyond',
    needs: { text: 'needsBackward', views: ['pipeline', 'train'] },
  },
  {
    name: 'flash',
    tab: 'tabFlash',
    panel: 'own',
    reads: ['text', ...SENTENCES],
    group: 'beyond',
    needs: { text: 'needsFlash', views: ['pipeline'] },
  },
  {
    name: 'heads',
    tab: 'tabHeads',
    panel: 'own',
    reads: ['text', ...SENTENCES],
    group: 'beyond',
    needs: { text: 'needsHeads', views: ['pipeline'] },
  },
  {
    name: 'sinks',
    tab: 'tabSinks',
    panel: 'own',
    reads: ['seed'],
    group: 'beyond',
    needs: { text: 'needsSinks', views: ['pipeline', 'heads'] },
  },
  // The tools: train, your model, the language model's view (it builds on three views: it says so).
  { name: 'train', tab: 'tabTrain', panel: 'train', reads: [], group: 'tools' },
  { name: 'model', tab: 'tabModel', panel: 'own', reads: ['src'], group: 'tools' },
  {
    name: 'generate',
    tab: 'tabGenerate',
    panel: 'own',
    reads: ['src'],
    group: 'tools',
    needs: { text: 'needsGenerate', views: ['pipeline', 'decode', 'positions'] },
  },
])

/** A view's name (the state's `view`; params.ts re-exports it). */
export type View = (typeof TABLE)[number]['name']

/** The views that draw their own panel: web/shell/view-factories.ts has a factory for each, and only for them. */
export type OwnPanelView = Extract<(typeof TABLE)[number], { panel: 'own' }>['name']

/** The views, one entry each, in tab order. */
export const VIEW_TABLE: ReadonlyArray<ViewEntry<View>> = TABLE

/** The views' names in tab order (state.ts re-exports it as VIEWS). */
export const VIEW_NAMES: readonly View[] = VIEW_TABLE.map((v) => v.name)

const BY_NAME = new Map<string, ViewEntry<View>>(VIEW_TABLE.map((v) => [v.name, v]))

export function viewEntry(view: View): ViewEntry<View> {
  return BY_NAME.get(view)!
}

/** The views whose panel bears the view's name (`data-step` or `data-panel`), which the widget's `steps` may list. */
export const VIEW_PANEL_NAMES: readonly View[] = VIEW_TABLE.filter((v) => v.panel !== 'pipeline').map((v) => v.name)

/** The views the control column (and the PyTorch export of its configuration) acts on; the others hide it. */
export const VIEWS_USING_CONTROLS: readonly View[] = VIEW_TABLE.filter((v) => v.controls).map((v) => v.name)

/** The view the guided tour runs on. */
export const TOUR_VIEW: View = VIEW_TABLE.find((v) => v.tour)!.name
