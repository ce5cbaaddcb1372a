// The teacher's exports as text (issue 29): the PNG caption of the settings, the Embed box's iframe and tag
// snippets (attributes escaped, steps carried, what only a link carries said), and `steps` parsed as the
// widget's attribute and the page's URL parameter alike.
import { describe, expect, it } from 'vitest'
import { settingsCaption } from '../../web/export/caption'
import { embedUrl, iframeSnippet, linkOnly, widgetSnippet } from '../../web/export/embed'
import { translator } from '../../web/i18n'
import { defaultState, parseSteps, type Notice } from '../../web/state'

describe('PNG caption', () => {
  it('names the sentence, tokenizer, sizes, seed, rule, scale, mask and temperature (en)', () => {
    const s = { ...defaultState('en'), seed: 7, dModel: 8, temperature: 2, mask: 'causal' as const }
    expect(settingsCaption(s, translator('en'))).toEqual([
      'Sentence: “this is my cat” · Tokenizer: word-sorted',
      'd_model 8, d_q 24, d_k 24, d_v 28 · Seed 7 · scaled-dot, ÷√d_k on, Mask causal, T = 2',
    ])
  })
  it('in Chinese, cross attention, heads and edits', () => {
    const s = {
      ...defaultState('zh'),
      mode: 'cross' as const,
      heads: 2,
      head: 1,
      scale: 'off' as const,
      edits: [{ t: 'Wq' as const, r: 0, c: 0, v: 1 }],
    }
    const [a, b] = settingsCaption(s, translator('zh'))
    expect(a).toBe('编码器句子（→ K、V）: “我 爱 中国” · 解码器句子（→ Q）: “I love China” · 分词器: word-sorted')
    expect(b).toBe(
      'd_model 16, d_q 24, d_k 24, d_v 28 · 随机种子 123 · scaled-dot, ÷√d_k off, 掩码 none, T = 1 · 头数 2 (头 1) · 1 个单元格已修改',
    )
  })
})

describe('Embed snippets', () => {
  const page = 'https://course.example/play/?temperature=2&lang=zh&steps=Q'
  it('sets, replaces or drops steps in the link', () => {
    expect(embedUrl(page, ['weights'])).toBe('https://course.example/play/?temperature=2&lang=zh&steps=weights')
    expect(embedUrl(page, [])).toBe('https://course.example/play/?temperature=2&lang=zh')
    expect(iframeSnippet(page, ['weights'], 'A "title" <x>')).toBe(
      '<iframe src="https://course.example/play/?temperature=2&amp;lang=zh&amp;steps=weights" title="A &quot;title&quot; &lt;x&gt;" width="100%" height="560" style="border:0" loading="lazy"></iframe>',
    )
  })
  it('writes the state as the widget attributes, escaped', () => {
    const s = { ...defaultState('zh'), text: 'a "b" <c> & d', dModel: 8, temperature: 2 }
    const tag = widgetSnippet(s, ['scores', 'weights']).split('\n')[1]
    expect(tag).toBe(
      '<attention-playground lang="zh" text="a &quot;b&quot; &lt;c&gt; &amp; d" dmodel="8" temperature="2" steps="scores,weights"></attention-playground>',
    )
    expect(linkOnly(s)).toBe(false)
    expect(linkOnly({ ...s, padKeys: [1] })).toBe(true)
  })
})

describe('steps', () => {
  it('keeps the known names, reports the others', () => {
    const notices: Notice[] = []
    expect(parseSteps('weights, nope ,scores', notices)).toEqual(['weights', 'scores'])
    expect(notices).toEqual([{ param: 'steps', value: 'nope' }])
    expect(parseSteps('', notices)).toBeUndefined()
    expect(parseSteps(null, notices)).toBeUndefined()
    expect(parseSteps('nope2', notices)).toBeUndefined()
  })
})
