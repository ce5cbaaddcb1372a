#!/usr/bin/env node
// A small static server for the built site (site/): `npm start` runs it. Any static host serves site/ the same
// way; the only requirement is that .wasm files go out as application/wasm. The COOP/COEP pair makes the page
// cross-origin isolated, which is what lets the engine run its kernels on several threads (SharedArrayBuffer);
// without them everything still works, on one thread.
import { createServer } from 'node:http'
import { createReadStream, existsSync, statSync } from 'node:fs'
import { extname, join, normalize, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(fileURLToPath(new URL('..', import.meta.url)), process.env.SITE_DIR ?? 'site')
const types = {
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
}

export function serve(dir = root, port = Number(process.env.PORT ?? 5173), host = process.env.HOST ?? '127.0.0.1') {
  const server = createServer((req, res) => {
    let path
    try {
      path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)
    } catch {
      res.writeHead(400).end('bad request')
      return
    }
    const file = normalize(join(dir, path))
    if (!file.startsWith(dir + sep) && file !== dir) {
      res.writeHead(403).end('forbidden')
      return
    }
    let target = file
    if (existsSync(target) && statSync(target).isDirectory()) target = join(target, 'index.html')
    if (!existsSync(target)) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found')
      return
    }
    res.writeHead(200, {
      'content-type': types[extname(target)] ?? 'application/octet-stream',
      'cache-control': 'no-cache',
      'x-content-type-options': 'nosniff',
      'cross-origin-opener-policy': 'same-origin',
      'cross-origin-embedder-policy': 'require-corp',
      'cross-origin-resource-policy': 'same-origin',
    })
    createReadStream(target).pipe(res)
  })
  return new Promise((resolve, reject) => {
    server.once('error', (e) => {
      if (/** @type {NodeJS.ErrnoException} */ (e).code === 'EADDRINUSE' && port !== 0) {
        console.log(`port ${port} is busy; picking a free one`)
        resolve(serve(dir, 0, host))
      } else reject(e)
    })
    server.listen(port, host, () => resolve(server))
  })
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (!existsSync(join(root, 'index.html'))) {
    console.error(`serve: ${root}/index.html is missing; run npm run build first`)
    process.exit(1)
  }
  const server = await serve()
  const { port } = server.address()
  console.log(`\n  Attention Playground: http://127.0.0.1:${port}/\n  (serving ${root}; Ctrl+C stops)\n`)
}
