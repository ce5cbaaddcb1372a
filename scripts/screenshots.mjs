#!/usr/bin/env node
// The README's first screenshots: what a newcomer sees on opening the page (controls, tokens, the first
// panels), in English and in Chinese, taken from the built site in the tests' Chromium.
// Usage: node scripts/build.mjs --site && node scripts/screenshots.mjs   → docs/screenshot-en.png, docs/screenshot-zh.png
import { join } from 'node:path'
import { CHROMIUM, ROOT, launchChromium, serveStatic, settled } from '../tests/e2e/harness.mjs'

const server = await serveStatic()
const session = await launchChromium(CHROMIUM)
try {
  for (const [lang, locale] of [
    ['en', 'en-US'],
    ['zh', 'zh-CN'],
  ]) {
    // A laptop's window, as a first visit: the URL gives only the language, everything else is the default.
    const page = await session.browser.newPage({
      viewport: { width: 1280, height: 800 },
      locale,
      reducedMotion: 'reduce',
    })
    await page.goto(`${server.url}?lang=${lang}`)
    await page.waitForSelector('[data-step="embeddings"] canvas', { state: 'attached' })
    await page.evaluate(() => document.fonts.ready)
    await settled(page)
    const file = join(ROOT, `docs/screenshot-${lang}.png`)
    await page.screenshot({ path: file })
    console.log(`wrote ${file}`)
    await page.close()
  }
} finally {
  await session.close()
  await server.close()
}
