// The benchmarks' inputs: xorshift32, so every implementation and every run gets the same numbers.
/** `len` floats in [-1, 1) from `seed`. */
export function rand(len, seed) {
  let s = seed >>> 0 || 1
  const a = new Float32Array(len)
  for (let i = 0; i < len; i++) {
    s ^= s << 13
    s >>>= 0
    s ^= s >>> 17
    s ^= s << 5
    s >>>= 0
    a[i] = (s / 4294967296) * 2 - 1
  }
  return a
}
