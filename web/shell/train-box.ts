// The box that holds the Train panel (web/train/panel.ts), loaded only when first shown; a build that
// lacks the panel says so instead.

import { h } from '../dom'
import { errorMessage } from '../format'
import type { Translate } from '../i18n'
import type { Lang } from '../params'
import type { Trace } from 'attention-playground'
import type { PoemsCorpusUrls } from '../train/protocol'

/** The Train tab's "look inside this step": the last layer's attention, shown by the backward view. */
export type Inspect = (trace: Trace, labels: string[]) => void

/** Task poems' "look inside": the trained weights as a safetensors file, at `steps`. */
export type LookInside = (bytes: Uint8Array, steps: number) => void

/** What the Train panel gets besides its language (web/train/panel.ts, TrainPanelOptions). */
export interface TrainBoxOptions {
  onInspect?: Inspect
  /** The poems corpus's files (the page's public/poems/); without them the Train tab has no task poems. */
  poemsCorpus?: PoemsCorpusUrls
  onLookInside?: LookInside
}

type TrainHandle = { el?: HTMLElement; setLang(l: Lang): void; dispose(): void }
type TrainModule = { mountTrainPanel(root: HTMLElement, opts: TrainBoxOptions & { lang: Lang }): TrainHandle }
declare global {
  interface ImportMeta {
    glob<T>(pattern: string): Record<string, () => Promise<T>>
  }
}
const trainModules = import.meta.glob<TrainModule>('../train/panel.ts')

export interface TrainBox {
  el: HTMLElement
  /** Loads and mounts the panel the first time (later calls do nothing). */
  show(t: Translate, lang: Lang): Promise<void>
  setLang(lang: Lang): void
  dispose(): void
}

export function createTrainBox(opts: TrainBoxOptions = {}): TrainBox {
  const el = h('div', { class: 'ap-train-box panel', 'data-view-box': 'train' })
  let train: TrainHandle | null = null
  let loading = false
  let disposed = false
  return {
    el,
    async show(t, lang) {
      if (train || loading || disposed) return
      const load = trainModules['../train/panel.ts']
      if (!load) {
        el.textContent = t('trainMissing')
        return
      }
      loading = true
      el.replaceChildren(h('p', { class: 'help', text: t('trainLoading') }))
      try {
        const mod = await load()
        if (disposed) return
        el.replaceChildren()
        train = mod.mountTrainPanel(el, { ...opts, lang })
      } catch (e) {
        el.replaceChildren(
          h('p', { class: 'banner error', role: 'alert', text: `${t('loadFailed')} ${errorMessage(e)}` }),
        )
      } finally {
        loading = false
      }
    },
    setLang(lang) {
      train?.setLang(lang)
    },
    dispose() {
      disposed = true
      train?.dispose()
      train = null
    },
  }
}
