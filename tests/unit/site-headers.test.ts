// The site's header table (public/_headers, issue 39 item 2), read as Netlify and Cloudflare Pages read it, and what
// `npm start` sends (scripts/serve.mjs SITE_HEADERS): the page keeps COOP/COEP (threads), widget/ and the engines are open to course pages on other
// sites (CORS, CORP cross-origin).
import { describe, expect, it } from 'vitest'
import { headersFor, parseHeaders } from '../../scripts/site-headers.mjs'
import { SITE_HEADERS } from '../../scripts/serve.mjs'

const ISOLATED = {
  'x-content-type-options': 'nosniff',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
}
const OPEN = { 'Access-Control-Allow-Origin': '*', 'Cross-Origin-Resource-Policy': 'cross-origin' }

describe('public/_headers', () => {
  it('the page and its assets: cross-origin isolated, nothing more', () => {
    for (const path of ['/', '/index.html', '/assets/index-abc.js', '/samples/induction.safetensors'])
      expect(SITE_HEADERS(path), path).toEqual(ISOLATED)
  })
  it('widget/ and every engine the widget fetches: CORS and CORP for another site', () => {
    for (const path of [
      '/widget/widget.js',
      '/widget/train-worker-C_fsK-PB.js',
      '/attention.wasm',
      '/attention-relaxed.wasm',
      '/attention-train.wasm',
      '/attention-train-relaxed.wasm',
    ])
      expect(SITE_HEADERS(path), path).toEqual({ ...ISOLATED, ...OPEN })
  })
})

describe('the _headers reader', () => {
  it('reads rules and comments; * matches any run of characters; a header of two rules gets both values', () => {
    const rules = parseHeaders('# c\n/*\n  A: 1\n/x/*.js\n  B: 2\n  A: 3\n')
    expect(headersFor(rules, '/x/y/z.js')).toEqual({ A: '1, 3', B: '2' })
    expect(headersFor(rules, '/x.js')).toEqual({ A: '1' })
  })
  it('refuses a header line outside a rule', () => {
    expect(() => parseHeaders('  A: 1\n')).toThrow(/line 1/)
  })
})
