// The page's and the widget's words for an engine that did not load (issue 39 item 2): a WasmLoadError's fields
// (the URL tried, what came back, the package's file) in the page's language, never Emscripten's "Aborted(…)".
import { describe, expect, it } from 'vitest'
import { loadFailureText } from '../../web/engine-errors'
import { translator } from '../../web/i18n'

/** What init() rejects with (src/js/load-error.ts), as the page receives it: read by its name and fields. */
const failure = (fields: Record<string, unknown>) =>
  Object.assign(new Error('init: …'), { name: 'WasmLoadError', file: 'attention-relaxed.wasm', detail: '', ...fields })

describe('loadFailureText', () => {
  const url = 'https://course.example/attention-relaxed.wasm'
  it('names the URL, the status and what to serve there (en)', () => {
    expect(loadFailureText(translator('en'), failure({ url, reason: 'http', status: 404 }))).toBe(
      `The engine (WebAssembly) did not load from ${url}: the server answered HTTP 404. Serve the npm package’s dist/attention-relaxed.wasm at that address, unchanged, with Content-Type application/wasm: the widget looks for the engines one folder above widget/widget.js.`,
    )
  })
  it('in Chinese, with no answer (a refused cross-origin request looks the same)', () => {
    const text = loadFailureText(translator('zh'), failure({ url, reason: 'network', status: null }))
    expect(text).toBe(
      `计算引擎（WebAssembly）没能从 ${url} 加载：没有应答（服务器无法访问，或它拒绝来自其他站点的页面：这个文件需要带上 Access-Control-Allow-Origin 响应头）。请在这个地址原样提供 npm 包中的 dist/attention-relaxed.wasm，Content-Type 设为 application/wasm：组件在 widget/widget.js 的上一级目录里寻找引擎。`,
    )
  })
  it('an answer that is not the file, and a file that does not compile', () => {
    const en = translator('en')
    expect(loadFailureText(en, failure({ url, reason: 'type', status: 200, contentType: 'text/html' }))).toContain(
      'the answer was text/html, not the wasm file',
    )
    expect(
      loadFailureText(en, failure({ url, reason: 'compile', detail: 'CompileError: expected magic word' })),
    ).toContain('the file is not a module this engine can run (CompileError: expected magic word)')
  })
  it('any other failure keeps the package words after the page’s lead', () => {
    expect(loadFailureText(translator('en'), new Error('boom'))).toBe('The engine could not be loaded: boom')
  })
})
