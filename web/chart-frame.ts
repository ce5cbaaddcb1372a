// The frame of the page's small charts (the Train tab's curves, the ÷√d_k view's plots): the drawing's
// size and the margins its axis labels sit in, around the plotting area.

export interface ChartFrame {
  /** width and height of the drawing */
  W: number
  H: number
  /** left, right, top and bottom margins */
  L: number
  R: number
  T: number
  B: number
}

/** A W × H drawing with margins given in CSS order: top, right, bottom, left. */
export function chartFrame(W: number, H: number, [T, R, B, L]: [number, number, number, number]): ChartFrame {
  return { W, H, L, R, T, B }
}
