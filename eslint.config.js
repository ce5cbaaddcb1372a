// ESLint for every TypeScript and JavaScript file of the repo: @eslint/js and typescript-eslint's
// recommended rules, type-aware for the TypeScript (the tsconfig projects of src/js, web and tests).
// No stylistic rules: the style is Prettier's (.prettierrc), checked by `prettier --check`.
import { existsSync, statSync } from 'node:fs'
import { dirname, relative, resolve, sep } from 'node:path'
import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import globals from 'globals'

// The engine's computing calls (ap.run, ap.attention, …, the language model's loader and head scores), for the
// compute layer's rule below.
const ENGINE_CALLS =
  '/^(run|projections|attention|attentionBackward|runBackward|multiHeadAttention|flashTrace|tokenize|createTrainer|loadLanguageModel|headScores)$/'

// web/'s layers, from the bottom up (docs/design.md, "Web"): a file imports from its own layer and the layers
// below it, never from one above; a layer with `only` is imported from above by those files alone (the views by
// the shell's factory module). Files are named from web/: a folder ('compute/'), a file, or a pattern ('heatmap*.ts').
// A file of web/ in no layer fails too: a new file takes its place here.
const WEB_LAYERS = [
  { layer: 'strings', files: ['i18n/'] },
  {
    layer: 'helpers',
    files: ['format.ts', 'formula.ts', 'palette.ts', 'chart-frame.ts', 'styles.ts', 'isolate.ts', 'early-engine.ts'],
  },
  { layer: 'state', files: ['params.ts', 'view-table.ts'] },
  { layer: 'compute', files: ['compute/'] },
  { layer: 'url', files: ['state.ts'] },
  { layer: 'blocks', files: ['dom.ts', 'context.ts', 'heatmap*.ts', 'engine-errors.ts', 'presets.ts'] },
  { layer: 'parts', files: ['quiz/', 'train/', 'export/'] },
  { layer: 'panels', files: ['panels/'] },
  { layer: 'views', files: ['views/'], only: ['shell/view-factories.ts'] },
  { layer: 'shell', files: ['shell/'] },
  { layer: 'component', files: ['playground.ts', 'widget.ts', 'main.ts', 'app.ts'] },
]

const WEB = resolve(import.meta.dirname, 'web')

/** `file` (absolute) as web/ names it ('compute/run.ts'), or null outside web/. */
function inWeb(file) {
  const rel = relative(WEB, file).split(sep).join('/')
  return rel.startsWith('../') || rel === '..' ? null : rel
}

const matches = (rel, name) =>
  name.endsWith('/')
    ? rel.startsWith(name)
    : new RegExp(`^${name.replaceAll('.', '\\.').replaceAll('*', '[^/]*')}$`).test(rel)

const layerOf = (rel) => WEB_LAYERS.findIndex((l) => l.files.some((name) => matches(rel, name)))

/** The file a relative import names ('./i18n' is web/i18n/index.ts), or null when it is none. */
function resolveImport(from, spec) {
  const base = resolve(dirname(from), spec)
  return [base, `${base}.ts`, `${base}/index.ts`].find((f) => existsSync(f) && statSync(f).isFile()) ?? null
}

const layersRule = {
  meta: {
    type: 'problem',
    schema: [],
    messages: {
      up: "web/{{file}} ({{own}}) imports web/{{target}} ({{layer}}), a layer above it: web/'s layers only point down (WEB_LAYERS in eslint.config.js).",
      only: 'web/{{file}} imports web/{{target}}: the {{layer}} layer is imported from above by {{only}} alone.',
      none: 'web/{{file}} is in no layer: give it its place in WEB_LAYERS (eslint.config.js).',
    },
  },
  create(context) {
    const file = inWeb(context.filename)
    if (file === null) return {}
    const own = layerOf(file)
    if (own < 0) return { Program: (node) => context.report({ node, messageId: 'none', data: { file } }) }
    const check = (node) => {
      const spec = node.source?.value
      if (typeof spec !== 'string' || !spec.startsWith('.')) return
      const path = resolveImport(context.filename, spec)
      const target = path && inWeb(path)
      const t = target === null ? -1 : layerOf(target)
      if (t < 0 || t === own) return
      const { layer, only } = WEB_LAYERS[t]
      const data = { file, target, own: WEB_LAYERS[own].layer, layer, only: only?.join(', ') }
      if (t > own) context.report({ node, messageId: 'up', data })
      else if (only && !only.some((name) => matches(file, name))) context.report({ node, messageId: 'only', data })
    }
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
    }
  },
}

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'site/**',
      'build/**',
      'node_modules/**',
      'docs/.vitepress/cache/**',
      'docs/.vitepress/dist/**',
      'src/js/attention.d.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: {
        // The build configurations at the root belong to no project (tests/tsconfig.json type-checks them).
        projectService: { allowDefaultProject: ['*.config.ts'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // Type-aware checks that catch real bugs at little cost.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/await-thenable': 'error',
      // `_`-prefixed parameters are deliberately unused (callbacks with a fixed signature).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      'no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    files: ['web/**/*.ts'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // Small pieces: a function that needs more than 80 lines does more than one thing.
    files: ['web/**/*.ts', 'src/js/**/*.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: false, skipComments: false, IIFEs: true }],
    },
  },
  {
    // The layers above, type-only imports included (as madge's cycle check in scripts/lint.sh).
    files: ['web/**/*.ts'],
    plugins: { web: { rules: { layers: layersRule } } },
    rules: { 'web/layers': 'error' },
  },
  {
    // One compute layer: the page calls the engine in web/compute/ alone (and the Train tab's worker in
    // web/train/); panels and views get results from there and draw them.
    files: ['web/**/*.ts'],
    ignores: ['web/compute/**', 'web/train/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...[
          'CallExpression > MemberExpression.callee',
          'CallExpression > TSNonNullExpression.callee > MemberExpression',
          'CallExpression > ChainExpression.callee > MemberExpression',
        ].map((callee) => ({
          selector: `${callee}[property.name=${ENGINE_CALLS}]`,
          message: 'The engine is called in web/compute/ only: add a function there and call it.',
        })),
      ],
    },
  },
  {
    files: ['tests/**/*.ts', 'src/js/**/*.ts', '*.ts'],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
)
