// Attention Playground's opt-in service worker (registered by the page for ?isolate=1; ?isolate=0 removes it).
// A static host that cannot send headers (GitHub Pages) serves the page without COOP/COEP, so the page is not
// cross-origin isolated and the engine runs on one thread. This worker answers the site's own requests with the
// network's response plus the two headers (and CORP for its own files), which makes the page isolated after one
// reload. Requests to other origins pass through untouched.
const ADDED = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
}

self.addEventListener('install', () => self.skipWaiting())
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()))

self.addEventListener('fetch', (event) => {
  const request = event.request
  if (new URL(request.url).origin !== self.location.origin) return
  event.respondWith(
    fetch(request).then((response) => {
      if (response.type === 'opaque' || response.type === 'opaqueredirect') return response
      const headers = new Headers(response.headers)
      for (const [name, value] of Object.entries(ADDED)) headers.set(name, value)
      return new Response(response.body, { status: response.status, statusText: response.statusText, headers })
    }),
  )
})
