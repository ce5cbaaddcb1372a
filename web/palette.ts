// Colour-blind-safe colour scales. Viridis for values in one direction (weights, torch.rand matrices),
// a blue-orange diverging scale (PuOr-like) for signed values, so red/green never carries meaning.

type RGB = [number, number, number]

/** Colour stops written as the palettes are published: '#rrggbb' codes separated by spaces. */
function hexStops(codes: string): RGB[] {
  return codes.split(' ').map((c) => [0, 2, 4].map((k) => parseInt(c.slice(1 + k, 3 + k), 16)) as RGB)
}

// Viridis control points (matplotlib), evenly spaced; linear interpolation between them.
const VIRIDIS = hexStops('#440154 #482475 #414487 #355f8d #2a788e #21918c #22a884 #44bf70 #7ad151 #bddf26 #fde725')

// Dark blue -> near white -> dark orange.
const DIVERGING = hexStops('#2166ac #4393c3 #92c5de #d1e5f0 #f7f7f7 #fee0b6 #fdb863 #e08214 #b35806')

function lerpScale(stops: RGB[], t: number): RGB {
  const x = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0)) * (stops.length - 1)
  const i = Math.min(stops.length - 2, Math.floor(x))
  const f = x - i
  const a = stops[i],
    b = stops[i + 1]
  return [a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f, a[2] + (b[2] - a[2]) * f]
}

/** lerpScale written into an RGBA buffer at `at` (the heatmaps' pixels: no array per cell). */
function lerpInto(stops: RGB[], t: number, out: Uint8ClampedArray, at: number): void {
  const x = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0)) * (stops.length - 1)
  const i = Math.min(stops.length - 2, Math.floor(x))
  const f = x - i
  const a = stops[i],
    b = stops[i + 1]
  out[at] = a[0] + (b[0] - a[0]) * f
  out[at + 1] = a[1] + (b[1] - a[1]) * f
  out[at + 2] = a[2] + (b[2] - a[2]) * f
}

export function viridis(t: number): RGB {
  return lerpScale(VIRIDIS, t)
}

/** t in [-1, 1]; 0 maps to the neutral middle. */
export function diverging(t: number): RGB {
  return lerpScale(DIVERGING, (t + 1) / 2)
}

export type ScaleKind = 'signed' | 'unit'

export interface ColorScale {
  kind: ScaleKind
  lo: number
  hi: number
  color(v: number): RGB
  /** color(v) written into an RGBA buffer at `at` (alpha untouched). */
  paint(v: number, out: Uint8ClampedArray, at: number): void
}

/**
 * Picks the scale from the data: any negative value -> diverging, symmetric around 0;
 * otherwise viridis from 0 (or the minimum, when all values are far from 0) to the maximum.
 * -Infinity (masked) is ignored here and drawn separately.
 */
export function scaleFor(data: ArrayLike<number>, forceUnit = false): ColorScale {
  let lo = Infinity,
    hi = -Infinity
  for (let i = 0; i < data.length; i++) {
    const v = data[i]
    if (!Number.isFinite(v)) continue
    if (v < lo) lo = v
    if (v > hi) hi = v
  }
  if (lo === Infinity) {
    lo = 0
    hi = 1
  }
  if (forceUnit) {
    const top = Math.max(hi, 1e-12)
    return {
      kind: 'unit',
      lo: 0,
      hi: top,
      color: (v) => viridis(v / top),
      paint: (v, out, at) => lerpInto(VIRIDIS, v / top, out, at),
    }
  }
  if (lo < 0) {
    const m = Math.max(Math.abs(lo), Math.abs(hi), 1e-12)
    return {
      kind: 'signed',
      lo: -m,
      hi: m,
      color: (v) => diverging(v / m),
      paint: (v, out, at) => lerpInto(DIVERGING, (v / m + 1) / 2, out, at),
    }
  }
  // Values far from 0 (e.g. all in [5, 6]) would all look alike on a scale from 0.
  const base = lo > 0.5 * hi ? lo : 0
  const span = Math.max(hi - base, 1e-12)
  return {
    kind: 'unit',
    lo: base,
    hi,
    color: (v) => viridis((v - base) / span),
    paint: (v, out, at) => lerpInto(VIRIDIS, (v - base) / span, out, at),
  }
}

/** Black or white text, whichever reads better on the given background (WCAG relative luminance). */
export function textOn(rgb: RGB): string {
  const lin = rgb.map((c) => {
    const s = c / 255
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4
  })
  const L = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
  return L > 0.36 ? '#111' : '#fff'
}

export function rgbCss(rgb: RGB): string {
  return `rgb(${rgb[0] | 0},${rgb[1] | 0},${rgb[2] | 0})`
}
