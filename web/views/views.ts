// The views that teach the lessons beyond the pipeline, each a panel of its own file, shown by tab.

import type { Ctx, Panel } from '../context'
import type { Engine } from 'attention-playground'
import type { View } from '../state'
import { DecodeView } from './decode'
import { ScalingView } from './scaling'

export const VIEW_TABS = { decode: 'tabDecode', scaling: 'tabScaling' } as const

export function lessonViews(engine: Engine, ctx: Ctx): Array<{ view: View; panel: Panel }> {
  return [
    { view: 'decode', panel: new DecodeView(engine, ctx) },
    { view: 'scaling', panel: new ScalingView(engine) },
  ]
}
