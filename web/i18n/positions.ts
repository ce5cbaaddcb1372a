// Positions (issue 23): the Positions control, the step panels positions / rotatedQ / rotatedK / positionBias, the
// view `positions` and its questions; part of the page's table (index.ts). The lessons have no positions: every part
// says it goes beyond them. zh uses docs/glossary.md's terms (维度 only before a size such as d_model: a pair of
// RoPE's dimensions is a pair of 分量). How to add a string: docs/design.md, "Adding a string".

import type { PositionEncoding } from 'attention-playground'
import type { Messages, Table } from './core'

/** Each encoding's name in the Positions select and the view's tables. */
export const POSITION_KEYS: Record<PositionEncoding, PositionsKey> = {
  none: 'posNone',
  sinusoidal: 'posSinusoidal',
  learned: 'posLearned',
  rope: 'posRope',
  alibi: 'posAlibi',
}

const en = {
  stepPositions: 'Positions',
  stepRotatedQ: 'Rotated Q (RoPE)',
  stepRotatedK: 'Rotated K (RoPE)',
  stepPositionBias: 'Position bias (ALiBi)',
  helpPositionsSin:
    'Beyond the lessons (their program has no positions). The 2017 Transformer adds this fixed table of sine and cosine waves to the embeddings before the projections, so every position gets its own code. The step "Embeddings" stays the tokens\' own; Q, K, V are computed from embeddings + positions.',
  helpPositionsLearned:
    'Beyond the lessons (their program has no positions). GPT-2 and BERT learn this table (nn.Embedding(n, d_model), drawn here from the seed right after the token embeddings) and add it to the embeddings before the projections; Q, K, V are computed from the sum.',
  helpRotated:
    "Beyond the lessons. RoPE (LLaMA, Qwen, Mistral): after the projection each head's q and k are turned by position: component i pairs with component i + d/2 and the pair turns by position · θ_i (as Hugging Face's LLaMA, rotate_half). The scores use these rows, so position enters q·k only through the offset j − i between the two words, not where they stand. Q and K above are the projections before the turn.",
  helpPositionBias:
    'Beyond the lessons. ALiBi (BLOOM, MPT): no table, no turning: each head adds −m·|i − j| to the scaled scores before the mask, so far keys lose a little; each head has its own slope m (its own reach). BLOOM and MPT are causal (the mask hides j > i); with no mask the bias falls on later keys too, a bidirectional variant (as in MosaicBERT).',
  positions: 'Positions',
  posNone: 'none (the lessons)',
  posSinusoidal: 'sinusoidal (Transformer 2017)',
  posLearned: 'learned (GPT-2, BERT)',
  posRope: 'RoPE (LLaMA, Qwen)',
  posAlibi: 'ALiBi (BLOOM, MPT)',
  positionsHint:
    'Beyond the lessons: their program has no positions, and then, with no mask, attention gives the same vectors whatever the word order (a causal mask already tells order apart). These are the four common ways real models add order (the view “Positions” shows each); others exist.',
  ropeBase: 'RoPE base',
  noticeRopeClash: 'rope (needs dq = dk and an even dq / heads, got dq = {dq}, dk = {dk}, heads = {heads})',
  noticeAlibiClash: 'alibi ({score} has no query-key scores to bias)',
  tabPositions: 'Positions',
  posViewTitle: 'Where is the order? Positions',
  posViewLead:
    "Attention compares every word with every other word, but nothing in Q·Kᵀ says which word came first. The lessons' program has no positions; most models add them, and this view shows the four common ways (others: T5's bucketed relative bias, Transformer-XL's and DeBERTa's relative schemes, xPos; some causal models use none, relying on the mask). This view goes beyond the lessons; every number on it is computed by the engine.",
  posOrderTitle: 'Order blindness',
  posOrderLead:
    'The same words in another order. With no positions and no mask each output row of the shuffled sentence is exactly an output row of the original, only moved: attention sees a bag of words. With each encoding the rows differ, and so they do under a causal mask (the last line).',
  posOrderShow: 'Outputs with',
  posOutOriginal: 'Output, original order',
  posOutShuffled: 'Output, shuffled',
  posShuffle: 'Shuffle',
  posOriginal: 'Sentence',
  posShuffled: 'Shuffled',
  posEncoding: 'Positions',
  posMaxDiff: 'largest difference from the same word’s original row',
  posSameVectors: 'same vectors, permuted?',
  posYesPermuted: 'yes',
  posNoDiffer: 'no: the rows differ',
  posVerdictSame:
    'Checked on the numbers: with no positions and no mask every output row of the shuffled sentence equals the original row of the same word (largest difference {diff}): the same vectors, permuted.',
  posVerdictNotSame: 'With no positions and no mask the rows differ by {diff} here (more than float rounding).',
  posNoneCausal: 'none, causal mask',
  posVerdictCausal:
    'With no positions but a causal mask the rows differ (by {diff}): row i sees only the words up to i, so the mask itself tells order apart. Causal language models without any positional encoding still learn order this way (Haviv et al., 2022).',
  posVerdictCausalSame:
    'With no positions but a causal mask this shuffle leaves the rows as they were (largest difference {diff}): every word kept the same earlier words.',
  posVerdictOthers: 'With each encoding they differ (by {min} at least): order now changes the result.',
  posVerdictRepeated:
    'The sentence has a repeated word: its two rows are the same vector without positions, so the check compares each word with the same word.',
  posSinTitle: 'Sinusoidal (Transformer, 2017)',
  posSinLead:
    'P[m, 2i] = sin(m / 10000^(2i/d_model)), P[m, 2i+1] = cos(m / 10000^(2i/d_model)) (Vaswani et al.), added to the embeddings. Left: the table, one wave per column, fast on the left, slow on the right, so every position gets its own code. Right: P·Pᵀ, how alike two positions’ codes are: largest on the diagonal and fading with distance, so nearby positions look alike.',
  posSinTable: 'P: positions (rows) × components',
  posSinDots: 'P·Pᵀ: position × position',
  posRopeTitle: 'RoPE (LLaMA, Qwen, Mistral)',
  posRopeLead:
    'RoPE adds nothing: it turns q and k. As in Hugging Face’s LLaMA (rotate_half), component i pairs with component i + d/2, and the pair is a dial that turns by m·θ_i at position m, θ_i = 10000^(−2i/d): the first pairs turn fast, the last ones slowly. Move the position.',
  posRopePosition: 'Position m',
  posRopePair: 'pair',
  posRopeOffsetTitle: 'Only the offset counts',
  posRopeOffsetLead:
    'Take the q of one word and the k of another (the page’s sentence, no positions, 16 components), place the query at i and the key at j, then both s places later. Both turn by s more, so the angle between them stays, and so does the score, whatever s you pick.',
  posRopeWordI: 'query word at i',
  posRopeWordJ: 'key word at j',
  posRopeShift: 'shift s',
  posRopeOffsetResult: 'q·k at ({i}, {j}) = {a}; at ({is}, {js}) = {b}; difference {diff}.',
  posAlibiTitle: 'ALiBi (BLOOM, MPT)',
  posAlibiLead:
    'ALiBi adds −m·|i − j| to the scaled scores before the mask: the farther the key, the lower its score. Each head has its own slope m (2^(−8h/H) for heads h = 1 … H, H a power of two; BLOOM’s rule otherwise): steep heads look near, gentle heads look far. Left: the bias; then the weights of the same model without and with it. There is no mask here, so later keys get the bias too: a bidirectional variant (as in MosaicBERT); BLOOM and MPT are causal and only ever see j ≤ i.',
  posAlibiSlopes: 'slopes',
  posAlibiBias: 'Bias −m·|i − j|',
  posAlibiWithout: 'Weights without positions',
  posAlibiWith: 'Weights with ALiBi',
  quizPosPrompt: 'With no positions and no mask, what happens to the output when you shuffle the words?',
  quizPosRight: 'The same output vectors, in the shuffled order',
  quizPosWrong1: 'All output vectors change',
  quizPosWrong2: 'The output stays in the original order',
  quizPosWrong3: 'The weights all become equal',
  quizPosExplain:
    'With no mask each output row depends only on its own word and the set of all words (Q·Kᵀ, softmax, ·V never look at positions), so shuffling only moves the rows. A causal mask does look at positions: row i sees only the words before it, so under it the rows change.',
  quizRopePrompt:
    'With RoPE, the score of query word A at 5 and key word B at 2 is 1.7. What is it with A at 15 and B at 12?',
  quizRopeRight: '1.7: only the offset 3 counts',
  quizRopeWrong1: 'Larger: both are further along',
  quizRopeWrong2: 'Smaller: far positions are damped',
  quizRopeWrong3: 'Cannot be known without recomputing',
  quizRopeExplain:
    'Both vectors turn by 10 more places, so the angle between them, and with it q·k, stays the same: the view computes it for any shift.',
}

export type PositionsKey = keyof typeof en

const zh: Messages<PositionsKey> = {
  stepPositions: '位置编码',
  stepRotatedQ: '旋转后的 Q（RoPE）',
  stepRotatedK: '旋转后的 K（RoPE）',
  stepPositionBias: '位置偏置（ALiBi）',
  helpPositionsSin:
    '超出课程内容（课程的程序没有位置信息）。2017 年的 Transformer 在投影之前把这张固定的正弦、余弦波表加到词嵌入上，每个位置都有自己独一无二的编码。“词嵌入”一步仍是词元自己的向量；Q、K、V 由 词嵌入 + 位置编码 算出。',
  helpPositionsLearned:
    '超出课程内容（课程的程序没有位置信息）。GPT-2、BERT 学习这张表（nn.Embedding(n, d_model)，这里紧接在词嵌入之后由种子抽取），在投影之前加到词嵌入上；Q、K、V 由两者之和算出。',
  helpRotated:
    '超出课程内容。旋转位置编码 RoPE（LLaMA、Qwen、Mistral）：投影之后，每个头的 q、k 按位置旋转：第 i 个分量与第 i + d/2 个分量成对，这一对转过 位置 · θ_i（与 Hugging Face 的 LLaMA 相同，rotate_half）。注意力分数用旋转后的行计算，所以位置只通过两个词的相对位移 j − i 进入 q·k，与它们各自在句中的位置无关。上面的 Q、K 是旋转之前的投影。',
  helpPositionBias:
    '超出课程内容。线性偏置 ALiBi（BLOOM、MPT）：没有位置表，也不旋转：每个头在缩放后的注意力分数上、掩码之前加上 −m·|i − j|，离得越远的键减得越多；每个头有自己的斜率 m（看得远近不同）。BLOOM、MPT 是因果模型（掩码盖住 j > i）；不加掩码时偏置也落在后面的键上，这是双向的变体（如 MosaicBERT）。',
  positions: '位置编码',
  posNone: '无（课程）',
  posSinusoidal: '正弦（Transformer 2017）',
  posLearned: '可学习（GPT-2、BERT）',
  posRope: '旋转位置编码 RoPE（LLaMA、Qwen）',
  posAlibi: '线性偏置 ALiBi（BLOOM、MPT）',
  positionsHint:
    '超出课程内容：课程的程序没有位置信息，这时若不加掩码，无论词序如何，注意力给出的都是同样的向量（因果掩码本身已能区分词序）。下面是真实模型加入词序的四种常见方法（“位置编码”视图逐一展示）；此外还有别的方法。',
  ropeBase: 'RoPE 的底数',
  noticeRopeClash: 'rope（要求 dq = dk 且 dq / 头数为偶数，实际 dq = {dq}、dk = {dk}、头数 = {heads}）',
  noticeAlibiClash: 'alibi（{score} 没有查询—键的注意力分数可加偏置）',
  tabPositions: '位置编码',
  posViewTitle: '词序在哪里？位置编码',
  posViewLead:
    '注意力把每个词与所有词比较，但 Q·Kᵀ 里没有任何东西说明哪个词在前。课程的程序没有位置信息；大多数模型都会加入位置信息，本视图展示四种常见方法（此外还有 T5 的分桶相对偏置、Transformer-XL 和 DeBERTa 的相对位置方案、xPos；也有因果模型完全不加，靠掩码获得词序）。本视图超出课程内容；其中每个数都由引擎算出。',
  posOrderTitle: '看不到词序',
  posOrderLead:
    '同样的词换一个顺序。没有位置编码、也不加掩码时，打乱后句子的每一行输出，都恰好等于原句中同一个词的那一行，只是换了位置：注意力看到的是一袋词。加上任何一种位置编码，各行就不同了；加上因果掩码也不同（最后一行）。',
  posOrderShow: '显示输出：',
  posOutOriginal: '输出（原顺序）',
  posOutShuffled: '输出（打乱后）',
  posShuffle: '打乱',
  posOriginal: '句子',
  posShuffled: '打乱后',
  posEncoding: '位置编码',
  posMaxDiff: '与同一个词原来那一行的最大差值',
  posSameVectors: '只是同样的向量换了位置？',
  posYesPermuted: '是',
  posNoDiffer: '否：各行不同',
  posVerdictSame:
    '已按数值检查：没有位置编码、也不加掩码时，打乱后句子的每一行输出都等于原句中同一个词的那一行（最大差值 {diff}）：同样的向量，只是换了位置。',
  posVerdictNotSame: '没有位置编码、也不加掩码时，这里各行相差 {diff}（超过浮点舍入）。',
  posNoneCausal: '无，加因果掩码',
  posVerdictCausal:
    '没有位置编码、但加上因果掩码时，各行不同（相差 {diff}）：第 i 行只看到到 i 为止的词，所以掩码本身就能区分词序。不加任何位置编码的因果语言模型正是这样仍能学到词序（Haviv 等，2022）。',
  posVerdictCausalSame:
    '没有位置编码、但加上因果掩码时，这次打乱没有改变各行（最大差值 {diff}）：每个词前面的词都没变。',
  posVerdictOthers: '加上每一种位置编码后各行都不同（至少相差 {min}）：词序会改变结果。',
  posVerdictRepeated: '句子里有重复的词：没有位置编码时，它的两行是同一个向量，所以检查时每个词都与同一个词比较。',
  posSinTitle: '正弦位置编码（Transformer，2017）',
  posSinLead:
    'P[m, 2i] = sin(m / 10000^(2i/d_model))，P[m, 2i+1] = cos(m / 10000^(2i/d_model))（Vaswani 等），加到词嵌入上。左图：这张表，每一列是一条波，左边快、右边慢，所以每个位置都有自己独一无二的编码。右图：P·Pᵀ，两个位置的编码有多相像：对角线上最大，随距离变小，所以相邻位置彼此相似。',
  posSinTable: 'P：位置（行）× 分量',
  posSinDots: 'P·Pᵀ：位置 × 位置',
  posRopeTitle: '旋转位置编码 RoPE（LLaMA、Qwen、Mistral）',
  posRopeLead:
    'RoPE 不做加法，而是旋转 q 和 k。与 Hugging Face 的 LLaMA（rotate_half）相同，第 i 个分量与第 i + d/2 个分量成对，这一对是一个表盘，在位置 m 转过 m·θ_i，θ_i = 10000^(−2i/d)：前面的分量对转得快，后面的转得慢。拖动位置试试。',
  posRopePosition: '位置 m',
  posRopePair: '分量对',
  posRopeOffsetTitle: '只有相对位移起作用',
  posRopeOffsetLead:
    '取一个词的 q 和另一个词的 k（本页的句子，无位置编码，16 个分量），查询放在 i、键放在 j，再把两者都往后移 s 个位置。两者都多转了同样多，它们之间的夹角不变，所以注意力分数不变，无论你选多大的 s。',
  posRopeWordI: '查询词在 i',
  posRopeWordJ: '键词在 j',
  posRopeShift: '平移 s',
  posRopeOffsetResult: '位置 ({i}, {j}) 的 q·k = {a}；位置 ({is}, {js}) 的 q·k = {b}；差值 {diff}。',
  posAlibiTitle: '线性偏置 ALiBi（BLOOM、MPT）',
  posAlibiLead:
    'ALiBi 在缩放后的注意力分数上、掩码之前加上 −m·|i − j|：键离得越远，注意力分数越低。每个头有自己的斜率 m（头 h = 1 … H，H 为 2 的幂时是 2^(−8h/H)，否则按 BLOOM 的规则）：斜率大的头看近处，斜率小的头看得远。左：偏置；然后是同一个模型不加和加上偏置的注意力权重。这里不加掩码，所以后面的键也加上了偏置：这是双向的变体（如 MosaicBERT）；BLOOM、MPT 是因果模型，只看 j ≤ i。',
  posAlibiSlopes: '斜率',
  posAlibiBias: '偏置 −m·|i − j|',
  posAlibiWithout: '不加位置信息的注意力权重',
  posAlibiWith: '加上 ALiBi 的注意力权重',
  quizPosPrompt: '没有位置编码、也不加掩码时，打乱词的顺序，输出会怎样？',
  quizPosRight: '同样的输出向量，按打乱后的顺序排列',
  quizPosWrong1: '所有输出向量都会改变',
  quizPosWrong2: '输出保持原来的顺序',
  quizPosWrong3: '注意力权重全部变得相等',
  quizPosExplain:
    '不加掩码时，每一行输出只取决于它自己的词和所有词构成的集合（Q·Kᵀ、softmax、·V 都不看位置），所以打乱只会让各行换位置。因果掩码却要看位置：第 i 行只看到它前面的词，所以加上它各行就会改变。',
  quizRopePrompt: '使用 RoPE 时，查询词 A 在位置 5、键词 B 在位置 2 的注意力分数是 1.7。A 在 15、B 在 12 时是多少？',
  quizRopeRight: '1.7：只有相对位移 3 起作用',
  quizRopeWrong1: '更大：两者都更靠后',
  quizRopeWrong2: '更小：远处的位置会被削弱',
  quizRopeWrong3: '不重新计算就无法知道',
  quizRopeExplain: '两个向量都多转了 10 个位置的量，它们之间的夹角不变，q·k 也就不变：本视图可以对任意平移量计算。',
}

export const POSITIONS: Table<PositionsKey> = { en, zh }
