// The Train tab's task poems (issue 37 item 6) in real Chromium, on the built site: the trainer module loaded in the
// panel's Web Worker trains the language model there, and what the panel shows equals this Node process's run of
// the same recipe on the same engine (relaxed SIMD in both): the model's shape (trainer.config), the validation loss
// and training losses after 10 steps, the sample poem (the same prompt, temperature and seed) laid out in its lines,
// and the head scores equal to the package's (ap.loadLanguageModel of the worker's exported weights) on the same
// validation poems. The top paragraph says what task poems teaches (not "it → animal"), zh and en; axe finds nothing.
// A trained model's weights given to the worker's trainer write a poem in the form, shown as its lines.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import type { Engine, LanguageModelHeadScores, PoemsTrainer } from 'attention-playground'
import { init } from '../../dist/index.js'
import { formShare, keepsForm, POEMS_TARGET, poemOf, poemStarts } from '../../scripts/poem-form.mjs'
import { axeViolations, ROOT } from './harness.mjs'
import { useEnv } from './env'
import { usePages } from './page-fixture'
import { openTrainTab, type TrainTab } from './train-tab'
import { bestScore, poemLines } from '../../web/train/poems-charts'
import { SAMPLES, SCORE_POEMS, VALIDATION_POEMS } from '../../web/train/poems-session'
import { POEM_DEFAULTS } from '../../web/compute/generate'

useEnv()
const pages = usePages()

let engine: Engine | null = null
const getEngine = async () => (engine ??= (await init()) as unknown as Engine)

const POEMS = join(ROOT, 'public/poems')
const vocab = JSON.parse(readFileSync(join(POEMS, 'vocab.json'), 'utf8')) as string[]
const index = new Map(vocab.map((c, i) => [c, i]))
const encode = (file: string) =>
  Uint16Array.from(Array.from(readFileSync(join(POEMS, file), 'utf8'), (c) => index.get(c)!))
const train = encode('train.txt')
const validation = encode('validation.txt')
/** The validation poems as ids, each with its closing 0 ("\n"), in order: the trainer's validation poems. */
const validationPoems = (() => {
  const out: number[][] = [[]]
  for (const id of validation) {
    out[out.length - 1].push(id)
    if (id === 0) out.push([])
  }
  return out.filter((p) => p.length)
})()

/** The worker's trainer (web/train/worker.ts's test hook), and what it is called with, run inside the worker. */
type WorkerScope = { __apTrainer(): PoemsTrainer }

/** The Train tab with task poems created (its step-0 measurements shown); the panel's worker. */
async function openPoems(lang: 'en' | 'zh', seed = 0): Promise<TrainTab> {
  const tab = await openTrainTab(pages, lang, { timeout: 60_000 })
  const { page } = tab
  const panel = page.locator('section.ap-train')
  if (seed) await panel.locator('input[name="seed"]').fill(String(seed))
  await panel.locator('select[name="task"]').selectOption('poems')
  // the step-0 measurements are in once the status names their step
  await expect
    .poll(() => panel.locator('.tr-status').textContent(), { timeout: 180_000, interval: 500 })
    .toMatch(/^(step 0 · .*\(step 0\)|第 0 步 · .*（第 0 步）)/)
  return tab
}

/** Step ×10 and the status once the 10 steps and their measurements are in. */
async function stepTen(page: Page, to: number): Promise<string> {
  const panel = page.locator('section.ap-train')
  await panel.locator('button[name="step"]').click()
  const at = new RegExp(`^(step ${to} ·|第 ${to} 步)`)
  await expect.poll(() => panel.locator('.tr-status').textContent(), { timeout: 240_000, interval: 500 }).toMatch(at)
  // the last step's snapshot carries the measurements (validation at this step)
  await expect
    .poll(() => panel.locator('.tr-status').textContent(), { timeout: 60_000 })
    .toMatch(new RegExp(`[（(](step|第) ${to}`))
  return (await panel.locator('.tr-status').textContent()) ?? ''
}

/** The heads table as numbers: [layer.head] → each kind's exact score (data-value). */
async function headTable(page: Page): Promise<Record<string, Record<string, number>>> {
  return page
    .locator('[data-train="heads"] tbody tr')
    .evaluateAll((rows) =>
      Object.fromEntries(
        rows.map((r) => [
          (r as HTMLElement).dataset.head!,
          Object.fromEntries(
            Array.from(r.querySelectorAll<HTMLElement>('td[data-score]')).map((td) => [
              td.dataset.score!,
              Number(td.dataset.value),
            ]),
          ),
        ]),
      ),
    )
}

function expectScores(table: Record<string, Record<string, number>>, s: LanguageModelHeadScores): void {
  const keys = Object.keys(table).sort()
  expect(keys).toEqual(s.previousLine.flatMap((row, l) => row.map((_, h) => `${l}.${h}`)).sort())
  for (const key of keys) {
    const [l, h] = key.split('.').map(Number)
    for (const kind of ['previousLine', 'previousChar', 'lineEnd'] as const)
      expect(Math.abs(table[key][kind] - s[kind][l][h]), `${key} ${kind}`).toBeLessThan(1e-6)
  }
}

describe('task poems in the Train tab', () => {
  it('en: the shape, 10 steps in the worker equal to Node, the sample poem, heads equal to the package', async () => {
    const { page, errors, worker } = await openPoems('en')
    const panel = page.locator('section.ap-train')
    const ap = await getEngine()
    using tr = ap.createTrainer({ task: 'poems', vocab, train, validation })
    // the top paragraph says what this task teaches
    const intro = (await panel.locator('[data-train="intro"]').textContent()) ?? ''
    expect(intro).toMatch(/^Task Tang poems: a small GPT learns to write five-character Tang poems/)
    expect(intro).toMatch(/goes beyond them\.$/)
    expect(intro).not.toMatch(/animal|street|“it”/)
    // its shape is the trainer's config
    const c = tr.config
    expect(await panel.locator('[data-train="shape"]').textContent()).toBe(
      `Model: ${c.layers} layers × ${c.heads} heads × d_model ${c.dModel} (head size ${c.dModel / c.heads}), MLP ` +
        `${4 * c.dModel} · vocabulary ${vocab.length.toLocaleString('en-US')} characters · context ${c.context} · batch ${c.batch} windows · learned ` +
        `positions · ${c.parameters.toLocaleString('en-US')} parameters · AdamW, peak learning rate ${c.lr}, ` +
        `${c.warmup} warm-up steps, cosine decay to ${c.minLr.toPrecision(3).replace(/\.?0+$/, '')} at step ${c.decaySteps}`,
    )
    // the options that make sense here: positions learned / RoPE (no sinusoidal table), seed, lr, the run's steps
    expect(await panel.locator('select[name="positions"] option[value="sinusoidal"]').isDisabled()).toBe(true)
    for (const hidden of ['select[name="score"]', 'select[name="heads"]', 'select[name="optimizer"]', '.tr-sentence'])
      expect(await panel.locator(hidden).isVisible(), hidden).toBe(false)
    expect(await panel.locator('input[name="steps"]').inputValue()).toBe('500')
    // step 0: the untrained model's validation loss, about ln 2,401 = 7.78
    const val0 = tr.evaluate({ limit: VALIDATION_POEMS }).loss
    expect(val0).toBeGreaterThan(7.5)
    expect(await panel.locator('.tr-status').textContent()).toMatch(
      new RegExp(`^step 0 · training loss – · validation loss ${val0.toFixed(3)} \\(step 0\\)`),
    )
    // 10 steps in the worker; the same 10 in Node
    const status = await stepTen(page, 10)
    const losses = Array.from({ length: 10 }, () => tr.step(1).loss)
    const val = tr.evaluate({ limit: VALIDATION_POEMS }).loss
    expect(status).toMatch(
      new RegExp(`^step 10 · training loss ${losses[9].toFixed(3)} · validation loss ${val.toFixed(3)} \\(step 10\\)`),
    )
    const inWorker = await worker().evaluate(() => {
      const t = (self as unknown as WorkerScope).__apTrainer()
      return { steps: t.steps, val: t.evaluate({ limit: 200 }).loss, bytes: Array.from(t.exportSafetensors()) }
    })
    expect(inWorker.steps).toBe(10)
    expect(Math.abs(inWorker.val - val)).toBeLessThan(1e-5)
    expect(await panel.locator('[data-train-view="poems-curves"] canvas').getAttribute('aria-label')).toBe(
      `Loss and form: training loss ${losses[9].toFixed(3)}, validation loss ${val.toFixed(3)}, ` +
        `${Math.round(panelFormShare(tr) * 100)} % of sampled poems keep the form`,
    )
    // the sample poem: validation poem 1's first character, temperature 0.8, seed 1, laid out in its lines
    const s = tr.sample({ prompt: [validationPoems[0][0]], temperature: 0.8, seed: 1 })
    const written = poemOf(vocab[validationPoems[0][0]] + (s.text ?? '')) ?? vocab[validationPoems[0][0]] + s.text
    const poem = panel.locator('[data-train="poem"]')
    expect(await poem.getAttribute('data-poem-text')).toBe(written)
    expect(await poem.locator('span').allTextContents()).toEqual(poemLines(written))
    // the heads: the package's scores of the worker's weights on the same validation poems
    const model = ap.loadLanguageModel(Uint8Array.from(inWorker.bytes))
    const scores = model.headScores(validationPoems.slice(0, SCORE_POEMS))
    model.dispose()
    expectScores(await headTable(page), scores)
    const named = scores.labels.flat().filter(Boolean).length
    const b = bestScore(scores)
    expect(await panel.locator('[data-train="heads-note"]').textContent()).toBe(
      named
        ? 'A head is named by its largest score once it reaches 0.4; the others do not specialise.'
        : `No head specialises yet: the largest score is ${b.score.toFixed(2)} (${KIND_EN[b.kind]}, layer ${b.layer + 1} head ${b.head + 1}); a head is named when one of its scores reaches 0.4.`,
    )
    expect(await panel.locator('[data-train="heads"] tbody tr[data-head-role]').count()).toBe(named)
    expect(await axeViolations(page)).toEqual([])
    expect(errors).toEqual([])
  }, 600_000)

  it('zh: the sample model’s weights in the worker write a poem in the form, shown as its lines; axe 0', async () => {
    const { page, errors, worker } = await openPoems('zh')
    const panel = page.locator('section.ap-train')
    const intro = (await panel.locator('[data-train="intro"]').textContent()) ?? ''
    expect(intro).toMatch(/^任务“唐诗”：一个小型 GPT 在你的浏览器里从零开始学习写五言唐诗。/)
    expect(intro).toMatch(/超出课程内容。$/)
    expect(intro).not.toMatch(/animal|街道|动物/)
    // the trained sample's weights (public/samples/poems.safetensors, 1,000 steps) into the worker's trainer
    const ap = await getEngine()
    const sample = ap.loadLanguageModel(readFileSync(join(ROOT, 'public/samples/poems.safetensors')))
    const params = Object.fromEntries(
      Object.entries(sample.parameters()).map(([k, t]) => [k, { shape: t.shape, data: Array.from(t.data) }]),
    )
    sample.dispose()
    await worker().evaluate((p) => (self as unknown as WorkerScope).__apTrainer().setParameters(p), params)
    await stepTen(page, 10)
    const written = (await panel.locator('[data-train="poem"]').getAttribute('data-poem-text')) ?? ''
    expect(keepsForm(written)).toBe(true)
    const lines = await panel.locator('[data-train="poem"] span').allTextContents()
    expect([4, 8]).toContain(lines.length)
    for (const [i, line] of lines.entries())
      expect(line).toMatch(i % 2 ? /^\p{Script=Han}{5}。$/u : /^\p{Script=Han}{5}，$/u)
    expect(await panel.locator('[data-train="poem"] span.tr-off').count()).toBe(0)
    expect(await panel.locator('[data-train="poem-form"]').textContent()).toBe(
      `符合格式：${lines.length} 行，每行五个字。`,
    )
    // the same weights in Node (the sample, then the same 10 steps) write the same poem
    using tr = ap.createTrainer({ task: 'poems', vocab, train, validation })
    tr.setParameters(params)
    tr.step(10)
    const s = tr.sample({ prompt: [validationPoems[0][0]], temperature: 0.8, seed: 1 })
    expect(written).toBe(poemOf(vocab[validationPoems[0][0]] + (s.text ?? '')))
    expect(await panel.locator('.tr-status').textContent()).toMatch(
      new RegExp(
        `^第 10 步 · 训练损失 [\\d.]+ · 验证集损失 [\\d.]+（第 10 步）· 采样的 ${SAMPLES} 首诗中 \\d+ 首符合格式`,
      ),
    )
    // "look inside": the worker's weights at step 10 open in the Write a poem view, which writes with them what the
    // package writes in Node from the same weights (the view's prompt and POEM_DEFAULTS)
    const exported = await worker().evaluate(() =>
      Array.from((self as unknown as WorkerScope).__apTrainer().exportSafetensors()),
    )
    await panel.locator('[data-train="look-inside"]').click()
    await expect.poll(() => new URL(page.url()).searchParams.get('view'), { timeout: 30_000 }).toBe('generate')
    const gen = page.locator('[data-step="generate"]')
    await expect
      .poll(() => gen.locator('.model-sample-note').textContent(), { timeout: 60_000 })
      .toBe('训练页正在训练的权重，即你按下“查看内部”时的状态。')
    const prompt = await gen.locator('input[name="poemPrompt"]').inputValue()
    const lm = ap.loadLanguageModel(Uint8Array.from(exported))
    const { temperature, topK, topP, seed } = POEM_DEFAULTS
    const wrote = lm.generate({ prompt, temperature, topK, topP, seed })
    lm.dispose()
    await expect
      .poll(() => gen.locator('[data-poem]').getAttribute('data-poem'), { timeout: 60_000 })
      .toBe(prompt + wrote.text.replace(/\n$/, ''))
    expect(await axeViolations(page)).toEqual([])
    expect(errors).toEqual([])
  }, 600_000)
})

const KIND_EN = {
  previousLine: 'same place in the previous line',
  previousChar: 'previous character',
  lineEnd: 'end of the previous line',
}

/** The share of the panel's sampled poems (the first SAMPLES validation poems' first characters, seeds 1…) in the form. */
function panelFormShare(tr: PoemsTrainer): number {
  const written = poemStarts(validation, SAMPLES).map(
    (id, i) => vocab[id] + (tr.sample({ prompt: [id], temperature: POEMS_TARGET.temperature, seed: 1 + i }).text ?? ''),
  )
  return formShare(written).share
}
