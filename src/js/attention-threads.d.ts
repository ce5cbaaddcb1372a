// Types of the threaded engine's Emscripten factory (attention-threads.js beside index.js).
declare const createAttentionModule: (moduleArgs?: Record<string, unknown>) => Promise<unknown>
export default createAttentionModule
