// docs/docs-sites.md's recipes, generator by generator: each file a site needs → the marker its fenced block holds
// (its first line), and the shell block a course author runs (copying the package's dist/). The e2e tests write
// and run exactly these blocks; tests/unit/docs-sites.test.ts checks that every block of the page is one of them.
export const RECIPES = 'docs/docs-sites.md'

export const RECIPE_FILES = {
  vitepress: {
    'docs/.vitepress/config.mjs': '// docs/.vitepress/config.mjs',
    'docs/.vitepress/theme/index.js': '// docs/.vitepress/theme/index.js',
    'docs/index.md': '<!-- any page, e.g. docs/index.md -->',
  },
  sphinx: { 'docs/conf.py': '# docs/conf.py', 'docs/index.rst': '.. docs/index.rst' },
  mkdocs: {
    'mkdocs.yml': '# mkdocs.yml',
    'overrides/main.html': '{# overrides/main.html #}',
    'docs/index.md': '<!-- docs/index.md -->',
  },
  docusaurus: {
    'docusaurus.config.js': '// docusaurus.config.js',
    'src/attention-playground.js': '// src/attention-playground.js',
    'src/pages/index.mdx': '{/* src/pages/index.mdx',
  },
  starlight: {
    'astro.config.mjs': '// astro.config.mjs',
    'src/content.config.ts': '// src/content.config.ts',
    'src/components/AttentionPlayground.astro': '// src/components/AttentionPlayground.astro',
    'src/content/docs/index.mdx': '# src/content/docs/index.mdx',
  },
} as const

/** The shell blocks, by generator: run in the site's folder, where node_modules holds the installed package. */
export const RECIPE_SHELL = {
  sphinx: "# Sphinx: the package's dist/",
  mkdocs: "# MkDocs: the package's dist/",
} as const
