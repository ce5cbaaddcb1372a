// Where the "Write a poem" view (views/generate.ts) finds its sample model and the validation poems it measures the heads on. The page
// serves them from its own folder (public/samples/poems.safetensors, public/poems/validation.txt, relative to the
// page); the widget, whose page is a course's, reads the copies the npm package ships beside it (dist/samples/,
// set by web/widget.ts). A page that carries everything inline (a notebook's output) has none: the view then asks
// for a file.

export interface PoemsSample {
  /** The sample model (safetensors, nanoGPT's layout), a URL relative to the page. */
  model: string
  /** Poems one a line (the corpus's validation split), for the head scores. */
  validation: string
}

let sample: PoemsSample | null = { model: 'samples/poems.safetensors', validation: 'poems/validation.txt' }

/** The sample the view opens when it is shown with no other model (null: none). */
export function poemsSample(): PoemsSample | null {
  return sample
}

/** Sets where the sample is (the widget's copy beside the package), or null for none. */
export function setPoemsSample(s: PoemsSample | null): void {
  sample = s && { ...s }
}

/** A file beside the page (relative to it), as a response whose status was OK; else the status in the error. */
async function fetchOk(url: string): Promise<Response> {
  const res = await fetch(new URL(url, document.baseURI).href)
  if (!res.ok) throw new Error(`HTTP ${res.status} ${res.statusText} for ${res.url}`)
  return res
}

/** The sample model's bytes, fetched at boot when the page opens on the view (web/main.ts), for the view to take. */
let early: { url: string; bytes: Promise<Uint8Array> } | null = null

/**
 * Starts fetching the sample model now, beside the engine and the page's code, so that the view opening on it does
 * not wait for the download after it mounts (issue 38: the first poem within a second of navigation).
 */
export function prefetchSampleModel(): void {
  if (!sample || early) return
  const url = sample.model
  const bytes = fetchOk(url).then(async (res) => new Uint8Array(await res.arrayBuffer()))
  bytes.catch(() => undefined) // not taken, or taken later: the view reads the file again itself on a failure
  early = { url, bytes }
}

/**
 * The early fetch of `url` (prefetchSampleModel), once; null if there is none. On a failure the caller reads the file
 * its usual way, so the learner sees that read's message.
 */
export function takeSampleModel(url: string): Promise<Uint8Array> | null {
  if (!early || early.url !== url) return null
  const { bytes } = early
  early = null
  return bytes
}

/** The validation poems' text (fetched once per URL and kept: the head scores of every model read it). */
const poems = new Map<string, Promise<string>>()

export function fetchPoems(url: string): Promise<string> {
  let p = poems.get(url)
  if (!p) {
    p = fetchOk(url).then((res) => res.text())
    p.catch(() => poems.delete(url)) // a failed fetch may be tried again
    poems.set(url, p)
  }
  return p
}
