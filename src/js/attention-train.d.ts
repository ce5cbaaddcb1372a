// Types of the trainer module's Emscripten factory (attention-train.js beside index.js; src/bindings/train*.cpp).
declare const createTrainerModule: (moduleArgs?: Record<string, unknown>) => Promise<unknown>
export default createTrainerModule
