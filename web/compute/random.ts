// A small seeded generator (mulberry32): the page's measurements and the property tests draw reproducible
// numbers from it, so a result or a failure can be repeated.

/** Uniform draws in [0, 1) from a 32-bit seed. */
export function mulberry32(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (s + 0x6d2b79f5) >>> 0
    let t = s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
