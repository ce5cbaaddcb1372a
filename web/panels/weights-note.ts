// Above the pipeline, always: whether W_q, W_k, W_v are random draws or the trained coreference model's, how
// the trained ones were trained, a link to the Train tab and a switch between the two.

import type { Ctx, Panel } from '../context'
import { h, setText } from '../dom'
import { oneBased } from '../format'
import { TRAINED, TRAINED_SENTENCE } from '../compute/trained'

export class WeightsNote implements Panel {
  private title = h('strong')
  private body = h('span')
  private trainLink = h('a', { href: '?view=train', class: 'weights-train' })
  private toggle = h('button', { type: 'button', name: 'weightsToggle' })
  readonly el = h(
    'p',
    { class: 'banner weights-note', 'data-panel': 'weightsNote', role: 'note' },
    this.title,
    ' ',
    this.body,
    ' ',
    this.trainLink,
    ' · ',
    this.toggle,
  )

  constructor(ctx: Ctx) {
    this.trainLink.addEventListener('click', (e) => {
      e.preventDefault()
      ctx.setState({ view: 'train' })
    })
    this.toggle.addEventListener('click', () => {
      const trained = ctx.state.weights === 'trained'
      // Trained weights need a sentence of the task's vocabulary: the lesson's, unless the text is one already.
      ctx.setState(trained ? { weights: 'random' } : { weights: 'trained', text: TRAINED_SENTENCE })
    })
  }

  render(ctx: Ctx): void {
    const { state, t } = ctx
    const trained = state.weights === 'trained'
    this.el.dataset.weights = state.weights
    setText(this.title, t(trained ? 'weightsTrainedTitle' : 'weightsRandomTitle'))
    const layers = TRAINED.layers
    const pct = `${(100 * TRAINED.heldOut.accuracy).toFixed(1)} %`
    setText(
      this.body,
      trained
        ? t('weightsTrained', {
            layer: oneBased(layers - 1), // the last layer
            layers,
            steps: TRAINED.recipe.steps,
            seed: TRAINED.recipe.seed,
            accuracy: pct,
          })
        : t('weightsRandom', { seed: state.seed }),
    )
    setText(this.trainLink, t('weightsTrainLink'))
    setText(this.toggle, t(trained ? 'weightsUseRandom' : 'weightsUseTrained'))
  }
}
