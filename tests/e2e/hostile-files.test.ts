// Hostile model files and downloads in real Chromium, on the page (?view=model, the file picker, ?src=) and in the
// widget (its `src`): the worst mutants of the model-file fuzzing (tests/fuzz/file-regressions/model-files and a few
// seeds of tests/support/file-mutants.ts) each end in a message as text, the last good file stays and the page keeps
// working; downloads from a local server that sends a big file slowly, one whose Content-Length is not the body's
// (gzip), one with no length and one that declares too much stop at 64 MiB with the sizes in the message (one that
// declares more than it sends ends in a broken-off download), show
// their progress (zh and en) and can be cancelled, after which the page opens files as before.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import type { Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT } from './harness.mjs'
import { env, useEnv } from './env'
import { usePages } from './page-fixture'
import { baseFiles, mutant } from '../support/file-mutants'
import type { PlaygroundHandle } from '../../web/playground'

declare global {
  interface Window {
    __apPlayground?: PlaygroundHandle
  }
}
type Widget = HTMLElement & { ready: Promise<void>; model: ReturnType<PlaygroundHandle['model']> }

const MODELS = join(ROOT, 'tests/fixtures/models')
const REGRESSIONS = join(ROOT, 'tests/fuzz/file-regressions/model-files')
const MiB = 2 ** 20
const LIMIT = /over the download limit of 67,108,864 bytes \(64 MiB\); download stopped/

useEnv()
const pages = usePages()

// The downloads' server (another origin than the page's: CORS, as a course's files on a CDN).
let server: Server
let files = ''
/** A body of `n` bytes that starts as a safetensors file would (a header length of 64), in 1 MiB chunks. */
function* body(n: number): Generator<Buffer> {
  for (let sent = 0; sent < n; sent += MiB) {
    const b = Buffer.alloc(Math.min(MiB, n - sent))
    if (sent === 0) b[0] = 64
    yield b
  }
}
const gz = gzipSync(Buffer.concat([...body(70 * MiB)]))

beforeAll(async () => {
  server = createServer((req, res) => {
    const cors = { 'access-control-allow-origin': '*', 'access-control-expose-headers': 'content-encoding' }
    const path = new URL(req.url ?? '/', 'http://x').pathname
    if (path === '/slow.safetensors') {
      // 8 MB, 64 KiB every 40 ms: long enough to see the progress and cancel it
      res.writeHead(200, { ...cors, 'content-length': String(8_000_000) })
      let sent = 0
      const timer = setInterval(() => {
        const part = Buffer.alloc(Math.min(65536, 8_000_000 - sent))
        if (sent === 0) part[0] = 64
        res.write(part)
        sent += part.length
        if (sent >= 8_000_000) {
          clearInterval(timer)
          res.end()
        }
      }, 40)
      res.on('close', () => clearInterval(timer))
    } else if (path === '/no-length.safetensors') {
      res.writeHead(200, cors) // chunked: no Content-Length
      const it = body(100 * MiB)
      const more = () => {
        for (let r = it.next(); !r.done; r = it.next()) if (!res.write(r.value)) return void res.once('drain', more)
        res.end()
      }
      res.on('close', () => it.return(undefined))
      more()
    } else if (path === '/gzip.safetensors') {
      // Content-Length counts the compressed bytes: 70 MiB arrive
      res.writeHead(200, { ...cors, 'content-encoding': 'gzip', 'content-length': String(gz.length) })
      res.end(gz)
    } else if (path === '/declared.safetensors') {
      res.writeHead(200, { ...cors, 'content-length': String(70_000_000) })
      res.write(Buffer.alloc(65536)) // and nothing more: the page must not wait for it
    } else if (path === '/short.safetensors') {
      // declares 1,000,000 bytes, sends 65,536 and hangs up
      res.writeHead(200, { ...cors, 'content-length': String(1_000_000) })
      const first = Buffer.alloc(65536)
      first[0] = 64
      res.write(first, () => setTimeout(() => res.destroy(), 50))
    } else res.writeHead(404, cors).end()
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  files = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((r) => server.close(r))
})

/** The worst inputs: every saved regression file, and mutants of a few kinds (a cut, a huge header, NaN, a header edit). */
function worst(): Array<{ name: string; bytes: Buffer }> {
  const saved = readdirSync(REGRESSIONS).map((f) => ({ name: f, bytes: readFileSync(join(REGRESSIONS, f)) }))
  const bases = baseFiles()
  const seeds = [27000003, 27000010, 27000021, 27000042, 27000077]
  return [
    ...saved,
    ...seeds.map((s) => ({ name: `mutant-${s}.safetensors`, bytes: Buffer.from(mutant(s, bases).bytes) })),
  ]
}

async function openPage(lang: 'en' | 'zh' = 'en'): Promise<{ page: Page; errors: string[] }> {
  const { page, errors } = await pages.open(env.site.url + `?view=model&lang=${lang}`, {
    viewport: { width: 1300, height: 900 },
  })
  await page.waitForFunction(() => !!window.__apPlayground)
  // the sample opens first; then encoder.safetensors is the last good file
  await page.locator('input[name="modelFile"]').setInputFiles(join(MODELS, 'encoder.safetensors'))
  await page.waitForFunction(() => window.__apPlayground!.model()?.name === 'encoder.safetensors')
  return { page, errors }
}

/** The course page with a widget showing seq2seq.safetensors (its `src`), in Chinese. */
async function openWidget(): Promise<{ page: Page; errors: string[]; el: Locator }> {
  const { page, errors } = await pages.open(env.widgets.url + '/tests/e2e/pages/model.html', {
    viewport: { width: 1300, height: 900 },
  })
  const el = page.locator('attention-playground')
  await el.evaluate((w) => (w as Widget).ready)
  await page.waitForFunction(() => !!(document.querySelector('attention-playground') as Widget).model)
  return { page, errors, el }
}

const shownName = (page: Page) => page.evaluate(() => window.__apPlayground!.model()?.name)

/** The page still works: a good file opens and its first head is drawn. */
async function stillWorks(page: Page, input: Locator): Promise<void> {
  await input.setInputFiles(join(MODELS, 'seq2seq.safetensors'))
  await page.waitForFunction(() => window.__apPlayground!.model()?.name === 'seq2seq.safetensors')
  expect(await page.locator('[data-step="model"] .model-error').isHidden()).toBe(true)
  expect(await page.locator('.model-thumb').count()).toBe(10)
}

describe('the worst mutants in Chromium', () => {
  it('the page: each ends in a message naming what it blames, as text; the last good file stays; the page keeps working', async () => {
    const { page, errors } = await openPage()
    const input = page.locator('input[name="modelFile"]')
    const err = page.locator('[data-step="model"] .model-error')
    const seen: string[] = []
    for (const { name, bytes } of worst()) {
      await input.setInputFiles({ name, mimeType: 'application/octet-stream', buffer: bytes })
      // An input ends in its message or in a file shown, never a hang (the poll fails after 10 s).
      await expect
        .poll(async () => ((await err.isVisible()) ? await err.textContent() : await shownName(page)), {
          timeout: 10_000,
        })
        .toMatch(
          new RegExp(`^(Could not open ${name.replace(/\./g, '\\.')}: \\S.{0,400}|${name.replace(/\./g, '\\.')})$`),
        )
      if (await err.isVisible()) {
        const text = (await err.textContent())!
        seen.push(text)
        expect(await shownName(page)).toBe('encoder.safetensors')
      } else {
        seen.push(`${name}: opened`)
        await input.setInputFiles(join(MODELS, 'encoder.safetensors'))
        await page.waitForFunction(() => window.__apPlayground!.model()?.name === 'encoder.safetensors')
      }
    }
    console.log(seen.map((s) => s.slice(0, 160)).join('\n'))
    expect(seen.filter((s) => s.startsWith('Could not open')).length).toBeGreaterThanOrEqual(6)
    // Names and values from the file are quoted cut short (a 5,000-character name, a shape 100,000 arrays deep).
    expect(Math.max(...seen.map((x) => x.length))).toBeLessThan(300)
    expect(seen.join('\n')).toContain(`${'x'.repeat(57)}...: dtype`)
    expect(seen.join('\n')).toContain('layer 99999999999 is over the limit of 1024 layers')
    expect(await page.locator('[data-step="model"] img').count()).toBe(0)
    await stillWorks(page, input)
    expect(errors).toEqual([])
  })

  it('the widget’s src: a saved regression file shows its message in the widget; a good src then opens', async () => {
    const { errors, el } = await openWidget()
    const err = el.locator('[data-step="model"] .model-error')
    for (const f of ['layer-index-99999999999.safetensors', 'seed-27000390.safetensors']) {
      await el.evaluate((w, src) => w.setAttribute('src', src), `/tests/fuzz/file-regressions/model-files/${f}`)
      await expect
        .poll(() => err.textContent(), { timeout: 10_000 })
        .toMatch(/^无法打开 \/tests\/fuzz\/.*: attention\.\S+: /)
      expect(await el.evaluate((w) => (w as Widget).model!.file.layers.length)).toBe(5)
    }
    await el.evaluate((w) => w.setAttribute('src', '/tests/fixtures/models/encoder.safetensors'))
    await expect.poll(() => el.evaluate((w) => (w as Widget).model!.file.layers.length)).toBe(2)
    expect(await err.isHidden()).toBe(true)
    expect(errors).toEqual([])
  })
})

describe('downloads: a stated limit, progress and cancel', () => {
  it('a slow 8 MB file shows its progress (en), Cancel stops it, and the page keeps working', async () => {
    const { page, errors } = await openPage('en')
    const view = page.locator('[data-step="model"]')
    await page.evaluate((src) => window.__apPlayground!.setState({ src }), `${files}/slow.safetensors`)
    const status = view.locator('.model-status')
    await expect
      .poll(() => status.textContent(), { timeout: 10_000 })
      .toMatch(/^Downloading http:\/\/127\.0\.0\.1:\d+\/slow\.safetensors: \d+\.\d of 8\.0 MB \(\d+ %\)$/)
    const progress = view.locator('progress.model-progress')
    expect(await progress.isVisible()).toBe(true)
    const value = await progress.evaluate((p) => (p as HTMLProgressElement).value)
    expect(value).toBeGreaterThan(0)
    expect(value).toBeLessThan(1)
    expect(await status.getAttribute('role')).toBe('status') // spoken: a live region
    const cancel = view.locator('button.model-cancel')
    expect(await cancel.textContent()).toBe('Cancel download')
    await cancel.click()
    await expect.poll(() => status.textContent()).toMatch(/^Download cancelled: http:.*slow\.safetensors$/)
    expect(await progress.isHidden()).toBe(true)
    expect(await cancel.isHidden()).toBe(true)
    expect(await view.locator('.model-error').isHidden()).toBe(true)
    expect(await shownName(page)).toBe('encoder.safetensors')
    await stillWorks(page, view.locator('input[name="modelFile"]'))
    expect(errors).toEqual([])
  })

  it('in Chinese, and in the widget: the progress in zh, its Cancel button', async () => {
    const { errors, el } = await openWidget()
    await el.evaluate((w, src) => w.setAttribute('src', src), `${files}/slow.safetensors`)
    const status = el.locator('[data-step="model"] .model-status')
    await expect
      .poll(() => status.textContent(), { timeout: 10_000 })
      .toMatch(/^正在下载 http:\/\/127\.0\.0\.1:\d+\/slow\.safetensors: \d+\.\d \/ 8\.0 MB \(\d+ %\)$/)
    await el.locator('button.model-cancel').click()
    await expect.poll(() => status.textContent()).toMatch(/^已取消下载： http:.*slow\.safetensors$/)
    expect(await el.evaluate((w) => (w as Widget).model!.file.layers.length)).toBe(5)
    await el.evaluate((w) => w.setAttribute('src', '/tests/fixtures/models/encoder.safetensors'))
    await expect.poll(() => el.evaluate((w) => (w as Widget).model!.file.layers.length)).toBe(2)
    expect(errors).toEqual([])
  })

  it('no Content-Length, a Content-Length of compressed bytes, one over the limit: stopped at 64 MiB, the sizes named', async () => {
    const { page, errors } = await openPage('en')
    const err = page.locator('[data-step="model"] .model-error')
    const cases: Array<[string, RegExp]> = [
      ['no-length', /: src: \d{2},\d{3},\d{3} bytes received, /],
      [
        'gzip',
        /: src: \d{2},\d{3},\d{3} bytes received where the server declared [\d,]+ \(Content-Length, of compressed bytes\), /,
      ],
      ['declared', /: src: the server declares 70,000,000 bytes \(Content-Length\), /],
    ]
    for (const [name, msg] of cases) {
      await page.evaluate((src) => window.__apPlayground!.setState({ src }), `${files}/${name}.safetensors`)
      await expect.poll(() => err.textContent(), { timeout: 20_000 }).toMatch(msg)
      expect(await err.textContent()).toMatch(LIMIT)
      expect(await shownName(page)).toBe('encoder.safetensors')
      expect(await page.locator('progress.model-progress').isHidden()).toBe(true)
    }
    expect(await err.textContent()).toMatch(/^Could not open .*: stopped at the download limit: src: /)
    // A Content-Length larger than what comes: the connection breaks off, and the message says so.
    await page.evaluate((src) => window.__apPlayground!.setState({ src }), `${files}/short.safetensors`)
    await expect
      .poll(() => err.textContent(), { timeout: 20_000 })
      .toMatch(
        /^Could not open http:.*\/short\.safetensors: src: the download of http:.*\/short\.safetensors broke off \(/,
      )
    expect(await shownName(page)).toBe('encoder.safetensors')
    await stillWorks(page, page.locator('input[name="modelFile"]'))
    // no script error; the one console line is the browser's own for the broken-off download
    expect(errors).toEqual([
      expect.stringMatching(
        /^Failed to load resource: net::ERR_CONTENT_LENGTH_MISMATCH \(http:.*\/short\.safetensors\)$/,
      ),
    ])
  })

  it('a ?src= link to a file with no length, in Chinese: stopped, the limit said in Chinese with the sizes', async () => {
    const { page, errors } = await pages.open(`${env.site.url}?src=${files}/no-length.safetensors&lang=zh`, {
      viewport: { width: 1300, height: 900 },
    })
    const err = page.locator('[data-step="model"] .model-error')
    await expect
      .poll(() => err.textContent(), { timeout: 20_000 })
      .toMatch(
        /^无法打开 http:\/\/127\.0\.0\.1:\d+\/no-length\.safetensors: 下载超过了 64 MiB 的上限，已停止；请先保存文件，再从磁盘打开（上限 512 MiB）： src: \d{2},\d{3},\d{3} bytes received, /,
      )
    expect(await page.locator('progress.model-progress').isHidden()).toBe(true)
    await stillWorks(page, page.locator('input[name="modelFile"]'))
    expect(errors).toEqual([])
  })
})
