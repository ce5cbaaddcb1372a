// The heavy docs generators (Docusaurus, Astro Starlight) for docs-sites' tests: installed by npm, at the pinned
// versions below, into a cache folder outside the repository (not the project's dependencies), once per version
// set. A course site is then built in a fresh folder inside it, so Node and the bundlers find the generator
// there, while the site's own node_modules holds the packed attention-playground.
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { execFileSync } from 'node:child_process'

/** Exact versions that install and build on Node 20 (Docusaurus 3.10 needs Node ≥ 20; Astro 6 and 7 need Node 22). */
export const GENERATORS = {
  docusaurus: {
    '@docusaurus/core': '3.10.2',
    '@docusaurus/preset-classic': '3.10.2',
    '@mdx-js/react': '3.1.1',
    react: '19.2.9',
    'react-dom': '19.2.9',
  },
  starlight: {
    astro: '5.18.2',
    '@astrojs/starlight': '0.37.7',
  },
} as const

export type GeneratorName = keyof typeof GENERATORS

/** Where the generators are cached: $AP_GENERATORS_CACHE, or ~/.cache/attention-playground/docs-generators. */
export const CACHE = process.env.AP_GENERATORS_CACHE ?? join(homedir(), '.cache/attention-playground/docs-generators')

/**
 * The folder holding `name`'s generator in node_modules, installed first if this version set is not cached
 * (into a temporary folder, then renamed: two runs at once never see half an install).
 */
export function generatorFolder(name: GeneratorName): string {
  const versions = GENERATORS[name]
  const key = createHash('sha256')
    .update(JSON.stringify({ versions, node: process.versions.node.split('.')[0] }))
    .digest('hex')
    .slice(0, 16)
  const dir = join(CACHE, `${name}-${key}`)
  if (existsSync(join(dir, 'installed'))) return dir
  mkdirSync(CACHE, { recursive: true })
  const tmp = mkdtempSync(join(CACHE, `${name}-installing-`))
  try {
    writeFileSync(
      join(tmp, 'package.json'),
      JSON.stringify({ name: `${name}-generator`, private: true, dependencies: versions }, null, 2),
    )
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: tmp,
      stdio: 'pipe',
      encoding: 'utf8',
    })
    writeFileSync(join(tmp, 'installed'), JSON.stringify(versions))
    try {
      renameSync(tmp, dir)
    } catch (e) {
      // another run installed the same set meanwhile: use its folder
      if (!existsSync(join(dir, 'installed'))) throw e
      rmSync(tmp, { recursive: true, force: true })
    }
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true })
    const err = e as { stderr?: string }
    throw new Error(`installing ${name} (${JSON.stringify(versions)}) into ${CACHE} failed:\n${err.stderr ?? ''}`, {
      cause: e,
    })
  }
  return dir
}
