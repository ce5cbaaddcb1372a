// The path through the views (web/view-table.ts, in its order and groups): above a view beyond the lessons,
// one line on what to read first (links to those views); under every view but the last, "Next: <tab> →" to
// the following one. Both are links (`?view=…`, so that they also open in a new tab); a plain click selects
// the view in place and brings the top of the playground into view.

import { h } from '../dom'
import type { Translate } from '../i18n'
import { VIEW_NAMES, viewEntry, type View } from '../view-table'

export interface Path {
  needs: HTMLElement
  next: HTMLElement
  render(t: Translate, view: View, lang: string): void
}

export function createPath(select: (v: View) => void, top: () => HTMLElement): Path {
  const needs = h('p', { class: 'view-needs', 'data-panel': 'needs', hidden: true })
  const next = h('nav', { class: 'view-next', 'data-panel': 'next', hidden: true })
  const link = (view: View, text: string, lang: string): HTMLAnchorElement => {
    const a = h('a', { href: `?lang=${lang}&view=${view}`, 'data-view-link': view, text })
    a.addEventListener('click', (ev) => {
      if (ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return
      ev.preventDefault()
      select(view)
      const el = top()
      if (el.getBoundingClientRect().top < 0) el.scrollIntoView({ block: 'start' })
    })
    return a
  }
  let key = ''
  return {
    needs,
    next,
    render(t, view, lang) {
      if (key === `${view} ${lang}`) return
      key = `${view} ${lang}`
      const entry = viewEntry(view)
      needs.hidden = !entry.needs
      needs.replaceChildren()
      if (entry.needs) {
        needs.append(h('strong', { text: t('needsFirst') }), ' ', t(entry.needs.text), ' ')
        entry.needs.views.forEach((v, i) => {
          if (i) needs.append(' · ')
          needs.append(link(v, `${t(viewEntry(v).tab)} →`, lang))
        })
      }
      const after = VIEW_NAMES[VIEW_NAMES.indexOf(view) + 1]
      next.hidden = !after
      next.setAttribute('aria-label', t('nextViewLabel'))
      next.replaceChildren(...(after ? [link(after, t('nextView', { tab: t(viewEntry(after).tab) }), lang)] : []))
    },
  }
}
