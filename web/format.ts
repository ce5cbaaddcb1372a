// Number formatting shared by heatmaps, tables and the arithmetic view.

/** Four decimals, with −∞ for masked cells; the sign is a real minus so columns line up. */
export function fmt(v: number, digits = 4): string {
  if (v === -Infinity) return '−∞'
  if (v === Infinity) return '∞'
  if (Number.isNaN(v)) return 'NaN'
  const s = Math.abs(v) >= 1e5 || (v !== 0 && Math.abs(v) < 1e-4) ? v.toExponential(2) : v.toFixed(digits)
  return s.startsWith('-') ? '−' + s.slice(1) : s
}

/** Parses a number as shown by fmt (or typed by a learner); null when it is not one. */
export function parseShown(s: string): number | null {
  const t = s.trim().replace(/^−/, '-').replace(/^\+/, '')
  if (t === '-∞') return -Infinity
  if (!/^-?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(t)) return null
  const v = Number(t)
  return Number.isFinite(v) ? v : null
}

/** The shape line of a panel, e.g. "(4,16)·(16,24) → (4,24)". */
export function shapeOf(dims: number[]): string {
  return `(${dims.join(',')})`
}

export function productShape(a: number[], b: number[], out: number[]): string {
  return `${shapeOf(a)}·${shapeOf(b)} → ${shapeOf(out)}`
}

/** The message of anything thrown (an Error's message, anything else as text). */
export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e)
}

/**
 * A head's or a layer's number as every tab shows it: counted from 1 (head 1 is index 0). Code, files, data-*
 * attributes and URL parameters keep the 0-based index; only visible labels go through this.
 */
export function oneBased(index: number): number {
  return index + 1
}

/**
 * A whole number with thousands separators, as `toLocaleString('en-US')` writes it ("2,401"), without Intl: a fresh
 * page's first Intl number format took 40–80 ms in Chromium here, which the generate view's first poem waited on.
 * Anything else (a fraction, beyond 2^53, −0) goes to Intl.
 */
export function grouped(n: number): string {
  if (!Number.isSafeInteger(n) || Object.is(n, -0)) return n.toLocaleString('en-US')
  return String(n).replace(/\B(?=(\d{3})+$)/g, ',')
}
