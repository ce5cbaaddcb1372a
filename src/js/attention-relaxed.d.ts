// Types of the relaxed-SIMD engine's Emscripten factory (attention-relaxed.js beside index.js).
declare const createAttentionModule: (moduleArgs?: Record<string, unknown>) => Promise<unknown>
export default createAttentionModule
