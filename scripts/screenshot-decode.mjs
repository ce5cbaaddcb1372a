#!/usr/bin/env node
// docs/decode-zh.png: the decode view in Chinese, for the README. Needs the built site
// (node scripts/build.mjs --site) and Debian's Chromium. Usage: node scripts/screenshot-decode.mjs
import { join } from 'node:path'
import { CHROMIUM, ROOT, launchChromium, serveStatic, settled } from '../tests/e2e/harness.mjs'

const server = await serveStatic()
const session = await launchChromium(CHROMIUM)
try {
  const page = await session.browser.newPage({ viewport: { width: 1280, height: 900 }, locale: 'zh-CN' })
  const q = new URLSearchParams({
    lang: 'zh',
    view: 'decode',
    mode: 'cross',
    source: '我 爱 中国',
    target: 'I love China',
  })
  await page.goto(`${server.url}?${q}`)
  await page.waitForSelector('[data-step="decode"] [data-decode="context"]')
  await page.locator('button[name="decodeStep"]').click()
  await page.locator('button[name="decodeStep"]').click()
  await settled(page)
  const out = join(ROOT, 'docs/decode-zh.png')
  await page.locator('[data-step="decode"]').screenshot({ path: out })
  console.log('wrote', out)
} finally {
  await session.close()
  await server.close()
}
