// The teacher's exports as text (issue 29): the PNG caption of the settings, the Embed box's iframe and tag
// snippets (attributes escaped, steps carried, what only a link carries said), and `steps` parsed as the
// widget's attribute and the page's URL parameter alike.
import { describe, expect, it } from 'vitest'
import { settingsCaption } from '../../web/export/caption'
import { embedUrl, iframeSnippet, linkOnly, widgetScript, widgetSnippet } from '../../web/export/embed'
import { translator } from '../../web/i18n'
import { defaultState, parseParams, toParams } from '../../web/state'

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
      'd_model 16, d_q 24, d_k 24, d_v 28 · 随机种子 123 · scaled-dot, ÷√d_k off, 掩码 none, T = 1 · 头数 2 (头 2) · 1 个单元格已修改',
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
    const [script, tag] = widgetSnippet({ ...s, step: 2 }, ['scores', 'weights'], widgetScript(page)).split('\n')
    expect(script).toBe('<script type="module" src="https://course.example/play/widget/widget.js"></script>')
    expect(tag).toBe(
      '<attention-playground lang="zh" text="a &quot;b&quot; &lt;c&gt; &amp; d" dmodel="8" temperature="2" step="2" steps="scores,weights"></attention-playground>',
    )
    expect(linkOnly(s)).toBe(false)
    expect(linkOnly({ ...s, padKeys: [1] })).toBe(true)
  })
  it('carries a fallback line inside the tag, escaped, with a link to the view on the page', () => {
    const fallback = { text: 'Loads <here> & "now"', link: 'Open it', href: embedUrl(page, []) }
    const [, tag, line, end] = widgetSnippet(defaultState('en'), [], widgetScript(page), fallback).split('\n')
    expect(tag).toBe('<attention-playground lang="en">')
    expect(line).toBe(
      '  <p class="ap-fallback">Loads &lt;here&gt; &amp; &quot;now&quot; <a href="https://course.example/play/?temperature=2&amp;lang=zh">Open it</a></p>',
    )
    expect(end).toBe('</attention-playground>')
  })
})

describe('steps (a PARAMS row: the URL parameter and the widget attribute)', () => {
  const read = (v: string) => parseParams(new URLSearchParams({ steps: v }), defaultState('en'))
  it('keeps the known names and names the others in a notice', () => {
    const r = read('weights, nope ,scores')
    expect(r.state.steps).toEqual(['weights', 'scores'])
    expect(r.notices).toEqual([{ param: 'steps', value: 'nope' }])
    expect([read('').state.steps, read('').notices]).toEqual([[], []])
    expect([read('nope2').state.steps, read('nope2').notices]).toEqual([[], [{ param: 'steps', value: 'nope2' }]])
  })
  it('goes into a link only when given, and reads back', () => {
    expect(toParams(defaultState('en')).has('steps')).toBe(false)
    const s = { ...defaultState('en'), steps: ['weights', 'lines'] }
    expect(toParams(s).get('steps')).toBe('weights,lines')
    expect(parseParams(toParams(s), defaultState('en')).state).toEqual(s)
  })
})
