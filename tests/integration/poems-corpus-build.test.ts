// The committed poems corpus is what scripts/poems-corpus.mjs makes: the script runs again into a scratch folder
// (packing chinese-poetry 2.0.1 and opencc-js 1.4.2 with npm into its cache folder first when they are not there;
// their integrity checked) and every file it writes has the committed bytes. Slow (the 85 MB package; 10-60 s).
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = new URL('../../', import.meta.url).pathname
const COMMITTED = join(ROOT, 'public/poems')

describe('scripts/poems-corpus.mjs', () => {
  it('writes the committed public/poems byte for byte', () => {
    const out = mkdtempSync(join(tmpdir(), 'ap-poems-'))
    try {
      const log = execFileSync(process.execPath, [join(ROOT, 'scripts/poems-corpus.mjs'), '--out', out], {
        encoding: 'utf8',
        timeout: 600_000,
      })
      expect(JSON.parse(log).train).toBeGreaterThan(15000)
      const files = readdirSync(out).sort()
      expect(files).toEqual(['LICENSE', 'README.md', 'train.txt', 'validation.txt', 'vocab.json'])
      expect(readdirSync(COMMITTED).sort()).toEqual(files)
      for (const f of files) {
        const a = readFileSync(join(out, f))
        const b = readFileSync(join(COMMITTED, f))
        expect(a.equals(b), `${f}: ${a.length} bytes made, ${b.length} committed`).toBe(true)
      }
    } finally {
      rmSync(out, { recursive: true, force: true })
    }
  }, 660_000)
})
