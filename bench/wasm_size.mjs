#!/usr/bin/env node
// Where the bytes of a .wasm go: code size per function, grouped by what the function belongs to (our kernels,
// the language model, the backward pass, the rest of our engine, the bindings, Eigen, embind, libc++, printf,
// strtod, malloc, the rest of libc), plus the data and other sections; each group's gzip share is estimated by
// compressing its function bodies together (so the shares add up to less than the file). Function names come
// from the build's symbol map (`<target>.js.symbols` beside the .wasm in build/wasm*, which every engine's link
// writes with --emit-symbol-map), or from a name section (a link with --profiling-funcs). With a second file,
// both side by side and B − A per group (what a flag or a moved source changed).
//   node bench/wasm_size.mjs build/wasm/attention.wasm [other.wasm] [--top 15]
import { existsSync, readFileSync } from 'node:fs'
import { gzipSync } from 'node:zlib'
import { cli } from './inputs.mjs'

/** @type {Array<[string, RegExp]>} the first group whose pattern matches a function's name takes it */
const GROUPS = [
  ['our kernels (ap::kernels)', /ap::kernels|SimdOps|ScalarOps|RelaxedOps|kernels_driver/],
  ['language model (ap::lm)', /ap::lm::|LanguageModel|LmTrainer|\blm_/],
  ['backward pass', /backward|Backward/],
  ['trainers (ap::train)', /ap::train|Trainer/],
  ['Eigen', /Eigen::/],
  ['embind', /emscripten::|embind|_emval|EmVal|BindingType|__getTypeName/],
  ['our engine (ap::)', /\bap::/],
  ['bindings (apb::, anonymous)', /^anon::|apb::|_embind_initialize/],
  [
    'libc++ / libc++abi',
    /std::|__cxa|__cxx|__gxx|operator new|operator delete|__dynamic_cast|type_info|abort_message|demangle|__class_type/,
  ],
  [
    'printf',
    /printf|fmt_fp|pop_arg|printf_core|^fmt_[uxo]$|^pad|^out$|__fwritex|frexp|wctomb|wcrtomb|getint|__towrite|fwrite|__stdio_|__lockfile|__unlockfile|sn_write|__ofl|^fputs|__emscripten_stdout/,
  ],
  [
    'strtod',
    /strto|floatscan|decfloat|scanexp|__shlim|__shgetc|hexfloat|intscan|scalbn|fmodl|copysign|__uflow|__toread|scanf/,
  ],
  ['malloc', /malloc|dlfree|^free$|sbrk|realloc|memalign|mallinfo|dispose_chunk|emscripten_builtin/],
  ['libc, other', /./],
]
const SECTION_NAMES = [
  'custom',
  'type',
  'import',
  'function',
  'table',
  'memory',
  'global',
  'export',
  'start',
  'element',
  'code',
  'data',
  'datacount',
  'tag',
]

/**
 * What a function's name says it belongs to: the text before its parameter list (return type, scope, name and
 * template arguments), so `f(emscripten::val)` is f's and a lambda is its enclosing function's.
 */
function head(name) {
  const n = name.replaceAll('(anonymous namespace)', 'anon')
  let depth = 0
  for (let i = 0; i < n.length; i++) {
    if (n[i] === '<') depth++
    else if (n[i] === '>') depth--
    else if (n[i] === '(' && depth <= 0 && i > 0 && !n.startsWith('operator', i - 8)) return n.slice(0, i)
  }
  return n
}

/** Reads a module: its sections, its function bodies and their names (symbol map or name section). */
function read(file) {
  const buf = readFileSync(file)
  let pos = 8
  const uleb = () => {
    let result = 0,
      shift = 0,
      b
    do {
      b = buf[pos++]
      result += (b & 0x7f) * 2 ** shift
      shift += 7
    } while (b & 0x80)
    return result
  }
  const sections = []
  let importedFuncs = 0
  const bodies = [] // [start, end] per defined function
  const names = new Map()
  while (pos < buf.length) {
    const id = buf[pos++]
    const size = uleb()
    const end = pos + size
    let name = SECTION_NAMES[id] ?? `id${id}`
    if (id === 0) {
      const len = uleb()
      name = `custom:${buf.subarray(pos, pos + len).toString()}`
      pos += len
      if (name === 'custom:name') {
        while (pos < end) {
          const sub = buf[pos++]
          const subSize = uleb()
          const subEnd = pos + subSize
          if (sub === 1) {
            const count = uleb()
            for (let i = 0; i < count; i++) {
              const idx = uleb()
              const l = uleb()
              names.set(idx, buf.subarray(pos, pos + l).toString())
              pos += l
            }
          }
          pos = subEnd
        }
      }
    } else if (id === 2) {
      const count = uleb()
      for (let i = 0; i < count; i++) {
        for (let k = 0; k < 2; k++) {
          const l = uleb() // not `pos += uleb()`: that reads pos before uleb() moves it
          pos += l
        }
        const kind = buf[pos++]
        if (kind === 0) {
          uleb()
          importedFuncs++
        } else if (kind === 1) {
          pos++
          if (buf[pos++] & 1) uleb()
          uleb()
        } else if (kind === 2) {
          if (buf[pos++] & 1) uleb()
          uleb()
        } else if (kind === 3) {
          pos += 2
        } else if (kind === 4) {
          pos++
          uleb()
        }
      }
    } else if (id === 10) {
      const count = uleb()
      for (let i = 0; i < count; i++) {
        const s = uleb()
        bodies.push([pos, pos + s])
        pos += s
      }
    }
    sections.push({ name, size })
    pos = end
  }
  // The symbol map of `<target>.wasm` is `<target>.js.symbols`: "index:name", names escaped (\20 = space).
  const symbols = file.replace(/\.wasm$/, '.js.symbols')
  let source = names.size ? 'name section' : 'none'
  if (!names.size && existsSync(symbols)) {
    source = symbols
    for (const line of readFileSync(symbols, 'utf8').split('\n')) {
      const at = line.indexOf(':')
      if (at < 0) continue
      const name = line.slice(at + 1).replace(/\\([0-9a-f]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16)))
      names.set(Number(line.slice(0, at)), name)
    }
  }
  const tally = new Map(GROUPS.map(([g]) => [g, { bytes: 0, funcs: 0, gzip: 0, parts: [], top: [] }]))
  bodies.forEach(([s, e], i) => {
    const name = names.get(importedFuncs + i) ?? `func${importedFuncs + i}`
    const t = tally.get(GROUPS.find(([, re]) => re.test(head(name)))[0])
    t.bytes += e - s
    t.funcs++
    t.parts.push(buf.subarray(s, e))
    t.top.push([e - s, name])
  })
  for (const t of tally.values()) t.gzip = t.funcs ? gzipSync(Buffer.concat(t.parts), { level: 9 }).length : 0
  const imports = [...names].filter(([i]) => i < importedFuncs).map(([, n]) => n)
  return {
    file,
    source,
    raw: buf.length,
    gzip: gzipSync(buf, { level: 9 }).length,
    sections,
    tally,
    functions: bodies.length,
    invokes: imports.filter((n) => n.startsWith('invoke_')).length,
  }
}

const args = cli({ top: { type: 'string' } }, 'node bench/wasm_size.mjs A.wasm [B.wasm] [--top 15]', 2)
const files = args._.length ? args._ : ['build/wasm/attention.wasm']
const mods = files.map(read)
const kb = (b) => (b / 1024).toFixed(1).padStart(8)
const diff = (a, b) => `${b - a >= 0 ? '+' : ''}${b - a}`.padStart(8)
for (const m of mods) {
  console.log(
    `${m.file}: ${m.raw.toLocaleString('en-US')} bytes, gzip -9 ${m.gzip.toLocaleString('en-US')}; ` +
      `${m.functions} functions, ${m.invokes} invoke_* imports; names from ${m.source}`,
  )
}
const [a, b] = mods
console.log(`\nsections (KiB)${b ? ': A, B' : ''}:`)
for (const s of a.sections) {
  const other = b?.sections.find((x) => x.name === s.name)
  console.log(`  ${s.name.padEnd(28)}${kb(s.size)}${b ? `${kb(other?.size ?? 0)}` : ''}`)
}
for (const s of b?.sections.filter((x) => !a.sections.some((y) => y.name === x.name)) ?? []) {
  console.log(`  ${s.name.padEnd(28)}${kb(0)}${kb(s.size)}`)
}
console.log(
  `\ncode by group: raw bytes, gzip bytes of the group's bodies alone, functions${b ? ' (A, then B, then B − A)' : ''}:`,
)
for (const [g] of GROUPS) {
  const ta = a.tally.get(g)
  const tb = b?.tally.get(g)
  if (!ta.funcs && !tb?.funcs) continue
  const cols = (t) => `${String(t.bytes).padStart(8)} ${String(t.gzip).padStart(7)} ${String(t.funcs).padStart(5)}`
  console.log(
    `  ${g.padEnd(30)}${cols(ta)}${tb ? `  | ${cols(tb)}  | ${diff(ta.bytes, tb.bytes)} ${diff(ta.gzip, tb.gzip)}` : ''}`,
  )
}
if (b)
  console.log(
    `  ${'whole file'.padEnd(30)}${String(a.raw).padStart(8)} ${String(a.gzip).padStart(7)}       | ${String(b.raw).padStart(8)} ${String(b.gzip).padStart(7)}        | ${diff(a.raw, b.raw)} ${diff(a.gzip, b.gzip)}`,
  )
const top = Number(args.top ?? 15)
for (const m of mods) {
  console.log(`\nlargest functions of ${m.file}:`)
  const all = [...m.tally.values()]
    .flatMap((t) => t.top)
    .sort((x, y) => y[0] - x[0])
    .slice(0, top)
  for (const [bytes, n] of all) console.log(`  ${kb(bytes)} KiB  ${n.slice(0, 130)}`)
}
