// Quiz questions of the views on attention as it runs today (flash, heads, sinks), in their own strings.

import type { Lang } from '../params'
import { make, type Question, type QuizFor } from '../quiz/questions'

type Q = { prompt: string; right: string; wrong: string[]; explain: string }

const QUESTIONS: Record<'flash' | 'heads' | 'sinks', Record<Lang, Q[]>> = {
  flash: {
    en: [
      {
        prompt:
          'A new tile raises row i’s running maximum from m_old to m_new. What happens to the row’s O and l first?',
        right: 'Both are multiplied by exp(m_old − m_new)',
        wrong: ['Both are reset to 0', 'O is divided by l', 'Nothing: the maximum does not matter'],
        explain:
          'O and l were summed with exp(s − m_old); to continue with the new maximum every earlier term must become exp(s − m_new) = exp(s − m_old)·exp(m_old − m_new).',
      },
      {
        prompt: 'How much memory do the scores take at once in the fused kernel, for n tokens?',
        right: 'One tile (block rows × block keys), whatever n is',
        wrong: ['n × n', 'n × d', 'Nothing: scores are never computed'],
        explain:
          'Each tile’s scores are turned into m, l and O and thrown away; only a tile (36 × 128 in this engine) exists at a time, so memory grows with n·d (Q, K, V, O), not n².',
      },
    ],
    zh: [
      {
        prompt: '新的块让第 i 行的运行最大值从 m_old 变成 m_new。这一行的 O 和 l 先怎么处理？',
        right: '都乘以 exp(m_old − m_new)',
        wrong: ['都清零', 'O 除以 l', '不用处理：最大值无关紧要'],
        explain:
          'O 和 l 是按 exp(s − m_old) 累加的；要换成新的最大值，之前每一项都要变成 exp(s − m_new) = exp(s − m_old)·exp(m_old − m_new)。',
      },
      {
        prompt: '对 n 个词，融合内核同一时刻为分数占用多少内存？',
        right: '一个块（块行数 × 块键数），与 n 无关',
        wrong: ['n × n', 'n × d', '不占：分数从不计算'],
        explain:
          '每个块的分数变成 m、l、O 后就丢掉；任何时刻只有一个块（本引擎是 36 × 128），所以内存随 n·d（Q、K、V、O）增长，而不是 n²。',
      },
    ],
  },
  heads: {
    en: [
      {
        prompt:
          'With 32 query heads and 8 K/V heads (grouped-query attention), which K/V head does query head 13 read?',
        right: 'K/V head 3',
        wrong: ['K/V head 13', 'K/V head 5', 'All 8 of them'],
        explain:
          'Query head h reads K/V head ⌊h · 8 / 32⌋ = ⌊13 / 4⌋ = 3 (Hugging Face’s repeat_kv: heads 12–15 share it).',
      },
      {
        prompt: 'A sliding window of W = 3 with 1 sink: which keys does query 6 see?',
        right: 'Keys 0, 4, 5 and 6',
        wrong: ['Keys 3 to 6', 'Keys 0 to 6', 'Keys 4 to 6'],
        explain: 'The window keeps i − W < j ≤ i, so 4, 5, 6; the sink keeps key 0 too.',
      },
    ],
    zh: [
      {
        prompt: '32 个查询头、8 个 K/V 头（分组查询注意力）时，查询头 13 读哪个 K/V 头？',
        right: 'K/V 头 3',
        wrong: ['K/V 头 13', 'K/V 头 5', '全部 8 个'],
        explain: '查询头 h 读 K/V 头 ⌊h · 8 / 32⌋ = ⌊13 / 4⌋ = 3（Hugging Face 的 repeat_kv：头 12–15 共用它）。',
      },
      {
        prompt: '窗口 W = 3、1 个汇聚词时，查询 6 能看到哪些键？',
        right: '键 0、4、5、6',
        wrong: ['键 3 到 6', '键 0 到 6', '键 4 到 6'],
        explain: '窗口保留 i − W < j ≤ i，即 4、5、6；汇聚词再保留键 0。',
      },
    ],
  },
  sinks: {
    en: [
      {
        prompt: 'Why can a head not simply give a row “no attention at all” in plain softmax attention?',
        right: 'Softmax makes every row’s weights sum to 1',
        wrong: ['The scores are always positive', 'The first token has the largest value', 'The mask forbids it'],
        explain:
          'Whatever the scores, softmax spreads a total of exactly 1; a head with nothing to say parks it on a token it always sees, usually the first.',
      },
      {
        prompt: 'With a sink logit, a row’s weights sum to 0.7. Where did the other 0.3 go?',
        right: 'To the sink: its share is dropped from the output',
        wrong: ['To the first token', 'It is an error', 'To the padding'],
        explain:
          'The sink is one more logit in the softmax with no value vector: its share of the 1 is simply not added to the output.',
      },
    ],
    zh: [
      {
        prompt: '普通的 softmax 注意力里，为什么一个头不能让某一行“什么都不关注”？',
        right: 'softmax 让每行权重之和为 1',
        wrong: ['分数总是正的', '第一个词的值最大', '掩码不允许'],
        explain:
          '无论分数如何，softmax 总要分出正好 1 的权重；没有内容可看的头就把它停放在一个总能看到的词上，通常是第一个。',
      },
      {
        prompt: '加上汇聚 logit 后，一行的权重和是 0.7。另外 0.3 去哪了？',
        right: '给了汇聚项：它的份额不进入输出',
        wrong: ['给了第一个词', '这是个错误', '给了填充位'],
        explain: '汇聚项是 softmax 里多出的一个 logit，没有对应的值向量：它分到的份额直接不加进输出。',
      },
    ],
  },
}

export function modernQuestions(view: 'flash' | 'heads' | 'sinks', lang: Lang): Question[] {
  return QUESTIONS[view][lang].map((q, i) => make(`${view}:${i}`, q.prompt, q.right, q.wrong, q.explain))
}

/** The view's questions, for the views table (registry.ts). */
export const modernQuiz =
  (view: 'flash' | 'heads' | 'sinks'): QuizFor =>
  (s) =>
    modernQuestions(view, s.lang)
