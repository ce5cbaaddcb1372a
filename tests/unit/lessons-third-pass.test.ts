// Issue 36 ("Lessons right, third pass"), the items whose value lives in the string tables or in the DOM-free compute
// layer: four common ways to add positions (item 5), one numbering of heads and layers on every tab (6), sliding
// windows (7), the KV cache's count (8), FlashAttention's reason and its figures (9), ALiBi's bidirectional variant and
// the RoPE quiz's cells (10), the trained parameters (11). The engine-backed items are tests/engine/lessons-third-pass.
import { describe, expect, it } from 'vitest'
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { MESSAGES } from '../../web/i18n'
import { MODERN } from '../../web/i18n/modern'
import { TRAIN } from '../../web/i18n/train'
import { kvStepCost } from '../../web/compute/kv-cache'
import { kvHeadOf, windowCell } from '../../web/compute/grouped-heads'
import { KERNEL_FIGURE_D, kernelTileFloats } from '../../web/compute/flash'
import { oneBased } from '../../web/format'
import { TABLES } from '../support/string-tables'
import { REPO_ROOT } from '../support/sources'

const read = (p: string) => readFileSync(join(REPO_ROOT, p), 'utf8')
const LANGS = ['en', 'zh'] as const

describe('item 5: four common ways, not the only four', () => {
  it('no string says every model adds positions in one of four ways', () => {
    for (const lang of LANGS) {
      const all = [MESSAGES[lang].positionsHint, MESSAGES[lang].posViewLead].join(' ')
      expect(all, lang).not.toMatch(/one of (these )?four ways|every model you will meet|四种方法之一|方法有四种/)
    }
    expect(MESSAGES.en.posViewLead).toContain('four common ways')
    expect(MESSAGES.en.posViewLead).toMatch(/T5.*Transformer-XL.*DeBERTa.*xPos/)
    expect(MESSAGES.zh.posViewLead).toContain('四种常见方法')
    expect(read('docs/positions.md')).toContain('four common ways')
  })
})

/** The visible-label sources: every view, panel, the Train tab and the export caption. */
const SOURCES = ['web/views', 'web/panels', 'web/train', 'web/export'].flatMap((d) =>
  readdirSync(join(REPO_ROOT, d))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => ({ file: `${d}/${f}`, text: read(`${d}/${f}`) })),
)

describe('item 6: heads and layers counted from 1 on every tab', () => {
  it('no string table names a head or a layer 0 (the export’s program comments, which are code, aside)', () => {
    const zero = /\b(head|layer|Layer|Head) 0\b|头 0|第 0 (层|个头)|第 0 层/
    for (const { name, table } of TABLES) {
      if (name.startsWith('export-comments')) continue
      for (const lang of LANGS)
        for (const [k, s] of Object.entries(table[lang])) expect(s, `${name}.${lang}.${k}`).not.toMatch(zero)
    }
  })

  it('every label that puts a head or layer index into text goes through oneBased', () => {
    // `${t('headN')} ${x}` (the pipeline, ALiBi, the long-text panel, the caption, the model view)
    let seen = 0
    for (const { file, text } of SOURCES)
      for (const m of text.matchAll(/\$\{t\('headN'\)\} \$\{([^}]*)\}/g)) {
        seen++
        expect(m[1], `${file}: ${m[0]}`).toMatch(/^oneBased\(/)
      }
    expect(seen).toBeGreaterThanOrEqual(5)
    // Every key whose text has a head or layer placeholder: where the views fill it, oneBased is at hand.
    const placeholder = /\{(h|l|g|layer|head)\}/
    const keys = TABLES.flatMap(({ table }) => Object.keys(table.en).filter((k) => placeholder.test(table.en[k])))
    expect(keys).toEqual(expect.arrayContaining(['headsShare', 'sinksHeadTitle', 'sinksFound', 'headLine']))
    for (const k of keys) {
      const uses = SOURCES.flatMap(({ file, text }) =>
        [...text.matchAll(new RegExp(`'${k}'`, 'g'))].map((m) => ({
          file,
          around: text.slice(m.index - 400, m.index + 200),
        })),
      )
      expect(uses.length, k).toBeGreaterThan(0)
      for (const u of uses) expect(u.around, `${u.file}: ${k}`).toContain('oneBased(')
    }
    expect(oneBased(0)).toBe(1)
  })

  it('the convention is stated once for the page, and the heads quiz says it and answers by it', () => {
    expect(MESSAGES.en.countedFromOne).toMatch(/counted from 1.*head 1 is the first head/)
    expect(MESSAGES.zh.countedFromOne).toContain('从 1 开始数')
    expect(read('docs/lessons.md')).toMatch(/counted from 1/)
    for (const lang of LANGS) {
      const prompt = MODERN[lang].quizHeadsGroupPrompt
      expect(prompt, lang).toMatch(lang === 'en' ? /counted from 1/ : /从 1 开始数/)
      const [H, kv, q] = (
        lang === 'en'
          ? /With (\d+) query heads and (\d+) K\/V heads.*query head (\d+) read/
          : /(\d+) 个查询头、(\d+) 个 K\/V 头.*查询头 (\d+) 读/
      )
        .exec(prompt)!
        .slice(1)
        .map(Number)
      // Query head q counted from 1 is index q − 1; Hugging Face's repeat_kv maps it to ⌊index · kv / H⌋.
      const want = oneBased(kvHeadOf(q - 1, kv, H))
      expect(want).toBe(4)
      expect(MODERN[lang].quizHeadsGroupRight, lang).toMatch(new RegExp(`K/V (head |头 )${want}$`))
      for (const w of [1, 2, 3] as const)
        expect(MODERN[lang][`quizHeadsGroupWrong${w}`], lang).not.toBe(MODERN[lang].quizHeadsGroupRight)
    }
  })

  it('the Train tab’s induction text and the sample model’s note name the same layers the same way', () => {
    // The circuit: a first-layer head feeds the second layer's induction head, in both texts.
    expect(TRAIN.en.inductionExplain).toMatch(/stripe in layer 2/)
    expect(TRAIN.en.inductionExplain).toMatch(/if layer 1 has written/)
    expect(MESSAGES.en.modelSampleNote).toMatch(/Look at layer 2/)
    expect(MESSAGES.en.modelSampleNote).toMatch(/Layer 1, head 2 makes that possible/)
    expect(MESSAGES.zh.modelSampleNote).toMatch(/请看第 2 层/)
  })
})

describe('item 7: sliding windows, model by model', () => {
  it('names Mistral-7B v0.1, Gemma 2 and 3’s interleaving, and “up to” L·W', () => {
    const en = MODERN.en.headsWindowLead
    expect(en).not.toMatch(/Mistral and Gemma limit/)
    expect(en).toMatch(/Mistral-7B v0\.1/)
    expect(en).toMatch(/Gemma 2 and 3 interleave/)
    expect(en).toMatch(/Gemma 1 attends over everything/)
    expect(en).toMatch(/up to about L·W/)
    const zh = MODERN.zh.headsWindowLead
    expect(zh).not.toMatch(/Mistral 和 Gemma 让/)
    expect(zh).toMatch(/Mistral-7B v0\.1.*Gemma 2 和 3.*Gemma 1/)
    expect(zh).toMatch(/最多大约能回看 L·W/)
  })
})

describe('item 8: the KV cache’s “without” count is the sentence’s', () => {
  it('one layer without a cache recomputes all t rows of K and V, then the same one query row', () => {
    for (const d of [
      { dModel: 16, dq: 24, dk: 24, dv: 28 },
      { dModel: 8, dq: 4, dk: 4, dv: 6 },
    ])
      for (let t = 1; t <= 9; t++) {
        const c = kvStepCost(t, d)
        // Written out: q of the new row (dModel·dq), k and v of all t rows, t scores and the weighted sum of t rows.
        const qRow = d.dModel * d.dq
        const kvRows = t * d.dModel * (d.dk + d.dv)
        const attnRow = t * d.dk + t * d.dv
        expect(c.withoutMacs, `t ${t}`).toBe(qRow + kvRows + attnRow)
        expect(c.withMacs, `t ${t}`).toBe(qRow + d.dModel * (d.dk + d.dv) + attnRow)
        expect(c.withoutMacs - c.withMacs).toBe((t - 1) * d.dModel * (d.dk + d.dv))
        expect(c.withoutBytes).toBe(2 * t * (d.dk + d.dv) * 4)
      }
    expect(MODERN.en.kvLead).toContain('recompute all t rows of K and V before the same one row of attention')
    expect(MODERN.en.kvLead).toContain('runs the whole prefix again')
    expect(MODERN.zh.kvLead).toContain('重算全部 t 行 K 和 V')
    expect(MODERN.zh.kvLead).toContain('整个前缀重新跑一遍')
  })
})

describe('item 9: why FlashAttention is faster, and its figures', () => {
  it('says the n×n matrix never goes to slow memory (HBM), with the same multiply-adds', () => {
    expect(MODERN.en.flashLead).toMatch(/same multiply-adds/)
    expect(MODERN.en.flashLead).toMatch(/never written to or read back from slow memory \(HBM\)/)
    expect(MODERN.en.flashLead).toContain('Dao et al., 2022')
    expect(MODERN.zh.flashLead).toMatch(/HBM/)
    expect(MODERN.zh.flashLead).toContain('Dao 等，2022')
    expect(MODERN.en.flashKernel).toMatch(/saves work only under such a mask/)
  })

  it('the 4096 figure names its d_v, and the tile counts follow the kernel’s rule for d > 64', () => {
    for (const lang of LANGS) expect(MODERN[lang].flashMemory, lang).toContain('d_v = {kdv}')
    // src/kernels/kernels.h: br 36, bc 128 for d ≤ 64, 64 above.
    const h = read('src/kernels/kernels.h')
    const br = Number(/the kernel's br \((\d+)\)/.exec(h)![1])
    const [bc, half] = /the kernel's bc for d <= 64 \((\d+); (\d+) above\)/.exec(h)!.slice(1).map(Number)
    expect(KERNEL_FIGURE_D).toBe(64)
    expect(kernelTileFloats(br, bc, 64)).toBe(br * bc + br * 66)
    expect(kernelTileFloats(br, bc, 128)).toBe(br * half + br * 130)
    expect(MODERN.en.quizFlashMemoryExplain).toContain(`${br} query rows × ${bc} keys, or × ${half} keys when d > 64`)
    expect(MODERN.zh.quizFlashMemoryExplain).toContain(`${br} 个查询行 × ${bc} 个键，d > 64 时 × ${half} 个键`)
  })
})

describe('item 10: ALiBi without a mask, and the RoPE quiz’s cells', () => {
  it('labels unmasked ALiBi a bidirectional variant', () => {
    for (const k of ['posAlibiLead', 'helpPositionBias'] as const) {
      expect(MESSAGES.en[k], k).toMatch(/bidirectional variant \(as in MosaicBERT\)/)
      expect(MESSAGES.zh[k], k).toMatch(/双向的变体（如 MosaicBERT）/)
    }
  })

  it('the RoPE quiz’s query stands at or after its key in both placements, at the same offset', () => {
    for (const lang of LANGS) {
      const n = [...MESSAGES[lang].quizRopePrompt.matchAll(/\d+(?:\.\d+)?/g)].map((m) => Number(m[0]))
      const [q1, k1, , q2, k2] = n
      expect(q1, lang).toBeGreaterThanOrEqual(k1)
      expect(q2, lang).toBeGreaterThanOrEqual(k2)
      expect(q2 - k2, lang).toBe(q1 - k1)
      expect(MESSAGES[lang].quizRopeRight, lang).toContain(String(q1 - k1))
    }
  })
})

describe('item 11: the trained parameters, as the trainer holds them', () => {
  it('names every parameter of a layer of src/core/train.h, the embeddings, positions and output layer', () => {
    const h = read('src/core/train.h')
    const fields = /struct LayerIdx \{\s*int ([^;]+);/
      .exec(h)![1]
      .split(',')
      .map((s) => s.trim())
    expect(fields).toEqual(['Wq', 'Wk', 'Wv', 'Wo', 'bo'])
    const shown = fields.map((f) => `${f[0]}_${f.slice(1)}`)
    for (const lang of LANGS) {
      for (const s of [TRAIN[lang].intro, MESSAGES[lang].quizTrainRight])
        for (const p of shown) expect(s, `${lang}: ${p}`).toContain(p)
    }
    expect(TRAIN.en.intro).toMatch(/embeddings.*position table.*output layer/)
    expect(TRAIN.zh.intro).toMatch(/词嵌入.*位置表.*输出层/)
    expect(MESSAGES.en.quizTrainRight).toMatch(/position table and an output layer/)
  })
})

describe('the teacher’s read (Deliver 2): quiz questions with one defensible answer', () => {
  it('the window quiz says positions count from 0, and its answer is the view’s own window rule', () => {
    for (const lang of LANGS) {
      const prompt = MODERN[lang].quizHeadsWindowPrompt
      expect(prompt, lang).toMatch(lang === 'en' ? /Positions counted from 0/ : /位置从 0 开始数/)
      const [w, k, i] = (
        lang === 'en' ? /W = (\d+) with (\d+) sink.*query (\d+) see/ : /W = (\d+)、(\d+) 个汇聚词.*查询 (\d+) 能/
      )
        .exec(prompt)!
        .slice(1)
        .map(Number)
      const seen = Array.from({ length: i + 1 }, (_, j) => j).filter((j) => windowCell(i, j, w, k) !== 'out')
      const right = [...MODERN[lang].quizHeadsWindowRight.matchAll(/\d+/g)].map((m) => Number(m[0]))
      expect(right, lang).toEqual(seen)
      expect(seen).toEqual([0, 4, 5, 6])
    }
  })

  it('÷√d_k is not promised to stop saturation (the course’s own torch.rand example saturates)', () => {
    expect(MESSAGES.en.quizScaleWhatRight).not.toMatch(/does not saturate/)
    expect(MESSAGES.zh.quizScaleWhatRight).not.toMatch(/不会饱和/)
    for (const lang of LANGS)
      for (const k of ['quizScaleExplain', 'quizScaleWhatExplain'] as const)
        expect(MESSAGES[lang][k], `${lang}.${k}`).toContain('torch.rand')
  })
})
