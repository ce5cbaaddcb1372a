// The file formats with no engine: safetensors and the attention-file reader (a model's attention weights), the
// `attention-playground/files` entry, which loads no wasm. The main entry re-exports every name here.
export { AttentionError } from './util.js'
export { readSafetensors, writeSafetensors, safetensorsHeaderLength, SAFETENSORS_LIMITS } from './safetensors.js'
export type { SafetensorsDtype, SafetensorsFile, SafetensorsTensor } from './safetensors.js'
export { readAttentionFile, ATTENTION_FILE_LIMITS } from './attentionFile.js'
export type { AttentionFile, AttentionFileLayer } from './attentionFile.js'
