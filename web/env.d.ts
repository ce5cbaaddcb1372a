// The page only needs init(); the engine's own types live in dist/ once it is built, and the page
// describes the part it uses in engine-types.ts.
declare module 'attention-playground' {
  export function init(options?: unknown): Promise<unknown>
}
