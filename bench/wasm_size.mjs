#!/usr/bin/env node
// Where the bytes of a .wasm go: code size per function, grouped (Eigen, embind, libc++/libc,
// our kernels, the rest of our engine), plus the data and other sections; each group's gzip share
// is estimated by compressing its function bodies together. Needs function names: build with
// `--profiling-funcs` (bench/size_build.sh does, into build/h-kern-wasm/pkg).
//   node bench/wasm_size.mjs path/to/attention.wasm
import { readFileSync } from 'node:fs'
import { gzipSync } from 'node:zlib'
import { cli } from './inputs.mjs'

const [file = 'build/h-kern-wasm/pkg/attention.wasm'] = cli({}, 'node bench/wasm_size.mjs [file.wasm]', 1)._
const buf = readFileSync(file)
let pos = 8
function uleb() {
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
  let name =
    [
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
    ][id] ?? `id${id}`
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
        const l = uleb()
        pos += l
      }
      const kind = buf[pos++]
      if (kind === 0) {
        uleb()
        importedFuncs++
      } else if (kind === 1) {
        pos++
        const f = buf[pos++]
        uleb()
        if (f & 1) uleb()
      } else if (kind === 2) {
        const f = buf[pos++]
        uleb()
        if (f & 1) uleb()
      } else if (kind === 3) {
        pos += 2
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

/** @type {Array<[string, (name: string) => boolean]>} */
const groups = [
  ['our kernels (ap::kernels)', (n) => /ap::kernels|kernels_driver|SimdOps|ScalarOps/.test(n)],
  ['Eigen', (n) => /Eigen/.test(n)],
  ['embind / emscripten', (n) => /emscripten|embind|_emval|EmVal|BindingType|GenericBindingType/.test(n)],
  ['our engine (ap::)', (n) => /\bap::/.test(n)],
  ['libc++ (std::)', (n) => /std::|__cxx|__cxa|__gxx|operator new|operator delete/.test(n)],
  ['libc, malloc, other', () => true],
]
const tally = new Map(groups.map(([g]) => [g, { bytes: 0, funcs: 0, parts: [], top: [] }]))
bodies.forEach(([s, e], i) => {
  const name = names.get(importedFuncs + i) ?? `func${importedFuncs + i}`
  const g = groups.find(([, test]) => test(name))[0]
  const t = tally.get(g)
  t.bytes += e - s
  t.funcs++
  t.parts.push(buf.subarray(s, e))
  t.top.push([e - s, name])
})
const total = buf.length
const gzTotal = gzipSync(buf, { level: 9 }).length
console.log(
  `${file}: ${(total / 1024).toFixed(1)} KiB, gzip -9 ${(gzTotal / 1024).toFixed(1)} KiB` +
    (names.size ? '' : '  (no name section: build with --profiling-funcs for the grouping)'),
)
console.log('\nsections:')
for (const s of sections) console.log(`  ${s.name.padEnd(28)}${(s.size / 1024).toFixed(1).padStart(9)} KiB`)
console.log("\ncode by group (gzip: the group's bodies compressed alone):")
for (const [g, t] of tally) {
  if (!t.funcs) continue
  const gz = gzipSync(Buffer.concat(t.parts), { level: 9 }).length
  console.log(
    `  ${g.padEnd(28)}${(t.bytes / 1024).toFixed(1).padStart(9)} KiB  gzip ~${(gz / 1024).toFixed(1).padStart(6)} KiB  ${String(t.funcs).padStart(5)} functions`,
  )
}
console.log('\nlargest functions:')
const all = [...tally.values()]
  .flatMap((t) => t.top)
  .sort((a, b) => b[0] - a[0])
  .slice(0, 15)
for (const [b, n] of all) console.log(`  ${(b / 1024).toFixed(1).padStart(7)} KiB  ${n.slice(0, 130)}`)
