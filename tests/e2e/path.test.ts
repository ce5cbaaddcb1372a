// A path through the views (issue 39 item 4), in real Chromium, en and zh:
// - the tab bar is in three groups, each opened by its label: the lessons' views in the lessons' order (Why
//   attention, where Q, K, V come from, the steps, ÷√d_k, decoding), beyond the lessons, the tools;
// - every view but the last ends in a "Next" link to the following tab, which opens it; every view beyond the
//   lessons (and the language model's tool, generate) starts with one line "What you need first" whose links open
//   the views it names; the others have none;
// - quiz progress is one store: an answer in the guided tour moves the tour's count and the count of the
//   panel under the view alike, and both say the same.
import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { settled } from './harness.mjs'
import { env, useEnv } from './env'
import { RENDERED, usePages } from './page-fixture'
import { VIEWS } from '../../web/state'
import { VIEW_TABLE } from '../../web/view-table'

useEnv()

const pages = usePages()

async function open(query: string): Promise<Page> {
  const { page } = await pages.open(env.site.url + query, { viewport: { width: 1366, height: 768 }, ready: RENDERED })
  return page
}

const selected = (page: Page) => page.locator('[role="tab"][aria-selected="true"]').getAttribute('data-view')

describe('the tabs are a path', () => {
  for (const lang of ['en', 'zh'] as const)
    it(`three groups, the lessons first in their order (${lang})`, async () => {
      const page = await open(`?lang=${lang}`)
      const bar = await page.locator('.tabs').evaluate((list) =>
        [...list.children].map((e) => {
          const el = e as HTMLElement
          return el.classList.contains('tab-group') ? `[${el.dataset.group}:${el.textContent}]` : `${el.dataset.view}`
        }),
      )
      const label =
        lang === 'en' ? ['The lessons', 'Beyond the lessons', 'Tools'] : ['课程内容', '超出课程内容', '工具']
      expect(bar).toEqual([
        `[lessons:${label[0]}]`,
        'why',
        'origin',
        'pipeline',
        'scaling',
        'decode',
        `[beyond:${label[1]}]`,
        'positions',
        'backward',
        'flash',
        'heads',
        'sinks',
        `[tools:${label[2]}]`,
        ...VIEW_TABLE.filter((v) => v.group === 'tools').map((v) => v.name),
      ])
      // The default view is still the steps, and the tab bar is the views table.
      expect(await selected(page)).toBe('pipeline')
      expect(bar.filter((x) => !x.startsWith('['))).toEqual([...VIEWS])
    })

  for (const lang of ['en', 'zh'] as const)
    it(`every view ends in "next" to the following one; the advanced ones say what comes first (${lang})`, async () => {
      const page = await open(`?lang=${lang}&view=${VIEWS[0]}`)
      for (let i = 0; i < VIEWS.length; i++) {
        const view = VIEWS[i]
        expect(await selected(page), `at ${i}`).toBe(view)
        const needs = page.locator('[data-panel="needs"]')
        const entry = VIEW_TABLE.find((v) => v.name === view)!
        // Every view beyond the lessons has the line, and a tool that builds on other views (generate) too.
        if (entry.group === 'beyond') expect(entry.needs, view).toBeDefined()
        if (entry.needs) {
          await expect(needs.isVisible(), `${view}: what you need first`).resolves.toBe(true)
          const text = (await needs.textContent()) ?? ''
          expect(text).toMatch(lang === 'en' ? /^What you need first:/ : /^先要了解：/)
          const links = await needs.locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('data-view-link')))
          expect(links.length, view).toBeGreaterThan(0)
          for (const l of links) expect(VIEWS, `${view} needs ${l}`).toContain(l)
        } else await expect(needs.isVisible(), `${view}: no prerequisites line`).resolves.toBe(false)
        const next = page.locator('[data-panel="next"] a')
        if (i === VIEWS.length - 1) {
          await expect(next.count(), `${view} is the last`).resolves.toBe(0)
          break
        }
        const tab = await page.locator(`[role="tab"][data-view="${VIEWS[i + 1]}"]`).textContent()
        expect(await next.textContent()).toBe(`${lang === 'en' ? 'Next: ' : '下一个：'}${tab} →`)
        expect(await next.getAttribute('href')).toBe(`?lang=${lang}&view=${VIEWS[i + 1]}`)
        // It closes the view: nothing of the view's main column below it.
        const last = await page.locator('.ap-main').evaluate((m) => {
          const shown = [...m.children].filter((c) => (c as HTMLElement).offsetParent !== null)
          return (shown.at(-1) as HTMLElement).dataset.panel
        })
        expect(last, `${view}: "next" ends the view`).toBe('next')
        await next.click()
        await settled(page)
      }
      // A prerequisite link opens its view.
      await page.locator('[role="tab"][data-view="sinks"]').click()
      await settled(page)
      await page.locator('[data-panel="needs"] a[data-view-link="heads"]').click()
      await settled(page)
      expect(await selected(page)).toBe('heads')
    }, 120_000)
})

describe('quiz progress is one store', () => {
  for (const lang of ['en', 'zh'] as const)
    it(`the tour and the panel under the view count alike (${lang})`, async () => {
      const page = await open(`?lang=${lang}&guided=1`)
      const counts = () =>
        page
          .locator('.quiz-tour .quiz-progress, [data-panel="quiz"] .quiz-progress')
          .evaluateAll((ps) => ps.map((p) => p.textContent))
      const before = await counts()
      expect(before.length).toBe(2)
      expect(before[0], 'the same count in the tour and under the view').toBe(before[1])
      const right = Number(/\d+/.exec(before[0] ?? '')![0])
      expect(right).toBe(0)
      // Answer the tour's question right (its option that the quiz marks right after a click).
      const q = page.locator('.quiz-tour [data-quiz]').first()
      const n = await q.locator('button').count()
      for (let i = 0; i < n; i++) {
        await q.locator('button').nth(i).click()
        await settled(page)
        if ((await q.getAttribute('data-quiz-result')) === 'right') break
      }
      expect(await q.getAttribute('data-quiz-result')).toBe('right')
      const after = await counts()
      expect(after[0]).toBe(after[1])
      expect(Number(/\d+/.exec(after[0] ?? '')![0]), after[0] ?? '').toBe(1)
      // The total is the view's (the tour's questions and the panel's), not one step's.
      const total = (s: string | null) => Number([...(s ?? '').matchAll(/\d+/g)][1][0])
      expect(total(after[0])).toBeGreaterThan(1)
      // Leaving the tour: the panel shows the answer and the same count.
      await page.locator('[data-panel="guided"] button[name="exit"]').click()
      await settled(page)
      expect(await page.locator('[data-panel="quiz"] .quiz-progress').textContent()).toBe(after[0])
    })
})
