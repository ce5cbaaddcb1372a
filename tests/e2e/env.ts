// The servers and the browser of a real-browser test file: useEnv() starts them before its tests and stops
// them after; `env` is a live binding, read by the tests once started.
import { afterAll, beforeAll } from 'vitest'
import { startAll } from './harness.mjs'

export let env: Awaited<ReturnType<typeof startAll>>

/** @param requirement checks a tool the file needs first, throwing with its install command */
export function useEnv(requirement?: () => void): void {
  beforeAll(async () => {
    requirement?.()
    env = await startAll()
  })
  afterAll(async () => {
    await env?.close()
  })
}
