#!/usr/bin/env node
// The one static file server of the repository: `npm start` runs it over the built site (site/); the real-browser
// tests, the benchmarks and the screenshot scripts import `serve` from here. Any static host serves site/ the same
// way; the only requirement is that .wasm files go out as application/wasm. The headers the site goes out with are
// one table, public/_headers (the hosts read it as site/_headers; SITE_HEADERS below sends what it says for each
// path, scripts/site-headers.mjs; the service worker's copy is public/isolate-sw.js). The COOP/COEP pair makes the
// page cross-origin isolated, which is what lets the engine run its kernels on several threads (SharedArrayBuffer;
// without them everything still works, on one thread), and CORS + CORP cross-origin on widget/ and the engines let a
// course page on another site embed the widget.
import { createServer } from 'node:http'
import { createReadStream, existsSync, statSync } from 'node:fs'
import { extname, join, normalize, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { headersFor, SITE_HEADER_RULES } from './site-headers.mjs'

export const ROOT = fileURLToPath(new URL('..', import.meta.url)).replace(/\/+$/, '')
export const SITE = join(ROOT, process.env.SITE_DIR ?? 'site')

/** Content types by extension; anything else goes out as application/octet-stream. */
export const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.txt': 'text/plain; charset=utf-8',
  '.safetensors': 'application/octet-stream',
}

/**
 * The headers a file of the site goes out with, by URL path (`npm start`, and the tests' and benchmarks' isolated
 * pages): nosniff, then what public/_headers says for the path.
 * @param {string} path
 * @returns {Record<string, string>}
 */
export const SITE_HEADERS = (path) => ({ 'x-content-type-options': 'nosniff', ...headersFor(SITE_HEADER_RULES, path) })

/**
 * @typedef {object} ServeOptions
 * @property {string} [root] the folder served (default: site/, or $SITE_DIR)
 * @property {string} [base] the URL path it is served under (default /; other paths are 404)
 * @property {number} [port] default 0: a free port
 * @property {string} [host] default 127.0.0.1
 * @property {Record<string, string> | ((path: string) => Record<string, string>)} [headers] sent with every file, or
 *   by URL path (default SITE_HEADERS; `{}` for a host that sends none, as GitHub Pages)
 * @property {string} [cacheControl] default no-cache
 * @property {boolean} [requireIndex] refuse to start when root/index.html is missing (a site that was not built)
 * @property {(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse, path: string) => boolean} [handle]
 *   answers a request itself (returns true) before the files are looked up: a test's own pages
 */

/**
 * A static server over `root`: `url` ends in a slash; close() also ends open keep-alive connections (a page the
 * tests close only after their test keeps its sockets open, and server.close() alone waits for them).
 * @param {ServeOptions} [options]
 * @returns {Promise<{ server: import('node:http').Server, url: string, port: number, close(): Promise<void> }>}
 */
export async function serve(options = {}) {
  const { port = 0, host = '127.0.0.1', headers = SITE_HEADERS, cacheControl = 'no-cache', handle } = options
  const root = resolve(options.root ?? SITE)
  const base = (options.base ?? '/').replace(/\/?$/, '/')
  if (options.requireIndex && !existsSync(join(root, 'index.html')))
    throw new Error(`${root}/index.html is missing: build the site first (node scripts/build.mjs --site)`)
  const server = createServer((req, res) => {
    let path
    try {
      path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)
    } catch {
      res.writeHead(400).end('bad request')
      return
    }
    if (handle?.(req, res, path)) return
    if (!path.startsWith(base)) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found')
      return
    }
    const file = normalize(join(root, path.slice(base.length - 1)))
    if (!file.startsWith(root + sep) && file !== root) {
      res.writeHead(403).end('forbidden')
      return
    }
    let target = file
    if (existsSync(target) && statSync(target).isDirectory()) target = join(target, 'index.html')
    if (!existsSync(target) || !statSync(target).isFile()) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found')
      return
    }
    res.writeHead(200, {
      'content-type': TYPES[/** @type {keyof typeof TYPES} */ (extname(target))] ?? 'application/octet-stream',
      'cache-control': cacheControl,
      ...(typeof headers === 'function' ? headers(path) : headers),
    })
    createReadStream(target).pipe(res)
  })
  const listen = (/** @type {number} */ p) =>
    new Promise((ok, fail) => {
      server.once('error', fail)
      server.listen(p, host, () => ok(undefined))
    })
  try {
    await listen(port)
  } catch (e) {
    if (/** @type {NodeJS.ErrnoException} */ (e).code !== 'EADDRINUSE' || port === 0) throw e
    console.log(`port ${port} is busy; picking a free one`)
    await listen(0)
  }
  const addr = server.address()
  if (!addr || typeof addr === 'string') throw new Error('server did not bind')
  return {
    server,
    port: addr.port,
    url: `http://${host}:${addr.port}/`,
    close: () =>
      new Promise((ok) => {
        server.close(() => ok(undefined))
        server.closeAllConnections()
      }),
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  // npm start: the site on $PORT (5173, or a free port when it is busy). The e2e runner (playwright.config.ts)
  // starts the site and the repository root with --root, --port and --plain (no headers: a plain static host).
  const usage = 'usage: node scripts/serve.mjs [--root DIR] [--port N] [--host H] [--plain]'
  let values
  try {
    ;({ values } = parseArgs({
      options: {
        root: { type: 'string' },
        port: { type: 'string', default: process.env.PORT ?? '5173' },
        host: { type: 'string', default: process.env.HOST ?? '127.0.0.1' },
        plain: { type: 'boolean', default: false },
      },
    }))
  } catch (e) {
    console.error(`serve: ${/** @type {Error} */ (e).message}\n${usage}`)
    process.exit(2)
  }
  const root = values.root === undefined ? SITE : resolve(values.root)
  try {
    const { url } = await serve({
      root,
      port: Number(values.port),
      host: values.host,
      headers: values.plain ? {} : SITE_HEADERS,
      requireIndex: root === SITE,
    })
    console.log(`\n  Attention Playground: ${url}\n  (serving ${root}; Ctrl+C stops)\n`)
  } catch (e) {
    console.error(`serve: ${/** @type {Error} */ (e).message}`)
    process.exit(1)
  }
}
