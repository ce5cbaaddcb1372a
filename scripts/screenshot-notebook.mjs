#!/usr/bin/env node
// docs/notebook.png: the widget in a Jupyter notebook, for the README, taken by the notebook e2e test itself
// (tests/e2e/notebook.test.ts: Debian's Jupyter Notebook running tests/e2e/fixtures/notebook/attention.ipynb in
// Chromium) with AP_NOTEBOOK_SCREENSHOT set. Needs the build (node scripts/build.mjs) and ensure-deps --test.
// Usage: node scripts/screenshot-notebook.mjs
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { ROOT } from '../tests/e2e/harness.mjs'

const out = join(ROOT, 'docs/notebook.png')
execFileSync(
  process.execPath,
  [
    join(ROOT, 'node_modules/vitest/vitest.mjs'),
    'run',
    '--project',
    'e2e',
    'tests/e2e/notebook.test.ts',
    '-t',
    'runs show',
  ],
  { cwd: ROOT, stdio: 'inherit', env: { ...process.env, AP_NOTEBOOK_SCREENSHOT: out } },
)
console.log('wrote', out)
