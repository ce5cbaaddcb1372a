// When the playground recomputes: at once for a click (a microtask, so several setState calls from one
// event coalesce and the result lands in the very next paint), after a pause for typing in a long text.

export interface Scheduler {
  /** Runs `update` after `delay` ms of quiet, or at once (delay 0), taking a pending delayed run along. */
  schedule(delay?: number): void
  cancel(): void
}

export function createScheduler(update: () => void): Scheduler {
  let queued = false
  let timer: ReturnType<typeof setTimeout> | undefined
  return {
    schedule(delay = 0) {
      if (delay > 0) {
        clearTimeout(timer)
        timer = setTimeout(() => {
          timer = undefined
          update()
        }, delay)
        return
      }
      if (timer !== undefined) {
        clearTimeout(timer)
        timer = undefined
      }
      if (queued) return
      queued = true
      queueMicrotask(() => {
        if (queued) {
          queued = false
          update()
        }
      })
    },
    cancel() {
      queued = false
      clearTimeout(timer)
      timer = undefined
    },
  }
}
