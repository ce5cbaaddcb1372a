// The page opened on the Train tab with its training worker at hand: shared by the tests that drive the worker
// (train-crash: it dies and restarts; train-poems: task poems).
import type { Page, Worker } from 'playwright-core'
import { expect } from 'vitest'
import { env } from './env'
import type { Pages } from './page-fixture'

export interface TrainTab {
  page: Page
  errors: string[]
  /** The Train panel's worker: the last one the page started (the engine runs one thread here: no other workers). */
  worker: () => Worker
}

/**
 * The page on the Train tab, once the worker has answered (the first snapshot filled the sentence to watch).
 * `clock`: the page's timers run on Playwright's clock, installed before the page loads (time flows as usual until
 * a test moves it on with `page.clock.fastForward`, as a laptop's lid closed for that long).
 */
export async function openTrainTab(
  pages: Pages,
  lang: 'en' | 'zh',
  { timeout = 30_000, clock = false }: { timeout?: number; clock?: boolean } = {},
): Promise<TrainTab> {
  const { page, errors } = await pages.open(undefined, { viewport: { width: 1400, height: 1000 } })
  const workers: Worker[] = []
  page.on('worker', (w) => workers.push(w))
  if (clock) await page.clock.install()
  await page.goto(`${env.site.url}?view=train&lang=${lang}`)
  const panel = page.locator('section.ap-train')
  await expect.poll(() => panel.locator('.tr-sentence').inputValue(), { timeout }).not.toBe('')
  return {
    page,
    errors,
    worker: () => {
      expect(workers.length).toBeGreaterThan(0)
      return workers[workers.length - 1]
    },
  }
}
