// The "Why attention" view's weights from a real model: the Train tab's worker trains the coreference
// task (whose sample is the lesson's sentence) for a fixed number of steps, off the main thread, and
// hands back that sentence's attention. Started the first time the view is shown.

import { DEFAULT_TRAIN_SETTINGS, type FromWorker, type ToWorker } from '../train/protocol'

export const WHY_TRAIN_STEPS = 100

export interface TrainedWeights {
  tokens: string[]
  /** tokens × tokens, last layer, averaged over heads. */
  weights: Float32Array
  steps: number
  /** Held-out accuracy after training (0..1). */
  accuracy: number
}

export class TrainedWhy {
  private worker: Worker | null = null
  private result: Promise<TrainedWeights> | null = null

  /** Trains once; later calls return the same result. */
  get(): Promise<TrainedWeights> {
    this.result ??= new Promise<TrainedWeights>((resolve, reject) => {
      const w = new Worker(new URL('../train/worker.ts', import.meta.url), { type: 'module' })
      this.worker = w
      const send = (m: ToWorker) => w.postMessage(m)
      w.onerror = (e) => reject(new Error(e.message || 'training worker failed to load'))
      w.onmessage = (e: MessageEvent<FromWorker>) => {
        const m = e.data
        if (m.type === 'error') {
          reject(new Error(m.message))
          return
        }
        if (m.type === 'ready') {
          send({ type: 'step', n: WHY_TRAIN_STEPS })
          return
        }
        if (m.type === 'inspect') return
        const s = m.snapshot
        if (!s.attention) {
          reject(new Error(s.attentionError ?? 'no attention in the snapshot'))
          return
        }
        resolve({
          tokens: s.attention.tokens,
          weights: s.attention.weights,
          steps: s.steps,
          accuracy: s.test?.accuracy ?? NaN,
        })
        this.stop()
      }
      send({
        type: 'reset',
        settings: { ...DEFAULT_TRAIN_SETTINGS },
      })
    })
    return this.result
  }

  stop(): void {
    this.worker?.terminate()
    this.worker = null
  }
}
