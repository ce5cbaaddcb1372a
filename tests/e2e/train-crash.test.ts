// The Train tab's Web Worker dying, in real Chromium on the built page: an error thrown inside it that nothing
// catches, or the worker gone silent (closed from inside, as a browser killing it leaves it: no event at all, so the
// panel's watchdog notices after WATCHDOG_MS of unanswered pings). Either way the panel says so (en and zh), offers
// Restart, and Restart starts a fresh worker that trains; the rest of the page keeps working (docs/bad-input.md R1).
// The silent worker's test moves the page's clock on (Playwright's clock) instead of waiting WATCHDOG_MS twice.
// Task poems (the language model, a session of its own in the worker) likewise: the fresh worker trains task poems.
import type { Page, Worker } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { settled } from './harness.mjs'
import { useEnv } from './env'
import { usePages } from './page-fixture'
import { openTrainTab } from './train-tab'
import { WATCHDOG_MS } from '../../web/train/panel'

useEnv()
const pages = usePages()

/** Restart gives a fresh worker that trains (10 steps), and the pipeline view still computes. */
async function restartAndTrain(page: Page, restartLabel: string, stepText: RegExp): Promise<void> {
  const panel = page.locator('section.ap-train')
  const restart = panel.locator('button[data-train="restart"]')
  expect(await restart.textContent()).toBe(restartLabel)
  expect(await panel.locator('button[name="step"]').isDisabled()).toBe(true)
  await restart.click()
  expect(await restart.isHidden()).toBe(true)
  await expect.poll(() => panel.locator('.tr-sentence').inputValue(), { timeout: 30_000 }).not.toBe('')
  await panel.locator('button[name="step"]').click()
  await expect.poll(() => panel.locator('.tr-status').textContent(), { timeout: 30_000 }).toMatch(stepText)
  expect(await panel.locator('.tr-error').textContent()).toBe('')
  // the rest of the page: the pipeline tab computes the course's weights
  await page.locator('[role="tab"][data-view="pipeline"]').click()
  await expect.poll(() => page.locator('[data-step="weights"]').isVisible(), { timeout: 30_000 }).toBe(true)
}

/** An exception no handler catches, thrown on the worker's own event loop. */
async function throwInside(worker: Worker): Promise<void> {
  await worker.evaluate(() => {
    setTimeout(() => {
      throw new Error('boom from a test')
    })
  })
}

/** The worker's next message of `type` meets a wasm trap where it is posted (inside the worker's handlers). */
async function trapNext(worker: Worker, type: 'snapshot' | 'poems'): Promise<void> {
  await worker.evaluate((type) => {
    // the worker's global (the tests' types see a Window here)
    const scope = self as unknown as { postMessage(m: { type?: string }, t?: Transferable[]): void }
    const real = scope.postMessage.bind(scope)
    let armed = true
    scope.postMessage = (m, t) => {
      if (armed && m.type === type) {
        armed = false
        throw new WebAssembly.RuntimeError('memory access out of bounds (from a test)')
      }
      real(m, t ?? [])
    }
  }, type)
}

/** Step, and the next message of `type` meets the trap: the panel says the worker stopped (en), with the trap's message. */
async function stepIntoTrap(page: Page, worker: Worker, type: 'snapshot' | 'poems'): Promise<void> {
  const panel = page.locator('section.ap-train')
  await trapNext(worker, type)
  await panel.locator('button[name="step"]').click()
  await expect
    .poll(() => panel.locator('.tr-error').textContent(), { timeout: 60_000 })
    .toMatch(/^The training worker stopped \(.*memory access out of bounds \(from a test\)\)\. The rest of the page/)
}

/** Task poems chosen in a panel that has loaded: its worker's step-0 measurements shown. */
async function choosePoems(page: Page, start: RegExp): Promise<void> {
  const panel = page.locator('section.ap-train')
  await panel.locator('select[name="task"]').selectOption('poems')
  await expect.poll(() => panel.locator('.tr-status').textContent(), { timeout: 120_000 }).toMatch(start)
}

/** Task poems after its worker died: Restart gives a fresh worker with task poems that trains (10 steps). */
async function restartPoems(page: Page, restartLabel: string, start: RegExp, stepText: RegExp): Promise<void> {
  const panel = page.locator('section.ap-train')
  const restart = panel.locator('button[data-train="restart"]')
  expect(await restart.textContent()).toBe(restartLabel)
  expect(await panel.locator('button[name="step"]').isDisabled()).toBe(true)
  expect(await panel.locator('button[data-train="look-inside"]').isDisabled()).toBe(true)
  await restart.click()
  expect(await restart.isHidden()).toBe(true)
  expect(await panel.locator('select[name="task"]').inputValue()).toBe('poems')
  await expect.poll(() => panel.locator('.tr-status').textContent(), { timeout: 120_000 }).toMatch(start)
  await panel.locator('button[name="step"]').click()
  await expect.poll(() => panel.locator('.tr-status').textContent(), { timeout: 240_000 }).toMatch(stepText)
  expect(await panel.locator('.tr-error').textContent()).toBe('')
}

describe('the Train tab when its worker dies', () => {
  it('R1 an error thrown inside the worker: a message (en), Restart, a fresh worker that trains', async () => {
    const { page, errors, worker } = await openTrainTab(pages, 'en')
    const panel = page.locator('section.ap-train')
    const first = worker()
    await throwInside(first)
    await expect
      .poll(() => panel.locator('.tr-error').textContent(), { timeout: 15_000 })
      .toMatch(
        /^The training worker stopped \(.*boom from a test\)\. The rest of the page still works; Restart starts a fresh worker/,
      )
    await restartAndTrain(page, 'Restart', /^step 10 · loss /)
    expect(worker()).not.toBe(first)
    // The worker's own error is handled (the Worker's error event), not reported as the page's.
    expect(errors.filter((e) => !/boom from a test/.test(e))).toEqual([])
  }, 120_000)

  it(`R1 a worker that goes silent (closed from inside: no event): after ${WATCHDOG_MS / 1000} s the message (zh), Restart`, async () => {
    // The page's clock is moved on rather than waited for: the watchdog's pings and its measure of silence run on it.
    const { page, errors, worker } = await openTrainTab(pages, 'zh', { clock: true })
    const panel = page.locator('section.ap-train')
    const error = panel.locator('.tr-error')
    const restart = panel.locator('button[data-train="restart"]')
    /** Silence for `ms` (the page's timers due in it fire once), then two frames. */
    const silence = async (ms: number) => {
      await page.clock.fastForward(ms)
      await settled(page)
    }
    await worker().evaluate(() => self.close())
    // Half the limit: a ping goes unanswered, and the worker is not yet taken for dead.
    await silence(WATCHDOG_MS / 2)
    expect(await error.textContent()).toBe('')
    expect(await restart.isHidden()).toBe(true)
    // Past the limit: dead.
    await silence(WATCHDOG_MS)
    await expect
      .poll(() => error.textContent(), { timeout: 10_000 })
      .toBe(
        `训练用的 Worker 已停止（${WATCHDOG_MS / 1000} 秒无响应）。页面的其他部分仍可使用；“重新启动”会新建一个 Worker，用相同的设置从头训练一个新模型。`,
      )
    // A changed setting while the worker is gone starts a fresh one too (here: another seed).
    await panel.locator('input[name="seed"]').fill('3')
    await panel.locator('input[name="seed"]').dispatchEvent('change')
    await expect.poll(() => restart.isHidden(), { timeout: 10_000 }).toBe(true)
    expect(await error.textContent()).toBe('')
    await expect.poll(() => panel.locator('.tr-sentence').inputValue(), { timeout: 30_000 }).not.toBe('')
    await worker().evaluate(() => self.close())
    await silence(WATCHDOG_MS / 2)
    expect(await restart.isHidden()).toBe(true)
    await silence(WATCHDOG_MS)
    await expect.poll(() => restart.isVisible(), { timeout: 10_000 }).toBe(true)
    await restartAndTrain(page, '重新启动', /^第 10 步 · 损失 /)
    expect(errors).toEqual([])
  }, 180_000)

  it('R1 task poems: an error thrown inside the worker (zh), Restart, a fresh worker with task poems that trains', async () => {
    const { page, errors, worker } = await openTrainTab(pages, 'zh')
    const panel = page.locator('section.ap-train')
    await choosePoems(page, /^第 0 步 · 训练损失 – · 验证集损失 [\d.]+（第 0 步）/)
    const first = worker()
    await throwInside(first)
    await expect
      .poll(() => panel.locator('.tr-error').textContent(), { timeout: 15_000 })
      .toMatch(/^训练用的 Worker 已停止（.*boom from a test）。页面的其他部分仍可使用/)
    await restartPoems(page, '重新启动', /^第 0 步 · 训练损失/, /^第 10 步 · 训练损失 [\d.]+ · 验证集损失/)
    expect(worker()).not.toBe(first)
    expect(errors.filter((e) => !/boom from a test/.test(e))).toEqual([])
  }, 480_000)

  it('R1 task poems: a wasm trap in the worker (en): the message, Restart, a fresh worker with task poems', async () => {
    const { page, errors, worker } = await openTrainTab(pages, 'en')
    await choosePoems(page, /^step 0 · training loss – · validation loss [\d.]+ \(step 0\)/)
    const first = worker()
    // the poems session's next snapshot meets a trap (as a wasm out-of-bounds access throws it)
    await stepIntoTrap(page, first, 'poems')
    await restartPoems(page, 'Restart', /^step 0 · training loss/, /^step 10 · training loss [\d.]+ · validation loss/)
    expect(worker()).not.toBe(first)
    expect(errors).toEqual([])
  }, 480_000)

  it('R1 a wasm trap caught inside the worker (its engine lost): the message (en), Restart, a fresh worker', async () => {
    const { page, errors, worker } = await openTrainTab(pages, 'en')
    const first = worker()
    // The worker's next snapshot meets a trap (as a wasm out-of-bounds access throws it); its handler catches it.
    await stepIntoTrap(page, first, 'snapshot')
    await restartAndTrain(page, 'Restart', /^step 10 · loss /)
    expect(worker()).not.toBe(first)
    expect(errors).toEqual([])
  }, 120_000)
})
