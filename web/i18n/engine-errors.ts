// The engine's errors in Chinese (web/engine-errors.ts shows them): a sentence chosen by the English message's
// pattern. Not a `{ en, zh }` table: the English page shows the engine's own message. zh uses docs/glossary.md's
// terms.

export const ENGINE_ERRORS_ZH: ReadonlyArray<readonly [RegExp, string]> = [
  [/pairs query row i with key row i/, '拼接规则把第 i 个查询与第 i 个键配对，所以查询数与键数必须相同。'],
  [/needs dq = dk/, '这个计算规则要求 d_q = d_k。'],
  [/heads: must divide/, '头数必须能整除 d_q、d_k 和 d_v。'],
  [/heads: must be an integer/, '头数必须是允许范围内的整数。'],
  [
    /empty after tokenization|has no words|no tokens|at least one (text|row|token)/i,
    '分词后没有任何词元：请至少输入一个词。',
  ],
  [/over the limit|too large|at most \d+ (bytes|tokens)/i, '输入或矩阵太大，超出了引擎的上限。'],
  [/invalid UTF-8/, '文本不是有效的 UTF-8 编码。'],
  [/finite|NaN|Infinity/, '数值必须是有限的数。'],
  [/vocabulary|unknown token|not in the vocab/i, '有词元不在词表中。'],
  [/BPE|bpeCorpus|merges/i, '字节对合并（BPE）的学习超出了工作量上限。'],
]

/** For an engine message no pattern above matches. */
export const ENGINE_ERROR_FALLBACK_ZH = '引擎无法计算这个输入。'
