// Every string of web/i18n/ (docs/design.md, "Adding a string"), found by reading the folder: each module's exported
// `{ en, zh }` tables and its Chinese translations of English text that is not a table's (the engine's messages, the
// exported program's comments), so what is added there is checked by web-i18n and web-glossary without a list.
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { LANGS, type Lang, type Table } from '../../web/i18n/core'
import { REPO_ROOT } from './sources'

export const I18N_DIR = 'web/i18n'

export interface StringTable {
  /** The module and the export, e.g. `modern.MODERN`. */
  name: string
  file: string
  table: Table<string>
}

/** One Chinese string: where it is (`module.key`), and the English it says when there is one. */
export interface ZhString {
  where: string
  zh: string
  en: string | null
}

const isStrings = (v: unknown): v is Record<string, string> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((s) => typeof s === 'string')

const isTable = (v: unknown): v is Table<string> =>
  typeof v === 'object' && v !== null && LANGS.every((l) => isStrings((v as Record<Lang, unknown>)[l]))

const isPatterns = (v: unknown): v is Array<[RegExp, string]> =>
  Array.isArray(v) && v.every((p) => Array.isArray(p) && p[0] instanceof RegExp && typeof p[1] === 'string')

/** The modules of web/i18n/ that hold strings (all but the machinery and the page's merge). */
export const STRING_FILES = readdirSync(join(REPO_ROOT, I18N_DIR)).filter(
  (f) => f.endsWith('.ts') && f !== 'core.ts' && f !== 'index.ts',
)

const modules = await Promise.all(
  STRING_FILES.map(async (file) => ({
    file,
    mod: file.replace(/\.ts$/, ''),
    exports: (await import(pathToFileURL(join(REPO_ROOT, I18N_DIR, file)).href)) as Record<string, unknown>,
  })),
)

export const TABLES: StringTable[] = modules.flatMap(({ file, mod, exports }) =>
  Object.entries(exports)
    .filter(([, v]) => isTable(v))
    .map(([name, v]) => ({ name: `${mod}.${name}`, file, table: v as Table<string> })),
)

/** Every Chinese string of the folder: the tables' zh, and the translations (English → Chinese records, patterns). */
export const ZH: ZhString[] = modules.flatMap(({ mod, exports }) =>
  Object.entries(exports).flatMap(([name, v]): ZhString[] => {
    if (isTable(v)) return Object.entries(v.zh).map(([k, zh]) => ({ where: `${mod}.${k}`, zh, en: v.en[k] }))
    if (isStrings(v)) return Object.entries(v).map(([en, zh]) => ({ where: `${mod}.${name}[${en}]`, zh, en }))
    if (isPatterns(v)) return v.map(([, zh], i) => ({ where: `${mod}.${name}[${i}]`, zh, en: null }))
    if (typeof v === 'string') return [{ where: `${mod}.${name}`, zh: v, en: null }]
    return []
  }),
)
