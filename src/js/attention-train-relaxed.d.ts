// Types of the relaxed-SIMD trainer module's Emscripten factory (attention-train-relaxed.js beside index.js).
declare const createTrainerModule: (moduleArgs?: Record<string, unknown>) => Promise<unknown>
export default createTrainerModule
