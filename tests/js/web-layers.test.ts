// The page's compute layer (docs/design.md, "Web"): every engine call of the page is in web/compute/ (the Train
// tab's worker in web/train/ runs its own engine), and web/compute/ draws nothing: it imports no DOM module and
// touches no document. ESLint's no-restricted-syntax rule for web/ (eslint.config.js) says the same per call.
import { describe, expect, it } from 'vitest'
import { numberedLines as lines, sourceFiles as sources } from './sources'

const ENGINE_CALL =
  /\.(run|projections|attention|attentionBackward|runBackward|multiHeadAttention|flashTrace|tokenize|createTrainer)\s*!?\s*(\?\.)?\s*\(/

describe('one compute layer', () => {
  const web = sources('web')
  const outside = web.filter((f) => !f.startsWith('web/compute/') && !f.startsWith('web/train/'))
  const compute = web.filter((f) => f.startsWith('web/compute/'))

  it('no engine call outside web/compute/ and web/train/', () => {
    expect(outside.flatMap(lines).filter((l) => ENGINE_CALL.test(l.replace(/\/\/.*$/, '')))).toEqual([])
  })

  it('web/compute/ draws nothing: no DOM module, no document', () => {
    const dom = /from '\.\.\/(dom|heatmap|panels|views|shell|context|playground)\b|\bdocument\.|HTMLElement/
    expect(compute.flatMap(lines).filter((l) => dom.test(l))).toEqual([])
  })

  it('the scan finds the engine calls where they are', () => {
    const hits = compute.flatMap(lines).filter((l) => ENGINE_CALL.test(l))
    for (const f of [
      'run.ts',
      'long-rows.ts',
      'decoder.ts',
      'decode.ts',
      'backward.ts',
      'scaling.ts',
      'flash.ts',
      'grouped-heads.ts',
      'sinks.ts',
      'kv-cache.ts',
    ])
      expect(
        hits.some((l) => l.startsWith(`web/compute/${f}:`)),
        f,
      ).toBe(true)
    expect(ENGINE_CALL.test('engine.attention!({')).toBe(true)
    expect(ENGINE_CALL.test('this.engine.run(opts)')).toBe(true)
  })
})
