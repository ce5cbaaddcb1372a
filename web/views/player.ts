// Play / pause over a view's numbered steps (the decode, flash and generate views): one step every 900 ms (or
// the view's own interval), every 1600 ms when the reader prefers reduced motion, from the first step again when
// played at the last, stopping by itself at the last.

import { prefersReducedMotion } from '../dom'

export class StepPlayer {
  private timer: ReturnType<typeof setInterval> | null = null

  /**
   * @param where the step shown and the last step, or null while there is nothing to step through
   * @param go shows step k
   * @param redraw redraws the view (the play button's label follows `playing`)
   * @param ms the time between steps (reduced motion: at least 1600 ms)
   */
  constructor(
    private readonly where: () => { at: number; last: number } | null,
    private readonly go: (k: number) => void,
    private readonly redraw: () => void,
    private readonly ms = 900,
  ) {}

  get playing(): boolean {
    return this.timer !== null
  }

  toggle(): void {
    if (this.timer) {
      this.stop()
      this.redraw()
      return
    }
    const w = this.where()
    if (w && w.at >= w.last) this.go(0)
    this.timer = setInterval(
      () => {
        const now = this.where()
        if (!now || now.at >= now.last) {
          this.stop()
          this.redraw()
          return
        }
        this.go(now.at + 1)
      },
      prefersReducedMotion() ? Math.max(1600, this.ms) : this.ms,
    )
    this.redraw()
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
  }
}
