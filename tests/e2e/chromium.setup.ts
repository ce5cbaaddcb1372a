// The e2e tier's one Chromium, TEST_CHROMIUM (the headless shell; vitest.config.ts, globalSetup of the e2e project):
// launched once before the test files, its endpoint handed to their workers in AP_CHROMIUM_WS (tests/e2e/harness.mjs
// launchChromium connects to it), closed after the last file. Each test still gets a browser context of its own
// (tests/e2e/page-fixture.ts).
import { chromium } from 'playwright-core'
import { CHROMIUM_ARGS, droppedFeatures, requireChromium, TEST_CHROMIUM } from './harness.mjs'

export default async function setup(): Promise<() => Promise<void>> {
  requireChromium()
  const server = await chromium.launchServer({ executablePath: TEST_CHROMIUM, args: CHROMIUM_ARGS })
  const dropped = droppedFeatures(server.process().spawnargs)
  if (dropped.length > 0) {
    await server.close()
    throw new Error(
      `playwright-core now turns off Chromium features that CHROMIUM_ARGS's --disable-features (the one Chromium reads) would turn back on: ${dropped.join(', ')}; add them to PLAYWRIGHT_DISABLED_FEATURES in tests/e2e/harness.mjs`,
    )
  }
  process.env.AP_CHROMIUM_WS = server.wsEndpoint()
  return async () => {
    delete process.env.AP_CHROMIUM_WS
    await server.close()
  }
}
