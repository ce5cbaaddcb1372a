// Does this runtime run relaxed SIMD? Asked by validating the smallest module that uses a relaxed-SIMD
// instruction, which runtimes without it reject: (func (param v128 v128 v128) (result v128)
// (f32x4.relaxed_madd (local.get 0) (local.get 1) (local.get 2))).
const MAGIC = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00] // "\0asm", version 1
const TYPES = [0x01, 0x08, 0x01, 0x60, 0x03, 0x7b, 0x7b, 0x7b, 0x01, 0x7b] // one type: (v128 v128 v128) -> v128
const FUNCTIONS = [0x03, 0x02, 0x01, 0x00] // one function of that type
// Its code: no locals, local.get 0, 1, 2, f32x4.relaxed_madd (0xfd 0x85 0x02), end.
const CODE = [0x0a, 0x0d, 0x01, 0x0b, 0x00, 0x20, 0x00, 0x20, 0x01, 0x20, 0x02, 0xfd, 0x85, 0x02, 0x0b]
export const RELAXED_PROBE = new Uint8Array([...MAGIC, ...TYPES, ...FUNCTIONS, ...CODE])

/** Does this runtime run relaxed SIMD (checked by validating a tiny module)? */
export function supportsRelaxedSimd(): boolean {
  try {
    return typeof WebAssembly === 'object' && WebAssembly.validate(RELAXED_PROBE)
  } catch {
    return false
  }
}
