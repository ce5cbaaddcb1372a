// ESLint for every TypeScript and JavaScript file of the repo: @eslint/js and typescript-eslint's
// recommended rules, type-aware for the TypeScript (the tsconfig projects of src/js, web and tests).
// No stylistic rules: the style is Prettier's (.prettierrc), checked by `prettier --check`.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import globals from 'globals'

// The engine's computing calls (ap.run, ap.attention, …), for the compute layer's rule below.
const ENGINE_CALLS =
  '/^(run|projections|attention|attentionBackward|runBackward|multiHeadAttention|flashTrace|tokenize|createTrainer)$/'

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
