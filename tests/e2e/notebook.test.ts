// The notebook helper (python/attention_playground) in real Jupyter: Debian's Jupyter Notebook server runs
// tests/e2e/fixtures/notebook/attention.ipynb in Chromium (show(...) of an nn.MultiheadAttention and show_run(...));
// the widgets draw inside their outputs and their numbers equal what the kernel printed (torch's need_weights) and
// the course's PyTorch numbers; saved and reopened, they draw again. nbconvert executes the same notebook; its HTML
// opened from file:// draws the same numbers with no console error; the executed .ipynb opened in the server shows
// the widget once trusted (`jupyter trust`, here python3 -m nbformat.sign).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { artifact, launchChromium } from './harness.mjs'
import { usePages } from './page-fixture'
import { courseWeights, ROOT } from '../support/packed'
import { PY, requireTorch } from '../support/tools'

const NOTEBOOK = join(ROOT, 'tests/e2e/fixtures/notebook/attention.ipynb')

let session: Awaited<ReturnType<typeof launchChromium>>
let work = ''
let server: ChildProcess | null = null
let base = ''
let env: NodeJS.ProcessEnv = {}
const pages = usePages(() => session.browser)

function requireJupyter(): void {
  for (const [mod, pkg] of [
    ['notebook', 'jupyter-notebook'],
    ['nbconvert', 'python3-nbconvert'],
    ['ipykernel', 'python3-ipykernel'],
  ]) {
    try {
      execFileSync(PY, ['-c', `import ${mod}`], { stdio: 'pipe' })
    } catch {
      throw new Error(
        `${mod} is required by this test and is missing under ${PY}; install it: apt-get install -y ${pkg}`,
      )
    }
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
    s.on('error', reject)
  })
}

async function waitForServer(url: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(url)).ok) return
    } catch {
      // not up yet
    }
    if (server?.exitCode !== null) {
      const log = readFileSync(join(work, 'server.log'), 'utf8').trim().split('\n').slice(-5).join('\n')
      throw new Error(`jupyter notebook exited with ${String(server?.exitCode)}:\n${log}`)
    }
    await new Promise((r) => setTimeout(r, 200))
  }
  throw new Error(`jupyter notebook did not answer at ${url}`)
}

function nbconvert(...args: string[]): void {
  execFileSync(PY, ['-m', 'nbconvert', ...args], { cwd: join(work, 'nb'), env, stdio: 'pipe', timeout: 240_000 })
}

beforeAll(async () => {
  requireTorch()
  requireJupyter()
  work = mkdtempSync(join(tmpdir(), 'ap-notebook-'))
  mkdirSync(join(work, 'nb'))
  copyFileSync(NOTEBOOK, join(work, 'nb/live.ipynb'))
  copyFileSync(NOTEBOOK, join(work, 'nb/attention.ipynb'))
  // Jupyter's own folders in the temp dir (its signing key, its config), the package from the clone.
  env = {
    ...process.env,
    JUPYTER_CONFIG_DIR: join(work, 'config'),
    JUPYTER_DATA_DIR: join(work, 'data'),
    JUPYTER_RUNTIME_DIR: join(work, 'runtime'),
    IPYTHONDIR: join(work, 'ipython'),
    PYTHONPATH: join(ROOT, 'python'),
    PYDEVD_DISABLE_FILE_VALIDATION: '1',
  }
  // nbconvert: execute, then HTML from the executed notebook (the same numbers in both).
  nbconvert('--to', 'notebook', '--execute', 'attention.ipynb', '--output', 'executed.ipynb')
  nbconvert('--to', 'html', 'executed.ipynb', '--output', 'executed.html')
  const port = await freePort()
  base = `http://127.0.0.1:${port}`
  server = spawn(
    PY,
    [
      '-m',
      'notebook',
      '--no-browser',
      `--port=${port}`,
      '--ip=127.0.0.1',
      '--NotebookApp.token=',
      '--NotebookApp.password=',
      '--allow-root', // test machines and containers often run as root
      `--notebook-dir=${join(work, 'nb')}`,
    ],
    { env, stdio: ['ignore', 'ignore', openSync(join(work, 'server.log'), 'w')] },
  )
  await waitForServer(`${base}/api`)
  session = await launchChromium()
}, 300_000)

afterAll(async () => {
  await session?.close()
  if (server && server.exitCode === null) {
    // The server shuts its kernels down with it.
    await fetch(`${base}/api/shutdown`, { method: 'POST' }).catch(() => undefined)
    await new Promise((r) => setTimeout(r, 1000))
    if (server.exitCode === null) server.kill('SIGTERM')
  }
  if (work) rmSync(work, { recursive: true, force: true })
})

interface Seen {
  count: number
  /** the model view's file: its tokens and layer 0's weights */
  tokens: string[]
  weights: number[]
  shape: number[]
  /** the shadow DOM draws: the model view's heatmap canvases, the run's data-step panels */
  modelCanvases: number
  runSteps: string[]
  runWeights: number[]
  runLang: string | null
  /** distinct colours on the model view's large heatmap and on the run's weights heatmap (drawn, not blank) */
  colours: [number, number]
  runBackend: string | null
  /** what setEngineWasm says once the engine is loaded */
  lateWasm: string
}

/** Waits for the two widgets of the notebook (show, then show_run) and reads what they show. */
async function widgets(page: Page): Promise<Seen> {
  await page.waitForFunction(
    () => {
      const els = [...document.querySelectorAll('attention-playground')] as unknown as Array<{
        renderCount: number
        model: unknown
      }>
      return els.length === 2 && els.every((e) => e.renderCount > 0) && !!els[0].model
    },
    null,
    { timeout: 90_000 },
  )
  return page.evaluate(async () => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const els = [...document.querySelectorAll('attention-playground')] as any[]
    const [model, run] = els
    // The most colours on one of the heatmap's canvases (a heatmap may stack an overlay over its cells).
    const colours = (box: Element | null) =>
      Math.max(
        0,
        ...[...(box?.querySelectorAll('canvas') ?? [])].map((c) => {
          if (!c.width || !c.height) return 0
          const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data
          const seen = new Set<number>()
          for (let i = 0; i < d.length; i += 4) seen.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2])
          return seen.size
        }),
      )
    // Heatmaps draw when they come into view: show each, then give it two frames.
    const frames = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))
    const modelBig = (model.shadowRoot as ShadowRoot).querySelector('.model-big')
    const runWeights = (run.shadowRoot as ShadowRoot).querySelector('[data-step="weights"]')
    modelBig?.scrollIntoView()
    await frames()
    const modelColours = colours(modelBig)
    runWeights?.scrollIntoView()
    await frames()
    const runColours = colours(runWeights)
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const loaded = (window as any).__attentionPlaygroundNotebook.widget
    let lateWasm = ''
    try {
      ;(await loaded).setEngineWasm(new Uint8Array(8))
    } catch (e) {
      lateWasm = (e as Error).message
    }
    const layer = model.model.file.layers[0]
    const shadow = run.shadowRoot as ShadowRoot
    return {
      count: els.length,
      tokens: model.model.file.tokens,
      weights: Array.from(layer.weights.data as Float32Array),
      shape: layer.weights.shape,
      modelCanvases: (model.shadowRoot as ShadowRoot).querySelectorAll('[data-step="model"] canvas').length,
      runSteps: [...shadow.querySelectorAll('[data-step]')]
        .filter((e) => !(e as HTMLElement).hidden && (e as HTMLElement).offsetParent !== null)
        .map((e) => e.getAttribute('data-step')!)
        .filter((s) => s === 'scores' || s === 'weights'),
      runWeights: Array.from(run.trace.weights.data as Float32Array),
      runLang: shadow.querySelector('.apw')?.getAttribute('lang') ?? null,
      colours: [modelColours, runColours] as [number, number],
      runBackend: run.backend,
      lateWasm,
    }
  })
}

/** What the kernel printed: torch's weights per head [2, 4, 4], flattened. */
function printed(ipynb: string): number[] {
  const nb = JSON.parse(readFileSync(ipynb, 'utf8'))
  for (const c of nb.cells) {
    for (const o of c.outputs ?? []) {
      const text = Array.isArray(o.text) ? o.text.join('') : (o.text ?? '')
      const m = /^WEIGHTS (.*)$/m.exec(text)
      if (m) return (JSON.parse(m[1]) as number[][][]).flat(2)
    }
  }
  throw new Error(`${ipynb}: no WEIGHTS line in its outputs`)
}

function expectSeen(seen: Seen, torchWeights: number[]): void {
  expect(seen.count).toBe(2)
  expect(seen.tokens).toEqual(['the', 'cat', 'sat', 'down'])
  expect(seen.shape).toEqual([2, 4, 4])
  expect(seen.weights).toHaveLength(torchWeights.length)
  // The file holds float32s; the kernel printed the same float32s as doubles.
  seen.weights.forEach((w, i) => expect(Math.abs(w - torchWeights[i])).toBeLessThanOrEqual(1e-7))
  expect(seen.modelCanvases).toBeGreaterThan(0)
  expect(seen.runSteps).toEqual(['scores', 'weights'])
  expect(seen.runLang).toBe('zh')
  // 16 cells each: more colours than a blank canvas and a grid line (anti-aliasing adds some).
  expect(seen.colours[0]).toBeGreaterThanOrEqual(8)
  expect(seen.colours[1]).toBeGreaterThanOrEqual(8)
  // The inlined engine: SIMD128, one thread (a notebook is not cross-origin isolated).
  expect(seen.runBackend).toMatch(/^simd128, 1 thread/)
  expect(seen.lateWasm).toMatch(/^setEngineWasm: the engine is already loading or loaded/)
  const course = courseWeights()
  expect(seen.runWeights).toHaveLength(course.length)
  seen.runWeights.forEach((w, i) => expect(Math.abs(w - course[i])).toBeLessThanOrEqual(1e-5))
}

/** Counts, in every page of a context, the JS modules made into blob: URLs and the wasm instances made. */
function countLoads(): void {
  const w = window as unknown as { __apCounts: { modules: number; instances: number } }
  w.__apCounts = { modules: 0, instances: 0 }
  const blobUrl = URL.createObjectURL.bind(URL)
  URL.createObjectURL = (o: Blob | MediaSource) => {
    if (o instanceof Blob && o.type === 'text/javascript') w.__apCounts.modules++
    return blobUrl(o)
  }
  const instantiate = WebAssembly.instantiate.bind(WebAssembly) as (...a: unknown[]) => Promise<unknown>
  ;(WebAssembly as unknown as { instantiate: unknown }).instantiate = (...a: unknown[]) => {
    w.__apCounts.instances++
    return instantiate(...a)
  }
}

const counts = (page: Page) =>
  page.evaluate(() => (window as unknown as { __apCounts: { modules: number; instances: number } }).__apCounts)

/** Jupyter's page, with its kernel connected. */
async function openNotebook(name: string) {
  const opened = await pages.open(undefined, { viewport: { width: 1280, height: 900 } })
  await opened.context.addInitScript(countLoads)
  await opened.page.goto(`${base}/notebooks/${name}`)
  await opened.page.waitForFunction(
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    () => (window as any).Jupyter?.notebook?.kernel?.is_connected?.() === true,
    null,
    { timeout: 90_000 },
  )
  return opened
}

/** Console errors that are the widget's (Jupyter's own page logs a few of its own, e.g. missing nbextensions). */
const ours = (errors: string[]) => errors.filter((e) => /attention|blob:|wasm/i.test(e))

describe('Jupyter Notebook (Debian jupyter-notebook) in Chromium', () => {
  it("runs show(...) and show_run(...): the widgets draw the model's and the course's numbers; saved and reopened, again", async () => {
    const { page, errors } = await openNotebook('live.ipynb')
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    await page.evaluate(() => (window as any).Jupyter.notebook.execute_all_cells())
    await page.waitForFunction(
      () =>
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        (window as any).Jupyter.notebook
          .get_cells()
          // eslint-disable-next-line @typescript-eslint/no-explicit-any
          .every((c: any) => c.cell_type !== 'code' || typeof c.input_prompt_number === 'number'),
      null,
      { timeout: 120_000 },
    )
    const seen = await widgets(page)
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    await page.evaluate(() => (window as any).Jupyter.notebook.save_notebook())
    await page.waitForFunction(
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      () => (window as any).Jupyter.notebook.dirty === false,
      null,
      { timeout: 30_000 },
    )
    const torchWeights = printed(join(work, 'nb/live.ipynb'))
    expectSeen(seen, torchWeights)
    // Two outputs, one module and one engine for the page: the widget imported and the wasm instantiated once.
    expect(await counts(page)).toEqual({ modules: 1, instances: 1 })
    // The screenshot: the notebook from its top (the recipe's cell and its output).
    await page.evaluate(() => document.querySelector('.cell')?.scrollIntoView())
    await page.screenshot({ path: artifact('notebook.png') })
    // docs/notebook.png (README): scripts/screenshot-notebook.mjs runs this file with the variable set.
    if (process.env.AP_NOTEBOOK_SCREENSHOT) await page.screenshot({ path: process.env.AP_NOTEBOOK_SCREENSHOT })
    expect(ours(errors)).toEqual([])

    // Reopened: the saved outputs (trusted: this browser ran them) draw again, with no kernel run.
    await page.reload()
    expectSeen(await widgets(page), torchWeights)
    expect(await counts(page)).toEqual({ modules: 1, instances: 1 })
    expect(ours(errors)).toEqual([])
  }, 300_000)

  it('the notebook nbconvert executed: untrusted it shows the fallback text, trusted (jupyter trust) the widgets', async () => {
    const torchWeights = printed(join(work, 'nb/executed.ipynb'))
    const first = await openNotebook('executed.ipynb')
    const fallback = await first.page.locator('.ap-fallback').first().textContent({ timeout: 30_000 })
    expect(fallback).toContain('trust the notebook')
    expect(await first.page.locator('attention-playground').count()).toBe(0)
    execFileSync(PY, ['-m', 'nbformat.sign', 'executed.ipynb'], { cwd: join(work, 'nb'), env, stdio: 'pipe' })
    const { page, errors } = await openNotebook('executed.ipynb')
    expectSeen(await widgets(page), torchWeights)
    expect(await counts(page)).toEqual({ modules: 1, instances: 1 })
    expect(ours(errors)).toEqual([])
  }, 300_000)
})

describe("nbconvert's HTML export, opened from file://", () => {
  it('draws both widgets with the same numbers, offline, with no console error', async () => {
    const torchWeights = printed(join(work, 'nb/executed.ipynb'))
    const { page, context, errors, failed, requests } = await pages.open(undefined, {
      viewport: { width: 1280, height: 900 },
    })
    await context.addInitScript(countLoads)
    await page.goto(pathToFileURL(join(work, 'nb/executed.html')).href)
    expectSeen(await widgets(page), torchWeights)
    expect(await counts(page)).toEqual({ modules: 1, instances: 1 })
    expect(errors).toEqual([])
    expect(failed).toEqual([])
    // Nothing fetched from a network: the page, then blob: URLs only (the widget's module and the model file),
    // apart from what nbconvert's own template loads (require.js and MathJax from a CDN, which may fail offline).
    const ownRequests = requests.filter((r) => /attention|\.wasm/.test(r))
    expect(ownRequests).toEqual([])
  }, 300_000)
})
