// A small reader of the WebAssembly binary format, enough to find each defined function's body in the
// code section (https://webassembly.github.io/spec/core/binary/modules.html): sections, LEB128 sizes,
// the import section's function count (imported functions come first in the function index space).

export function leb(buf: Uint8Array, pos: number): { value: number; next: number } {
  let value = 0
  let shift = 0
  for (;;) {
    const b = buf[pos++]
    if (b === undefined) throw new Error('wasm: LEB128 runs past the end')
    value += (b & 0x7f) * 2 ** shift
    shift += 7
    if (!(b & 0x80)) return { value, next: pos }
  }
}

export interface FunctionBody {
  index: number
  start: number
  end: number
}

function skipName(buf: Uint8Array, pos: number): number {
  const n = leb(buf, pos)
  return n.next + n.value
}

/** Function index (imports counted) -> byte range of its body (locals and instructions). */
export function functionBodies(buf: Uint8Array): FunctionBody[] {
  if (buf[0] !== 0 || buf[1] !== 0x61 || buf[2] !== 0x73 || buf[3] !== 0x6d) throw new Error('wasm: bad magic')
  let pos = 8
  let imported = 0
  const bodies: FunctionBody[] = []
  while (pos < buf.length) {
    const id = buf[pos]
    const size = leb(buf, pos + 1)
    const start = size.next
    const end = start + size.value
    if (id === 2) {
      // import: module name, field name, kind, then a kind-specific description
      let p = start
      const count = leb(buf, p)
      p = count.next
      for (let i = 0; i < count.value; i++) {
        p = skipName(buf, skipName(buf, p))
        const kind = buf[p++]
        if (kind === 0) {
          imported++
          p = leb(buf, p).next
        } // function: type index
        else if (kind === 1) {
          p++
          const f = buf[p++]
          p = leb(buf, p).next
          if (f & 1) p = leb(buf, p).next
        } // table
        else if (kind === 2) {
          const f = buf[p++]
          p = leb(buf, p).next
          if (f & 1) p = leb(buf, p).next
        } // memory
        else if (kind === 3)
          p += 2 // global: type, mutability
        else if (kind === 4) {
          p++
          p = leb(buf, p).next
        } // tag
        else throw new Error(`wasm: unknown import kind ${kind}`)
      }
    } else if (id === 10) {
      let p = start
      const count = leb(buf, p)
      p = count.next
      for (let i = 0; i < count.value; i++) {
        const len = leb(buf, p)
        bodies.push({ index: imported + i, start: len.next, end: len.next + len.value })
        p = len.next + len.value
      }
      if (p !== end) throw new Error('wasm: code section size does not match its bodies')
    }
    pos = end
  }
  return bodies
}
