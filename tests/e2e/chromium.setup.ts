// The e2e tier's one Chromium (vitest.config.ts, globalSetup of the e2e project): launched once before the test
// files, its endpoint handed to their workers in AP_CHROMIUM_WS (tests/e2e/harness.mjs launchChromium connects to
// it), closed after the last file. Each test still gets a browser context of its own (tests/e2e/page-fixture.ts).
import { chromium } from 'playwright-core'
import { CHROMIUM, CHROMIUM_ARGS, requireChromium } from './harness.mjs'

export default async function setup(): Promise<() => Promise<void>> {
  requireChromium()
  const server = await chromium.launchServer({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
  process.env.AP_CHROMIUM_WS = server.wsEndpoint()
  return async () => {
    delete process.env.AP_CHROMIUM_WS
    await server.close()
  }
}
