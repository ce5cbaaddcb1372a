#!/usr/bin/env node
// The poems corpus of the language model (issue 37 item 3), made again byte for byte:
//
//   node scripts/poems-corpus.mjs [--out public/poems] [--cache DIR]
//
// 1. `npm pack` chinese-poetry 2.0.1 (MIT, 85 MB: not a dependency of the project) and opencc-js 1.4.2 into a
//    cache folder outside the repository ($AP_POEMS_CACHE, or ~/.cache/attention-playground/poems), once; each
//    tarball's sha512 must equal the integrity pinned below (the registry's, checked when this was written).
// 2. Reads dist/quantangshi/poet.tang.N.json in the order of N, each file's poems in order, and keeps the
//    five-character poems (scripts/poem-form.mjs: 4 or 8 lines of five characters, "，" / "。" alternating;
//    each poem's `paragraphs` joined).
// 3. Converts them to simplified characters with opencc-js (`Converter({ from: 't', to: 'cn' })`, OpenCC's
//    t2s.json: TSPhrases then TSCharacters), keeps those that still keep the form, drops exact duplicates
//    (the first one stays).
// 4. Splits by poem: validation when the first 4 bytes of SHA-256(poem's simplified text), big-endian, are
//    0 mod 20 (about 1 poem in 20), train otherwise; the split of a poem does not depend on the others.
// 5. The vocabulary (docs/lm-spec.md): id 0 "\n" (end of a poem), 1 "，", 2 "。", 3 "□" (unknown), then every other
//    character seen >= 20 times in the train split, most frequent first (ties by code point). Every other
//    character becomes "□" in both splits; a poem that becomes a copy of an earlier one (train first) goes.
// 6. Writes OUT/train.txt and OUT/validation.txt (UTF-8, one poem per line, each line the poem as the model
//    reads it: lines joined, punctuation kept, then "\n" = id 0), OUT/vocab.json (the vocabulary, a JSON array
//    of strings, one per id, as in a model's __metadata__.vocab), OUT/README.md (source, licence, counts,
//    sizes) and OUT/LICENSE (the package's MIT licence).
import { createHash } from 'node:crypto'
import { execFileSync } from 'node:child_process'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { keepsForm, LINE_CHARS, UNKNOWN } from './poem-form.mjs'

export const SOURCE = {
  name: 'chinese-poetry',
  version: '2.0.1',
  integrity: 'sha512-KtYARvV7CWNtax0na9+Jn6PlhGgSoid7PWyDzXI4KsCEm2odZcqEQyval5koaLygZnM/EQ3lfJ//25K8p3uHNg==',
}
export const OPENCC = {
  name: 'opencc-js',
  version: '1.4.2',
  integrity: 'sha512-EdcspgdROiCCZDM+jZR6Pa670xW+EW2QhctPBQ8gRjg6lrx4IHEl+2s+kt5izk/TkxVRgdWuFgaGkaEdIUfdaw==',
}
/** A character joins the vocabulary when the train split has it at least this often. */
export const MIN_COUNT = 20
/** 1 poem in VALIDATION_EVERY (by the hash of its text) is a validation poem. */
export const VALIDATION_EVERY = 20
/** The fixed ids: end of poem, the two punctuation marks, the unknown character. */
export const SPECIAL = ['\n', '，', '。', UNKNOWN]

const ROOT = resolve(new URL('..', import.meta.url).pathname)
export const DEFAULT_CACHE = process.env.AP_POEMS_CACHE ?? join(homedir(), '.cache/attention-playground/poems')

/** The tarball of `pkg` in `cache`, packed by npm if absent; its sha512 must equal pkg.integrity. */
export function tarball(pkg, cache) {
  const file = join(cache, `${pkg.name}-${pkg.version}.tgz`)
  if (!existsSync(file)) {
    mkdirSync(cache, { recursive: true })
    const tmp = mkdtempSync(join(cache, 'packing-'))
    try {
      execFileSync('npm', ['pack', `${pkg.name}@${pkg.version}`, '--pack-destination', tmp, '--loglevel=error'], {
        stdio: ['ignore', 'ignore', 'inherit'],
      })
      renameSync(join(tmp, `${pkg.name}-${pkg.version}.tgz`), file)
    } finally {
      rmSync(tmp, { recursive: true, force: true })
    }
  }
  const got = 'sha512-' + createHash('sha512').update(readFileSync(file)).digest('base64')
  if (got !== pkg.integrity) {
    throw new Error(`${file}: integrity ${got} is not the pinned ${pkg.integrity}; delete the file to pack it again`)
  }
  return file
}

/** `members` (tar patterns) of the tarball extracted once into cache/NAME-VERSION; returns that folder. */
function extracted(pkg, cache, members) {
  const dir = join(cache, `${pkg.name}-${pkg.version}`)
  if (!existsSync(dir)) {
    const file = tarball(pkg, cache)
    const tmp = mkdtempSync(join(cache, 'extracting-'))
    try {
      execFileSync('tar', ['-xzf', file, '-C', tmp, '--wildcards', ...members])
      renameSync(tmp, dir)
    } catch (err) {
      rmSync(tmp, { recursive: true, force: true })
      throw err
    }
  } else {
    tarball(pkg, cache) // the integrity, checked on every run
  }
  return join(dir, 'package')
}

/** The SHA-256 split of a poem: 'validation' for about 1 in VALIDATION_EVERY, else 'train'. */
export function splitOf(text) {
  return createHash('sha256').update(text, 'utf8').digest().readUInt32BE(0) % VALIDATION_EVERY === 0
    ? 'validation'
    : 'train'
}

/** The corpus from the two packages: { train, validation, vocab, counts }. */
export async function buildCorpus(cache = DEFAULT_CACHE) {
  const poetry = extracted(SOURCE, cache, ['package/LICENSE', 'package/dist/quantangshi/poet.tang.*.json'])
  const opencc = extracted(OPENCC, cache, ['package/LICENSE', 'package/dist/esm/t2cn.js'])
  const { Converter } = await import(pathToFileURL(join(opencc, 'dist/esm/t2cn.js')).href)
  const toSimplified = Converter({ from: 't', to: 'cn' })

  const dir = join(poetry, 'dist/quantangshi')
  const files = readdirSync(dir)
    .map((f) => /^poet\.tang\.(\d+)\.json$/.exec(f))
    .filter((m) => m !== null)
    .sort((a, b) => Number(a[1]) - Number(b[1]))
    .map((m) => m[0])
  const counts = { files: files.length, poems: 0, form: 0, formAfterOpenCC: 0, unique: 0 }
  const seen = new Set()
  const unique = []
  for (const f of files) {
    for (const p of JSON.parse(readFileSync(join(dir, f), 'utf8'))) {
      counts.poems++
      const text = p.paragraphs.join('')
      if (!keepsForm(text)) continue
      counts.form++
      const simple = toSimplified(text)
      if (!keepsForm(simple)) continue
      counts.formAfterOpenCC++
      if (seen.has(simple)) continue
      seen.add(simple)
      unique.push(simple)
    }
  }
  counts.unique = unique.length

  const split = { train: [], validation: [] }
  for (const t of unique) split[splitOf(t)].push(t)

  // The vocabulary from the train split's counts; the rest becomes □; a poem that becomes a copy of an earlier
  // one (train first) goes, which can lower a count below MIN_COUNT: again until nothing changes.
  let pool = split
  let vocab, out
  for (;;) {
    const freq = new Map()
    for (const t of pool.train) for (const c of t) if (!SPECIAL.includes(c)) freq.set(c, (freq.get(c) ?? 0) + 1)
    const chars = [...freq]
      .filter(([, n]) => n >= MIN_COUNT)
      .sort((a, b) => b[1] - a[1] || a[0].codePointAt(0) - b[0].codePointAt(0))
      .map(([c]) => c)
    vocab = [...SPECIAL, ...chars]
    const known = new Set(vocab)
    const kept = new Set()
    const next = { train: [], validation: [] }
    out = { train: [], validation: [] }
    for (const s of ['train', 'validation']) {
      for (const t of pool[s]) {
        const r = Array.from(t, (c) => (known.has(c) ? c : UNKNOWN)).join('')
        if (kept.has(r)) continue // two poems that differed only in characters outside the vocabulary
        kept.add(r)
        next[s].push(t)
        out[s].push(r)
      }
    }
    if (next.train.length === pool.train.length && next.validation.length === pool.validation.length) break
    pool = next
  }
  let trainChars = 0
  let unknownChars = 0
  for (const r of out.train) {
    for (const c of r) {
      if (c === UNKNOWN) unknownChars++
      if (c !== '，' && c !== '。') trainChars++
    }
  }
  counts.droppedAfterUnknown = split.train.length + split.validation.length - out.train.length - out.validation.length
  counts.train = out.train.length
  counts.validation = out.validation.length
  counts.vocab = vocab.length
  counts.trainCharacters = trainChars
  counts.trainUnknownShare = unknownChars / trainChars
  for (const s of ['train', 'validation']) {
    counts[`${s}Lines4`] = out[s].filter((t) => [...t].length === 4 * (LINE_CHARS + 1)).length
    counts[`${s}Lines8`] = out[s].length - counts[`${s}Lines4`]
  }
  return { ...out, vocab, counts, license: readFileSync(join(poetry, 'LICENSE'), 'utf8') }
}

/** vocab.json: one entry a line, so a change shows in a diff. */
export function vocabJson(vocab) {
  return '[\n' + vocab.map((c) => '  ' + JSON.stringify(c)).join(',\n') + '\n]\n'
}

function readme(c, sizes) {
  const pct = (x) => (100 * x).toFixed(2) + ' %'
  return `# The poems corpus (five-character Tang poems, simplified characters)

Made by \`node scripts/poems-corpus.mjs\` (do not edit by hand; docs/design.md, "Language model", says how the
page and the trainer read it). Source: the npm package \`${SOURCE.name}\` ${SOURCE.version}
(\`dist/quantangshi/poet.tang.*.json\`, 全唐诗 in traditional characters; integrity \`${SOURCE.integrity}\`),
MIT licence, © its authors: see LICENSE beside this file. Converted to simplified characters with
\`${OPENCC.name}\` ${OPENCC.version} (OpenCC's t2s: \`Converter({ from: 't', to: 'cn' })\`).

| file | bytes | what |
| --- | ---: | --- |
| train.txt | ${sizes.train} | ${c.train} poems (${c.trainLines4} of 4 lines, ${c.trainLines8} of 8), one a line |
| validation.txt | ${sizes.validation} | ${c.validation} poems (${c.validationLines4} of 4 lines, ${c.validationLines8} of 8) |
| vocab.json | ${sizes.vocab} | ${c.vocab} ids: 0 "\\n" (end of a poem), 1 "，", 2 "。", 3 "□" (unknown), then the characters seen ≥ ${MIN_COUNT} times in train.txt, most frequent first |

Each line of the two text files is a poem as the model reads it: its lines joined with their punctuation, then
the newline (id 0), e.g. \`床前明月光，疑是地上霜。举头望明月，低头思故乡。\`. Every character is in vocab.json;
the others were replaced by □ (${pct(c.trainUnknownShare)} of train.txt's characters are □).

How they were chosen: ${c.poems} poems in ${c.files} files; ${c.form} keep the five-character form (4 or 8 lines of
five characters, "，" and "。" alternating); ${c.formAfterOpenCC} still do after the conversion; ${c.unique} after dropping exact
duplicates; split by poem (SHA-256 of the text, 1 in ${VALIDATION_EVERY} to validation); ${c.droppedAfterUnknown} more dropped that became copies
of an earlier poem once the characters outside the vocabulary were replaced.
`
}

/** Writes the corpus files into `out`. */
export function writeCorpus(corpus, out) {
  mkdirSync(out, { recursive: true })
  const text = {
    train: corpus.train.map((t) => t + '\n').join(''),
    validation: corpus.validation.map((t) => t + '\n').join(''),
    vocab: vocabJson(corpus.vocab),
  }
  writeFileSync(join(out, 'train.txt'), text.train)
  writeFileSync(join(out, 'validation.txt'), text.validation)
  writeFileSync(join(out, 'vocab.json'), text.vocab)
  const sizes = Object.fromEntries(Object.entries(text).map(([k, v]) => [k, Buffer.byteLength(v)]))
  writeFileSync(join(out, 'README.md'), readme(corpus.counts, sizes))
  writeFileSync(join(out, 'LICENSE'), corpus.license)
  return sizes
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({
    options: { out: { type: 'string', default: join(ROOT, 'public/poems') }, cache: { type: 'string' } },
  })
  const corpus = await buildCorpus(values.cache ?? DEFAULT_CACHE)
  const sizes = writeCorpus(corpus, resolve(values.out))
  console.log(JSON.stringify({ ...corpus.counts, bytes: sizes }, null, 2))
}
