// clang-tidy's translation units (scripts/lint-cpp.sh): the FILEs grouped by the .clang-tidy that governs them
// (the nearest one above each file: src/kernels has its own), one unit per group, PREFIX-1.cpp, PREFIX-2.cpp, …,
// each one #include per file in the order given. Prints one line per unit, `CONFIG UNIT FLAGS…`: the config file,
// the unit, and the compiler flags its files share as the native build compiles them (COMPILE_COMMANDS), for
// `clang-tidy --config-file=CONFIG UNIT -- FLAGS`. Fails, naming the file, when a file has no entry or flags of
// its own: one unit can only stand for files built alike.
// Usage: node scripts/tidy-unit.mjs COMPILE_COMMANDS PREFIX FILE...
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'

const [commandsFile, prefix, ...files] = process.argv.slice(2)
if (!commandsFile || !prefix || !files.length) {
  console.error('usage: node scripts/tidy-unit.mjs COMPILE_COMMANDS PREFIX FILE...')
  process.exit(2)
}

/** @type {Array<{ file: string, directory: string, command?: string, arguments?: string[] }>} */
const entries = JSON.parse(readFileSync(commandsFile, 'utf8'))

/** An entry's flags: its words without the compiler, the output (-o X) and the input (-c FILE). */
function flagsOf(/** @type {(typeof entries)[number]} */ e) {
  const words = e.arguments ?? (e.command ?? '').split(/\s+/).filter(Boolean)
  if (!e.arguments && /["'\\]/.test(e.command ?? ''))
    throw new Error(`${e.file}: its command is quoted (${e.command}); this script splits commands on spaces only`)
  const out = []
  for (let i = 1; i < words.length; i++) {
    if (words[i] === '-o' || words[i] === '-c') i++
    else out.push(words[i])
  }
  return out.join(' ')
}

/** The .clang-tidy clang-tidy would read for `path`: the nearest one in its folder or above. */
function configOf(path) {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.clang-tidy'))) return join(dir, '.clang-tidy')
    if (dirname(dir) === dir) throw new Error(`${path}: no .clang-tidy in its folder or above`)
  }
}

let shared = ''
let first = ''
/** @type {Map<string, string[]>} the #include lines of each config's unit */
const units = new Map()
for (const f of files) {
  const path = resolve(f)
  const e = entries.find((x) => resolve(x.directory, x.file) === path)
  if (!e) {
    console.error(
      `tidy-unit: ${f} has no entry in ${commandsFile}: configure the native build again (cmake -S . -B build/native)`,
    )
    process.exit(1)
  }
  const flags = flagsOf(e)
  if (!first) [first, shared] = [f, flags]
  else if (flags !== shared) {
    console.error(`tidy-unit: ${f} is built with other flags than ${first}:\n  ${flags}\n  ${shared}`)
    console.error('read it on its own: clang-tidy -p build/native ' + f)
    process.exit(1)
  }
  const config = configOf(path)
  if (!units.has(config)) units.set(config, [])
  units.get(config)?.push(`#include "${path}"  // NOLINT(bugprone-suspicious-include)`)
}
let n = 0
for (const [config, lines] of units) {
  const unit = `${prefix}-${++n}.cpp`
  writeFileSync(
    unit,
    `// Written by scripts/tidy-unit.mjs for clang-tidy (scripts/lint-cpp.sh): the files ${config} governs, as one unit.\n${lines.join('\n')}\n`,
  )
  console.log(`${config} ${unit} ${shared}`)
}
