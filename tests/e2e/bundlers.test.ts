// A course author's project with a bundler: the packed package installed with npm, src/main.js importing the
// engine and the widget exactly as docs/embedding.md says, built for production by Vite, webpack 5, Rollup and
// esbuild with docs/embedding.md's recipe for each, served, and opened in Chromium. The widget must survive
// tree-shaking (package.json "sideEffects") and find its wasm; ap.run() must give the course's numbers.
import { execFileSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { readPanel, serveStatic } from './harness.mjs'
import { courseWeights, docBlock, ROOT } from '../support/packed'
import { browser, usePackedProject, work } from './scratch'
import { usePages } from './page-fixture'

/** The bundlers come from the repository's devDependencies, as a course project would have its own. */
const TOOLS = {
  vite: 'node_modules/vite/bin/vite.js',
  webpack: 'node_modules/webpack/package.json',
  'webpack-cli': 'node_modules/webpack-cli/bin/cli.js',
  rollup: 'node_modules/rollup/dist/bin/rollup',
  '@rollup/plugin-node-resolve': 'node_modules/@rollup/plugin-node-resolve/package.json',
  esbuild: 'node_modules/esbuild/bin/esbuild',
}
const INSTALL =
  'npm install -D -E vite@8.3.8 webpack@5.113.0 webpack-cli@7.3.1 rollup@4.68.8 @rollup/plugin-node-resolve@16.0.3 esbuild@0.28.2'

// What docs/embedding.md tells a course author to write (docs/embedding.md, "With a bundler").
const MAIN_JS = docBlock("The course project's `src/main.js`")
const page = (script: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>A course page</title><link rel="icon" href="data:,"></head>
<body>
<attention-playground text="this is my cat"></attention-playground>
<attention-playground id="tr" steps="train"></attention-playground>
<pre id="run"></pre>
${script}
</body></html>
`

// docs/embedding.md's Rollup config: node-resolve, plus the wasm copied beside the bundle (for init()) and one folder
// above it (for the widget), and the widget's training worker beside the bundle.
const ROLLUP_CONFIG = docBlock('For Rollup, `rollup.config.mjs`:')

function run(cmd: string, args: string[], cwd: string) {
  try {
    execFileSync(cmd, args, { cwd, stdio: 'pipe', encoding: 'utf8', maxBuffer: 1 << 26 })
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; message: string }
    throw new Error(`${cmd} ${args.join(' ')} failed in ${cwd}:\n${err.stdout ?? ''}\n${err.stderr ?? err.message}`, {
      cause: e,
    })
  }
}

/** A consumer project folder with src/main.js (and whatever else the bundler's recipe needs). */
function project(name: string, files: Record<string, string>): string {
  const dir = join(work, name)
  mkdirSync(join(dir, 'src'), { recursive: true })
  writeFileSync(join(dir, 'src/main.js'), MAIN_JS)
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(join(dir, f, '..'), { recursive: true })
    writeFileSync(join(dir, f), text)
  }
  return dir
}

usePackedProject('ap-bundlers-', {
  require: () => {
    const missing = Object.entries(TOOLS)
      .filter(([, p]) => !existsSync(join(ROOT, p)))
      .map(([n]) => n)
    if (missing.length) throw new Error(`bundler(s) missing: ${missing.join(', ')}; install with: ${INSTALL}`)
  },
  prepare: (dir) => {
    // The Rollup config imports the plugin, as the course project would from its own devDependencies.
    mkdirSync(join(dir, 'node_modules/@rollup'), { recursive: true })
    symlinkSync(
      join(ROOT, 'node_modules/@rollup/plugin-node-resolve'),
      join(dir, 'node_modules/@rollup/plugin-node-resolve'),
    )
  },
})

const pages = usePages(() => browser)

/** Opens the built page; the widget must be defined and show the course's weights, ap.run() must return them. */
async function expectCourseNumbers(outDir: string) {
  const server = await serveStatic(outDir)
  try {
    const { page: tab, errors, failed } = await pages.open(server.url)
    await tab
      .waitForFunction(() => document.querySelector('#run')?.textContent, null, { timeout: 30_000 })
      .catch(() => {
        throw new Error(`ap.run() printed nothing; errors: ${errors.join(' | ')}; failed: ${failed.join(', ')}`)
      })
    const expected = courseWeights()
    const ran: number[] = JSON.parse((await tab.textContent('#run')) ?? '[]')
    expect(ran.length).toBe(16)
    ran.forEach((v, i) => expect(Math.abs(v - expected[i]), `ap.run() weights[${i}]`).toBeLessThan(1e-5))

    expect(
      await tab.evaluate(() => typeof customElements.get('attention-playground')),
      'the widget was tree-shaken away',
    ).toBe('function')
    await tab.evaluate(
      () => (document.querySelector('attention-playground') as unknown as { ready: Promise<void> }).ready,
    )
    const traced: number[] = await tab.evaluate(() =>
      Array.from(
        (document.querySelector('attention-playground') as unknown as { trace: { weights: { data: Float32Array } } })
          .trace.weights.data,
      ),
    )
    traced.forEach((v, i) => expect(Math.abs(v - expected[i]), `widget weights[${i}]`).toBeLessThan(1e-5))
    // and on screen, as displayed (rounded)
    const first = {
      locator: (sel: string) => tab.locator('attention-playground').first().locator(sel),
    } as unknown as Page
    const shown = (await readPanel(first, 'weights')).values.flat()
    expect(shown.length).toBe(16)
    shown.forEach((v: number, i: number) => expect(Math.abs(v - expected[i]), `shown weights[${i}]`).toBeLessThan(5e-3))
    // The training panel's worker loaded (with its wasm) when it proposes its sample sentence.
    const sentence = tab.locator('#tr [data-panel="train"] .tr-sentence')
    await expect.poll(() => sentence.inputValue(), { timeout: 30_000 }).not.toBe('')
    expect(errors).toEqual([])
    expect(failed).toEqual([])
  } finally {
    await server.close()
  }
}

const bin = (p: string) => join(ROOT, p)

describe('production builds of a course project keep the widget and find the wasm', () => {
  it('Vite: no configuration', async () => {
    const dir = project('vite', { 'index.html': page('<script type="module" src="/src/main.js"></script>') })
    run('node', [bin(TOOLS.vite), 'build'], dir)
    const assets = readdirSync(join(dir, 'dist/assets'))
    // one file per engine (SIMD128, relaxed SIMD, threads; the engine and the widget share them) and per trainer
    // module (SIMD128, relaxed SIMD: issue 38), and the training worker emitted
    expect(assets.filter((f) => f.endsWith('.wasm'))).toHaveLength(5)
    expect(assets.some((f) => /^train-worker.*\.js$/.test(f))).toBe(true)
    await expectCourseNumbers(join(dir, 'dist'))
  }, 240_000)

  it('webpack 5: no configuration (new URL(…, import.meta.url) assets and workers are built in)', async () => {
    const dir = project('webpack', {})
    // Minification is off only to spare the test machine; tree-shaking by sideEffects happens either way.
    run(
      'node',
      [bin(TOOLS['webpack-cli']), '--mode', 'production', '--entry', './src/main.js', '--no-optimization-minimize'],
      dir,
    )
    writeFileSync(join(dir, 'dist/index.html'), page('<script src="main.js" defer></script>'))
    expect(readdirSync(join(dir, 'dist')).filter((f) => f.endsWith('.wasm'))).toHaveLength(5) // 3 engines, 2 trainers
    await expectCourseNumbers(join(dir, 'dist'))
  }, 600_000)

  it('Rollup: node-resolve, and the wasm emitted beside the bundle and one folder above', async () => {
    const dir = project('rollup', { 'rollup.config.mjs': ROLLUP_CONFIG })
    run('node', [bin(TOOLS.rollup), '-c'], dir)
    writeFileSync(join(dir, 'dist/index.html'), page('<script type="module" src="assets/main.js"></script>'))
    await expectCourseNumbers(join(dir, 'dist'))
  }, 240_000)

  it('esbuild: --bundle --format=esm, and the wasm copied beside the bundle and one folder above', async () => {
    const dir = project('esbuild', {})
    run(bin(TOOLS.esbuild), ['src/main.js', '--bundle', '--format=esm', '--outdir=dist/assets'], dir)
    // every engine the package may pick at init(), beside the bundle and (for the widget) one folder above
    const distDir = join(work, 'node_modules/attention-playground/dist')
    for (const f of readdirSync(distDir).filter((f) => f.endsWith('.wasm') || f.endsWith('.worker.js'))) {
      copyFileSync(join(distDir, f), join(dir, 'dist/assets', f))
      if (f.endsWith('.wasm')) copyFileSync(join(distDir, f), join(dir, 'dist', f))
    }
    const widgetDir = join(work, 'node_modules/attention-playground/dist/widget')
    for (const f of readdirSync(widgetDir).filter((f) => f.endsWith('.js') && f !== 'widget.js')) {
      copyFileSync(join(widgetDir, f), join(dir, 'dist/assets', f))
    }
    writeFileSync(join(dir, 'dist/index.html'), page('<script type="module" src="assets/main.js"></script>'))
    await expectCourseNumbers(join(dir, 'dist'))
  }, 240_000)
})
