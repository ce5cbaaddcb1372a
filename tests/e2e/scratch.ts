// A course project in a scratch folder, for the bundler and VitePress recipes: the packed package
// installed as a user would (npm pack + npm install), and a browser to open what gets built there.
// `work` and `browser` are live bindings, read by the tests once usePackedProject's beforeAll ran.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll } from 'vitest'
import { launchChromium } from './harness.mjs'
import { installTarball, packTarball } from '../support/packed'

export let work: string
export let browser: Browser

/**
 * @param prefix the scratch folder's name prefix (under the system's temporary folder)
 * @param steps `require` throws (with the install command) when a tool the file needs is missing; `prepare`
 *   adds the project's own files after the install
 */
export function usePackedProject(prefix: string, steps: { require: () => void; prepare: (dir: string) => void }) {
  let closeBrowser: (() => Promise<void>) | undefined
  beforeAll(async () => {
    steps.require()
    work = mkdtempSync(join(tmpdir(), prefix))
    // One install serves every project below it (Node resolution walks up to work/node_modules).
    installTarball(packTarball(work), work)
    steps.prepare(work)
    ;({ browser, close: closeBrowser } = await launchChromium())
  }, 180_000)

  afterAll(async () => {
    await closeBrowser?.()
    if (work) rmSync(work, { recursive: true, force: true })
  })
}
