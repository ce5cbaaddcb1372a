// The benchmarks' inputs (xorshift32, so every implementation and every run gets the same numbers) and the small
// helpers every bench script shares. rand and median are plain function declarations: pages inject them with
// `${f.toString()}`.
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

/** The median of `a` (for an even count, the upper of the two middle values, as the benchmarks have always read it). */
export function median(a) {
  return [...a].sort((x, y) => x - y)[a.length >> 1]
}

/** The value after `--name` in `argv`, or `def` when the option is absent. */
export function option(argv, name, def) {
  return argv.includes(name) ? argv[argv.indexOf(name) + 1] : def
}
