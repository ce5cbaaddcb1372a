// The repository's own TypeScript files, read as text by the tests that check a rule over all of them
// (web-rules: no rule told apart outside a table; web-layers: engine calls only in web/compute/).
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url))

/** Every .ts file under `dir` (relative to the repository), as repository-relative paths. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(join(REPO_ROOT, dir)).flatMap((f) => {
    const p = join(dir, f)
    if (statSync(join(REPO_ROOT, p)).isDirectory()) return sourceFiles(p)
    return p.endsWith('.ts') ? [p] : []
  })
}

/** A file's lines, each as `path:line: text` (trimmed), for failures that say where. */
export function numberedLines(f: string): string[] {
  return readFileSync(join(REPO_ROOT, f), 'utf8')
    .split('\n')
    .map((line, i) => `${f}:${i + 1}: ${line.trim()}`)
}
