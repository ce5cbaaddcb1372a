// The engine's errors are English (they name arguments and shapes for developers). The Chinese page
// shows a Chinese sentence chosen by the message's pattern, and the engine's own words beneath it.

import type { WasmLoadError } from 'attention-playground'
import { ENGINE_ERROR_FALLBACK_ZH, ENGINE_ERRORS_ZH } from './i18n/engine-errors'
import type { T } from './i18n/core'
import type { BootKey } from './i18n/boot'
import type { Lang } from './params'
import { errorMessage } from './format'

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

/**
 * An engine that did not load, in the page's language: for a WasmLoadError the URL tried, what came back and what to
 * serve there (never Emscripten's "Aborted(…)"); any other failure as the package words it.
 */
export function loadFailureText(t: T<BootKey>, err: unknown): string {
  // By name, not instanceof: the views import this file, and the unit tier runs them without the built package.
  if ((err as Error | null)?.name !== 'WasmLoadError') return `${t('loadFailed')} ${errorMessage(err)}`
  const e = err as WasmLoadError
  const why =
    e.reason === 'network'
      ? t('wasmWhyNetwork')
      : e.reason === 'http'
        ? t('wasmWhyHttp', { status: e.status ?? '' })
        : e.reason === 'type'
          ? t('wasmWhyType', { type: e.contentType ?? '—' })
          : t(e.reason === 'file' ? 'wasmWhyFile' : 'wasmWhyCompile', { detail: e.detail })
  return t('wasmLoadFailed', { url: e.url || 'wasmBinary', why, serve: t('wasmServeHint', { file: e.file }) })
}
