// The notebook helper (python/attention_playground) under real PyTorch (/usr/bin/python3): the HTML of show(),
// show_file() and show_run() is valid HTML (html5lib, strict), carries the user's text as data only, embeds the
// model's own attention (equal to torch's need_weights) and the widget and engine the build made; and
// `pip install ./python` (no dependency) installs a package that works outside the clone.
import { execFileSync } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PARAMS } from '../../web/params'
import { requireTorch } from '../support/tools'
import { ROOT } from '../support/packed'

const SCRIPT = join(ROOT, 'tests/fixtures/check_notebook.py')
const ASSETS = join(ROOT, 'python/attention_playground/assets')

// eslint-disable-next-line @typescript-eslint/no-explicit-any
let r: any
let work = ''

beforeAll(() => {
  const py = requireTorch()
  r = JSON.parse(execFileSync(py, [SCRIPT], { encoding: 'utf8', timeout: 120_000 }))
}, 130_000)

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true })
})

const OUTPUT_TAGS = ['DOCUMENT_FRAGMENT', 'div', 'p', 'script']
const OUTPUT_ATTRS = ['class', 'id', 'type']

describe('show(model, inputs, tokens=…)', () => {
  it("nn.MultiheadAttention: the embedded file holds torch's need_weights exactly, hostile tokens as data", () => {
    const m = r.mha
    expect(m.shape).toEqual([2, 6, 6])
    expect(m.vs_torch).toBeLessThanOrEqual(1e-7)
    expect(m.reader_vs_torch).toBeLessThanOrEqual(1e-7)
    // The tokens come back exactly, through the file and through the package's reader …
    const hostile = ['<img src=x onerror="window.__pwned=1">', '</script><script>window.__pwned=2</script>', 'a&amp;b']
    expect(m.tokens.slice(0, 3)).toEqual(hostile)
    expect(m.reader_tokens).toEqual(m.tokens)
    // … and none of them is in the HTML as written, which has only the output's own elements and attributes.
    expect(m.raw_hostile).toEqual([])
    expect(m.tags).toEqual(OUTPUT_TAGS)
    expect(m.attrs).toEqual(OUTPUT_ATTRS)
    expect(m.script_types).toEqual([
      'application/json',
      'application/octet-stream',
      'application/octet-stream',
      'classic',
    ])
    expect(m.attributes).toEqual({ lang: 'en' })
    expect(m.fallback).toBe(true)
  })

  it("a TransformerEncoder (2 layers, 4 heads): each layer's weights equal the layer's own call", () => {
    expect(r.encoder.layers).toEqual([
      [4, 6, 6],
      [4, 6, 6],
    ])
    expect(r.encoder.vs_torch).toBeLessThanOrEqual(1e-7)
    expect(r.encoder.tokens).toEqual("the animal didn't cross the street".split(' '))
    expect(r.encoder.attributes).toEqual({ steps: 'model' })
  })

  it('imports no IPython (the display protocol is a method)', () => {
    expect(r.mha.ipython_imported).toBe(false)
    expect(r.ipython_imported).toBe(false)
  })
})

describe('show_file(path) and show_run(text, **options)', () => {
  it('J1 show_file embeds the file as it is; a bad file or one over 64 MiB raises AttentionFileError (a ValueError)', () => {
    expect(r.show_file_same_bytes).toBe(true)
    expect(r.bad_file).toEqual([
      'AttentionFileError',
      true,
      'file: the header declares 5 bytes but the file has 10 in all; the file is truncated',
    ])
    expect(r.too_big).toBe(
      'file: 67,108,865 bytes, over the limit of 67,108,864 bytes (64 MiB) that a notebook output hands to the widget (its src download limit); export fewer layers or a shorter input, or open the file in the page (up to 512 MiB)',
    )
  })

  it("show_run: options become the widget's attributes, as strings; the text stays data", () => {
    expect(r.run.attributes).toEqual({
      tokenizer: 'char',
      lang: 'zh',
      mask: 'causal',
      steps: 'scores,weights',
      guided: 'true',
      seed: '7',
      temperature: '0.5',
      text: '<img src=x onerror="window.__pwned=1">',
    })
    expect(r.run.raw_hostile).toBe(false)
    expect(r.run.tags).toEqual(OUTPUT_TAGS)
    expect(r.run.attrs).toEqual(OUTPUT_ATTRS)
    expect(r.run.file).toBeNull()
    expect(r.run.ids_differ).toBe(true)
    expect(r.run.same_assets_in_every_output).toBe(true)
  })

  it('bad options say what is wrong', () => {
    expect(r.errors.unknown).toMatch(/^txt: not an attribute of the widget; expected one of mode, text, source/)
    expect(r.errors.src).toBe('src: the widget shows the file given; pass no src')
    expect(r.errors.value).toBe('seed: expected a string, number, bool or list, got dict')
  })

  it("the attributes accepted are the widget's (web/params.ts PARAMS), and the version is the npm package's", () => {
    expect(r.attributes).toEqual(PARAMS.filter((p) => p.attr !== null).map((p) => p.attr))
    expect(r.version).toBe(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version)
    const pyproject = readFileSync(join(ROOT, 'python/pyproject.toml'), 'utf8')
    expect(pyproject).toContain(`version = "${r.version}"`)
  })

  it('each output inlines the built widget and the SIMD128 engine (gzip, base64), as the build wrote them', () => {
    const js = gunzipSync(readFileSync(join(ASSETS, 'widget.js.gz')))
    const wasm = gunzipSync(readFileSync(join(ASSETS, 'attention.wasm.gz')))
    expect(js.equals(readFileSync(join(ROOT, 'dist/widget/widget.js')))).toBe(true)
    expect(wasm.equals(readFileSync(join(ROOT, 'dist/attention.wasm')))).toBe(true)
    expect(r.run.assets).toEqual([
      readFileSync(join(ASSETS, 'widget.js.gz')).length,
      readFileSync(join(ASSETS, 'attention.wasm.gz')).length,
    ])
  })
})

describe('pip install ./python', () => {
  it('installs with no dependency into a folder of its own, and works from there', () => {
    const py = requireTorch()
    work = mkdtempSync(join(tmpdir(), 'ap-pip-'))
    // A copy of the folder, so the build leaves nothing in the clone.
    cpSync(join(ROOT, 'python'), join(work, 'src'), {
      recursive: true,
      filter: (f) => !f.includes('__pycache__'),
    })
    execFileSync(
      py,
      [
        '-m',
        'pip',
        'install',
        '--no-deps',
        '--no-build-isolation',
        '--no-index',
        '--target',
        join(work, 'site'),
        join(work, 'src'),
      ],
      { cwd: work, stdio: 'pipe', timeout: 120_000 },
    )
    for (const f of [
      'attention_playground/assets/widget.js.gz',
      'attention_playground/loader.js',
      'export_attention.py',
    ]) {
      expect(existsSync(join(work, 'site', f)), f).toBe(true)
    }
    const out = JSON.parse(
      execFileSync(
        py,
        [
          '-c',
          'import json, attention_playground as ap, export_attention as ea; h = ap.show_run("我爱中国", tokenizer="char")._repr_html_(); ' +
            'print(json.dumps({"file": ap.__file__, "n": len(h), "export": ea.export is ap.exporter.export}))',
        ],
        { cwd: work, env: { ...process.env, PYTHONPATH: join(work, 'site') }, encoding: 'utf8' },
      ),
    )
    expect(out.file).toBe(join(work, 'site/attention_playground/__init__.py'))
    expect(out.n).toBeGreaterThan(400_000)
    expect(out.export).toBe(true)
  }, 150_000)
})
