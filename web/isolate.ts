// Threads on a host that sends no COOP/COEP (GitHub Pages), opt-in: `?isolate=1` registers the site's own service
// worker (public/isolate-sw.js, served beside the page), which re-serves the site's files with the two headers,
// and reloads once so the page itself comes through it; it then stays for the site until `?isolate=0`.

const WORKER = './isolate-sw.js'
const RELOADED = 'ap-isolate-reloaded'

/**
 * Acts on the page's `isolate` URL parameter. Resolves true when the page is about to reload (the caller then
 * does nothing more); false otherwise, also when the browser has no service workers or registering fails (the
 * engine then runs on one thread, as `backendInfo` says).
 */
export async function isolateIfAsked(search: URLSearchParams): Promise<boolean> {
  const want = search.get('isolate')
  if ((want !== '1' && want !== '0') || !('serviceWorker' in navigator)) return false
  try {
    if (want === '0') {
      const regs = await navigator.serviceWorker.getRegistrations()
      const ours = regs.filter((r) => r.active?.scriptURL === new URL(WORKER, location.href).href)
      await Promise.all(ours.map((r) => r.unregister()))
      // a page the worker still controls comes back once without it
      if (!navigator.serviceWorker.controller) return false
      location.reload()
      return true
    }
    if (crossOriginIsolated) {
      sessionStorage.removeItem(RELOADED)
      return false
    }
    await navigator.serviceWorker.register(WORKER)
    await navigator.serviceWorker.ready
    // One reload at most: if the page is still not isolated after it, it stays on one thread.
    if (sessionStorage.getItem(RELOADED)) return false
    sessionStorage.setItem(RELOADED, '1')
    location.reload()
    return true
  } catch (e) {
    console.warn('isolate: the service worker could not be registered; the engine runs on one thread', e)
    return false
  }
}
