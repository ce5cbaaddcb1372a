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

/** The validation poems' text (fetched once per URL and kept: the head scores of every model read it). */
const poems = new Map<string, Promise<string>>()

export function fetchPoems(url: string): Promise<string> {
  let p = poems.get(url)
  if (!p) {
    p = fetch(new URL(url, document.baseURI).href).then(async (res) => {
      if (!res.ok) throw new Error(`HTTP ${res.status} ${res.statusText} for ${res.url}`)
      return res.text()
    })
    p.catch(() => poems.delete(url)) // a failed fetch may be tried again
    poems.set(url, p)
  }
  return p
}
