// The exported program's comments in Chinese, for the Chinese page (the Chinese texts: web/i18n/export-comments.ts).
// Only comments the exporter writes are matched (whole comment text), so a user's sentence containing "#" is never
// touched.

import { EXPORT_COMMENT_PATTERNS_ZH, EXPORT_COMMENTS_ZH } from '../i18n/export-comments'

export function commentsToZh(code: string): string {
  return code
    .split('\n')
    .map((line) => {
      const at = line.lastIndexOf('# ')
      if (at < 0) return line
      const text = line.slice(at + 2)
      const exact = EXPORT_COMMENTS_ZH[text]
      if (exact !== undefined) return line.slice(0, at + 2) + exact
      for (const [re, zh] of EXPORT_COMMENT_PATTERNS_ZH)
        if (re.test(text)) return line.slice(0, at + 2) + text.replace(re, zh)
      return line
    })
    .join('\n')
}
