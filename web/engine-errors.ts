// The engine's errors are English (they name arguments and shapes for developers). The Chinese page
// shows a Chinese sentence chosen by the message's pattern, and the engine's own words beneath it.

import { ENGINE_ERROR_FALLBACK_ZH, ENGINE_ERRORS_ZH } from './i18n/engine-errors'
import type { Lang } from './params'

/** The message to show in the page's language; `detail` is the engine's English text when translated. */
export function engineError(lang: Lang, message: string): { text: string; detail: string | null } {
  if (lang !== 'zh') return { text: message, detail: null }
  const hit = ENGINE_ERRORS_ZH.find(([re]) => re.test(message))
  return { text: hit ? hit[1] : ENGINE_ERROR_FALLBACK_ZH, detail: message }
}

/** An engine error as one line in the page's language: the sentence, and on the Chinese page the engine's words in brackets. */
export function engineErrorText(lang: Lang, e: unknown): string {
  const msg = engineError(lang, e instanceof Error ? e.message : String(e))
  return msg.detail ? `${msg.text} (${msg.detail})` : msg.text
}
