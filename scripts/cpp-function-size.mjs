#!/usr/bin/env node
// No C++ function over 80 lines (the ESLint rule of src/js and web/, for the C++ of src/, tests/ and bench/),
// counted as clang-tidy's readability-function-size counts them: the line of the body's closing brace minus
// the line of its opening brace. Only the two functions named in ALLOWED may be longer. The files are
// clang-formatted, so a brace-matching scan (comments, strings and preprocessor lines skipped) finds the
// bodies; lambdas count within the function that holds them. scripts/lint-cpp.sh runs it.
import { readFileSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const LIMIT = 80
// The tiled flash-attention driver and the hand-written backward pass of a layer: each is one loop nest
// whose parts share too many locals to split without passing them all around (docs/design.md).
const ALLOWED = new Set(['flash_driver', 'layer_backward'])

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const files = execFileSync('git', ['ls-files', '*.cpp', '*.h'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter((f) => /^(src|tests|bench)\//.test(f))

/** The text with comments, string and char literals and preprocessor lines blanked (newlines kept). */
function code(text) {
  let out = ''
  let i = 0
  const blank = (s) => s.replace(/[^\n]/g, ' ')
  while (i < text.length) {
    const rest = text.slice(i)
    const m =
      /^\/\/[^\n]*/.exec(rest) ??
      /^\/\*[\s\S]*?\*\//.exec(rest) ??
      /^R"([^(]*)\([\s\S]*?\)\1"/.exec(rest) ??
      /^"(?:\\.|[^"\\\n])*"/.exec(rest) ??
      /^'(?:\\.|[^'\\\n])*'/.exec(rest) ??
      ((out === '' || out.endsWith('\n')) && /^[ \t]*#[^\n]*(?:\\\n[^\n]*)*/.exec(rest))
    if (m) {
      out += blank(m[0])
      i += m[0].length
    } else {
      out += text[i++]
    }
  }
  return out
}

/** Every function body not nested in another: { name, line, lines }. */
function functions(src) {
  const found = []
  const stack = [] // per open brace: 'fn' (a function body), 'scope' (namespace, class, enum) or 'other'
  let line = 1
  let header = '' // the text since the last ; { or } outside function bodies
  let open = 0
  for (const ch of src) {
    if (ch === '\n') line++
    const inFn = stack.includes('fn')
    if (ch === '{') {
      let kind = 'other'
      if (!inFn) {
        const h = header.replace(/\s+/g, ' ').trim()
        if (/^(template ?<.*> ?)?(namespace|struct|class|union|enum|extern)\b/.test(h)) kind = 'scope'
        else if (h.includes('(') && !/=\s*$/.test(h)) kind = 'fn'
        if (kind === 'fn') {
          open = line
          const name = /([A-Za-z_][\w:~]*)\s*\(/.exec(h.replace(/^template ?<[^>]*> ?/, ''))
          found.push({ name: name ? name[1] : h.slice(0, 40), line, lines: 0 })
        }
      }
      stack.push(kind)
      header = ''
    } else if (ch === '}') {
      const kind = stack.pop()
      if (kind === 'fn' && !stack.includes('fn')) found[found.length - 1].lines = line - open
      header = ''
    } else if (ch === ';') {
      header = ''
    } else if (!inFn) {
      header += ch
    }
  }
  return found
}

let failed = 0
for (const f of files) {
  for (const fn of functions(code(readFileSync(join(root, f), 'utf8')))) {
    const short = fn.name.split('::').pop()
    if (fn.lines > LIMIT && !ALLOWED.has(short)) {
      console.log(`${f}:${fn.line}: ${fn.name} is ${fn.lines} lines (at most ${LIMIT})`)
      failed++
    }
  }
}
if (failed) {
  console.error(`cpp-function-size: ${failed} function(s) over ${LIMIT} lines`)
  process.exit(1)
}
