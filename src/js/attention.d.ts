// Types of the Emscripten factory (build output copied beside index.js as attention.js).
declare const createAttentionModule: (moduleArgs?: Record<string, unknown>) => Promise<unknown>
export default createAttentionModule
