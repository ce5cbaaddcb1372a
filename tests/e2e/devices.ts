// The devices issue 29's users tried the page on (a 390 × 844 touch phone and the desktop) and its two
// languages, and opening the page as one of them; shared by first-visit, teachers and touch tests.
import type { BrowserContext, Page } from 'playwright-core'
import { settled } from './harness.mjs'
import { env } from './env'

export const DEVICES = {
  phone: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
  desktop: { viewport: { width: 1300, height: 900 }, isMobile: false, hasTouch: false },
} as const
export const CASES = (['phone', 'desktop'] as const).flatMap((device) =>
  (['en', 'zh'] as const).map((lang) => ({ device, lang })),
)

export async function openAs(
  device: keyof typeof DEVICES,
  query: string,
): Promise<{ ctx: BrowserContext; page: Page; errors: string[] }> {
  const ctx = await env.session.browser.newContext({ ...DEVICES[device], locale: 'en-US' })
  const page = await ctx.newPage()
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  await page.goto(env.site.url + query)
  await page.waitForSelector('[data-step="weights"] canvas', { state: 'attached' })
  await settled(page)
  return { ctx, page, errors }
}
