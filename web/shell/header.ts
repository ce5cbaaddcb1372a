// The playground's header: title, language switch, "copy link", and the export bar ("copy as PyTorch
// code", "download .py"), with the status line and the fallback code box. On a course page
// (compact) only the export bar stays.

import { h, setText } from '../dom'
import { errorMessage } from '../format'
import type { Translate } from '../i18n'
import { downloadBlob } from '../export/png'

export interface HeaderDeps {
  compact: boolean
  exports: boolean
  shareUrl?: () => string
  /** The current translation (it changes with the language). */
  t(): Translate
  toggleLang(): void
  pytorchCode(): string
  /** Asks for a render (the "copied" mark comes and goes). */
  rerender(): void
  disposed(): boolean
  /** The Embed button and its box (the page only). */
  embed?: { button: HTMLElement; box: HTMLElement }
}

export interface Header {
  /** The header (holding the code box and status line). */
  els: HTMLElement[]
  /** `exportsAct`: whether the open tab shows what the PyTorch export writes (it is hidden elsewhere). */
  render(t: Translate, exportsAct?: boolean): void
  /** Runs an export action; its error goes to the status line. */
  safely(fn: () => unknown): void
}

function headerElements(d: HeaderDeps) {
  const e = {
    title: h('h1'),
    subtitle: h('p', { class: 'subtitle' }),
    langBtn: h('button', { type: 'button', class: 'btn-small', name: 'lang' }),
    copyBtn: h('button', { type: 'button', class: 'btn-small', name: 'copyLink', hidden: !d.shareUrl }),
    pyBtn: h('button', { type: 'button', class: 'btn-small', 'data-export': 'pytorch', hidden: !d.exports }),
    pyDlBtn: h('button', { type: 'button', class: 'btn-small', 'data-export': 'pytorch-download', hidden: !d.exports }),
    status: h('p', { class: 'ap-status', role: 'status' }),
    codeBox: h('textarea', { class: 'ap-code', readonly: true, hidden: true, spellcheck: 'false' }),
  }
  const titleBox = h('div', { class: 'ap-titles' }, e.title, e.subtitle)
  // The status line and code box sit in the header, by the buttons they answer: all content is in a landmark.
  const header = h(
    'header',
    { class: 'ap-header' },
    titleBox,
    h('div', { class: 'ap-actions' }, e.pyBtn, e.pyDlBtn, e.copyBtn, d.embed?.button ?? null, e.langBtn),
    e.status,
    e.codeBox,
    d.embed?.box ?? null,
  )
  // A course page has its own title and language: compact keeps only the export bar.
  titleBox.hidden = d.compact
  e.langBtn.hidden = d.compact
  header.hidden = d.compact && !d.exports
  if (d.compact) header.classList.add('ap-bar')
  return { ...e, header }
}

/** Copies the program to the clipboard; without one, shows it in the code box to copy by hand. */
async function copyCode(d: HeaderDeps, codeBox: HTMLTextAreaElement, say: (msg: string) => void): Promise<void> {
  let code: string
  try {
    code = d.pytorchCode()
  } catch (e) {
    say(`${d.t()('exportFailed')} ${errorMessage(e)}`)
    return
  }
  try {
    await navigator.clipboard.writeText(code)
    codeBox.hidden = true
    say(d.t()('pytorchCopied'))
  } catch {
    // No clipboard (insecure context, denied permission): show the code to copy by hand.
    say(d.t()('copyFailed'))
    codeBox.hidden = false
    codeBox.value = code
    codeBox.select()
  }
}

export function createHeader(d: HeaderDeps): Header {
  const { title, subtitle, langBtn, copyBtn, pyBtn, pyDlBtn, status, codeBox, header } = headerElements(d)
  let copiedUntil = 0

  const say = (msg: string) => {
    status.textContent = msg
  }
  const safely = (fn: () => unknown) => {
    Promise.resolve()
      .then(fn)
      .then(() => {
        if (status.textContent?.startsWith(d.t()('exportFailed'))) say('')
      })
      .catch((e) => say(`${d.t()('exportFailed')} ${errorMessage(e)}`))
  }

  async function copyLink(): Promise<void> {
    if (!d.shareUrl) return
    try {
      await navigator.clipboard.writeText(d.shareUrl())
      copiedUntil = performance.now() + 2000
      d.rerender()
      setTimeout(() => {
        if (!d.disposed()) d.rerender()
      }, 2100)
    } catch {
      // No clipboard permission (e.g. an insecure origin): the address bar holds the same link.
    }
  }

  copyBtn.addEventListener('click', () => void copyLink())
  langBtn.addEventListener('click', () => d.toggleLang())
  pyBtn.addEventListener('click', () => void copyCode(d, codeBox, say))
  pyDlBtn.addEventListener('click', () =>
    safely(() => downloadBlob(new Blob([d.pytorchCode()], { type: 'text/x-python' }), 'attention.py')),
  )

  return {
    els: [header],
    safely,
    render(t, exportsAct = true) {
      pyBtn.hidden = pyDlBtn.hidden = !d.exports || !exportsAct
      setText(title, t('title'))
      setText(subtitle, t('subtitle'))
      setText(langBtn, t('langSwitch'))
      langBtn.lang = t('langSwitchLang') // it names the other language, in that language
      setText(copyBtn, performance.now() < copiedUntil ? `✓ ${t('copied')}` : t('copyLink'))
      langBtn.setAttribute('aria-label', t('langSwitchLabel'))
      setText(pyBtn, t('copyPytorch'))
      setText(pyDlBtn, t('downloadPy'))
    },
  }
}
