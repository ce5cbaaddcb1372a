// A wasm that does not load (issue 39 item 2): init() rejects with a WasmLoadError naming the URL it tried, what
// came back and the package's file to serve there, never Emscripten's "Aborted(…)" text. A local server answers as
// broken hosts do: nothing, an error status, a page instead of the file, a file that is not wasm. The module keeps
// working afterwards: a good init() after the failures runs the course's program.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServer, type Server } from 'node:http'
import { readFileSync } from 'node:fs'
import { init, WasmLoadError } from '../../dist/index.js'
import { expectCourseProgram } from '../support/helpers'

let server: Server
let base = ''

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/page.wasm') res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><p>hi</p>')
    else if (req.url === '/junk.wasm')
      res.writeHead(200, { 'content-type': 'application/wasm' }).end(Buffer.from('not a wasm module at all'))
    else res.writeHead(404, { 'content-type': 'text/plain' }).end('not found')
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const addr = server.address()
  if (!addr || typeof addr === 'string') throw new Error('server did not bind')
  base = `http://127.0.0.1:${addr.port}`
})

afterAll(() => new Promise<void>((r) => server.close(() => r())))

/** init() with the wasm at `path` of the local server (or `url` as given); resolves to the error it rejects with. */
async function failure(url: string): Promise<WasmLoadError> {
  const e = await init({ backend: 'simd128', threads: 1, locateFile: () => url }).then(
    () => null,
    (x: unknown) => x,
  )
  expect(e).toBeInstanceOf(WasmLoadError)
  const err = e as WasmLoadError
  expect(err.name).toBe('WasmLoadError')
  expect(err.message).not.toMatch(/Aborted|ASSERTIONS/)
  expect(err.message).toContain(url)
  expect(err.file).toBe('attention.wasm')
  expect(err.url).toBe(url)
  return err
}

describe('init() whose wasm does not load', () => {
  it('HTTP 404: the status, the URL and the file to serve there', async () => {
    const e = await failure(`${base}/missing/attention.wasm`)
    expect([e.reason, e.status]).toEqual(['http', 404])
    expect(e.message).toBe(
      `init: the engine's WebAssembly ${base}/missing/attention.wasm answered HTTP 404; serve the package's dist/attention.wasm there, unchanged, as application/wasm`,
    )
  })

  it('a page instead of the file (a host\'s 200 "not found" page): its Content-Type', async () => {
    const e = await failure(`${base}/page.wasm`)
    expect([e.reason, e.status, e.contentType]).toEqual(['type', 200, 'text/html'])
    expect(e.message).toContain('was answered with text/html, not the wasm file')
  })

  it("a file that is not wasm: the compiler's words, without Emscripten's wrapping", async () => {
    const e = await failure(`${base}/junk.wasm`)
    expect(e.reason).toBe('compile')
    expect(e.detail).toMatch(/CompileError|magic/i)
    expect(e.detail).not.toMatch(/^Aborted|ASSERTIONS/)
  })

  it('no answer (nothing listens there, as for a refused cross-origin request): says so', async () => {
    const closed = createServer()
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r))
    const port = (closed.address() as { port: number }).port
    await new Promise<void>((r) => closed.close(() => r()))
    const e = await failure(`http://127.0.0.1:${port}/attention.wasm`)
    expect([e.reason, e.status]).toEqual(['network', null])
    expect(e.message).toContain('Access-Control-Allow-Origin')
  })

  it('bytes that are not wasm (init({ wasmBinary })): a compile failure with no URL', async () => {
    const e = await init({ wasmBinary: new Uint8Array([0, 1, 2, 3]) }).then(
      () => null,
      (x: unknown) => x,
    )
    expect(e).toBeInstanceOf(WasmLoadError)
    expect([(e as WasmLoadError).reason, (e as WasmLoadError).url]).toEqual(['compile', ''])
    expect((e as Error).message).not.toMatch(/Aborted/)
  })

  it('the package still loads afterwards', async () => {
    const bytes = readFileSync(new URL('../../dist/attention.wasm', import.meta.url))
    expectCourseProgram(await init({ wasmBinary: bytes }))
  })
})
