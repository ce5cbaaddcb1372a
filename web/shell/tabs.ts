// The view tabs (one per entry of the views table, web/view-table.ts, in its order) as an ARIA tablist, in the table's groups
// (the lessons, beyond the lessons, tools): each group opens with its label, shown to the eye (the tabs' own
// names are what assistive technology reads in a tablist).

import { h, setText } from '../dom'
import type { Translate } from '../i18n'
import { VIEW_GROUPS, VIEW_NAMES, viewEntry, type View, type ViewGroup } from '../view-table'

export interface Tabs {
  bar: HTMLElement
  hide(view: View): void
  render(t: Translate, current: View): void
}

export function createTabs(select: (v: View) => void, compact = false): Tabs {
  const tabs = VIEW_NAMES.map((v) => {
    const b = h('button', {
      type: 'button',
      role: 'tab',
      class: 'tab',
      'data-view': v,
      'data-group': viewEntry(v).group,
    })
    b.addEventListener('click', () => select(v))
    // The tablist pattern: arrows move between tabs (and select them), Tab leaves the list.
    b.addEventListener('keydown', (ev) => {
      const d = ev.key === 'ArrowRight' ? 1 : ev.key === 'ArrowLeft' ? -1 : 0
      if (!d) return
      ev.preventDefault()
      const i = (VIEW_NAMES.indexOf(v) + d + VIEW_NAMES.length) % VIEW_NAMES.length
      select(VIEW_NAMES[i])
      tabs[i].focus()
    })
    return b
  })
  // A nav landmark holding the tab list (role=tablist on the nav itself would remove the landmark). Inside a
  // course page (compact) no landmark: it would nest in the page's main and repeat once per widget.
  const labels = new Map<ViewGroup, HTMLElement>(
    VIEW_GROUPS.map((g) => [g, h('span', { class: 'tab-group', 'data-group': g, 'aria-hidden': 'true' })]),
  )
  const items = tabs.flatMap((b, i) => {
    const g = viewEntry(VIEW_NAMES[i]).group
    return i === 0 || viewEntry(VIEW_NAMES[i - 1]).group !== g ? [labels.get(g)!, b] : [b]
  })
  const list = h('div', { class: 'tabs', role: 'tablist' }, ...items)
  const bar = h(compact ? 'div' : 'nav', { class: 'ap-nav' }, list)
  let shown: View | null = null
  return {
    bar,
    hide(view) {
      tabs[VIEW_NAMES.indexOf(view)].hidden = true
    },
    render(t, current) {
      // The open tab in sight (a link to view=train on a phone opens with the tab bar scrolled to it).
      if (current !== shown) {
        shown = current
        requestAnimationFrame(() => revealTab(list, tabs[VIEW_NAMES.indexOf(current)]))
      }
      list.setAttribute('aria-label', t('tabsLabel'))
      for (const [g, el] of labels) setText(el, t(GROUP_LABEL[g]))
      if (!compact) bar.setAttribute('aria-label', t('tabsLabel'))
      VIEW_NAMES.forEach((v, i) => {
        setText(tabs[i], t(viewEntry(v).tab))
        tabs[i].setAttribute('aria-selected', String(current === v))
        tabs[i].tabIndex = current === v ? 0 : -1
      })
    },
  }
}

const GROUP_LABEL = { lessons: 'groupLessons', beyond: 'groupBeyond', tools: 'groupTools' } as const

/** Scrolls the tab list sideways (never the page) so that the tab is wholly in view. */
function revealTab(list: HTMLElement, tab: HTMLElement): void {
  const l = list.getBoundingClientRect()
  const b = tab.getBoundingClientRect()
  if (b.left < l.left) list.scrollLeft -= l.left - b.left + 8
  else if (b.right > l.right) list.scrollLeft += b.right - l.right + 8
}
