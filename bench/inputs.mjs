// The benchmarks' inputs (xorshift32, so every implementation and every run gets the same numbers) and the small
// helpers every bench script shares. rand and median are plain function declarations: pages inject them with
// `${f.toString()}`.
import os from 'node:os'
import { parseArgs } from 'node:util'

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

/** The machine a result was measured on, as every results JSON records it: the CPU, its logical cores, the runtime. */
export function machine(runtime) {
  const cpus = os.cpus()
  return { cpu: cpus[0]?.model, cores: cpus.length, runtime }
}

/**
 * The command line of a bench script, read by node:util's parseArgs (strict: an unknown or misspelled option, or a
 * missing value, stops the script with `usage` instead of being ignored). `options` is parseArgs's (values are
 * strings or booleans: a number is given as a string default and read with Number); at most `positionals` bare
 * arguments, returned as `_`.
 * @template {NonNullable<import('node:util').ParseArgsConfig['options']>} T
 * @param {T} options
 * @param {string} usage
 * @param {number} [positionals]
 * @returns {ReturnType<typeof parseArgs<{ options: T; strict: true; allowPositionals: true }>>['values'] & { _: string[] }}
 */
export function cli(options, usage, positionals = 0) {
  try {
    const { values, positionals: bare } = parseArgs({ options, allowPositionals: positionals > 0, strict: true })
    if (bare.length > positionals) throw new Error(`Unexpected argument '${bare[positionals]}'`)
    return { ...values, _: bare }
  } catch (e) {
    console.error(`${e instanceof Error ? e.message : e}\nusage: ${usage}`)
    process.exit(2)
  }
}
