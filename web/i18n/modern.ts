// The views on attention as it runs today (flash, heads, sinks, the KV-cache panel) and their quiz questions
// (web/views/modern-quiz.ts), a table of their own (their tab names are in shell.ts). These views go beyond the
// course's lessons; each says so. zh uses docs/glossary.md's terms. How to add a string: docs/design.md, "Adding a
// string".

import type { Messages, Table } from './core'

const en = {
  beyond: 'Beyond the lessons: the lessons stop at one attention step; this is how today’s models run it.',
  // flash
  flashTitle: 'FlashAttention: attention tile by tile',
  flashLead:
    'The fused kernel never builds the n×n matrix of scores. It takes a block of query rows and a block of keys at a time (a tile), and keeps for each row only a running maximum m, a running sum l of exp(s − m) and an unnormalised output O. When a new tile raises a row’s maximum, the row’s old l and O are multiplied by exp(m_old − m_new) first. At the end O / l is exactly softmax · V. It does the same multiply-adds as plain attention (more in the backward pass, which computes the scores again); on a GPU it is faster because the n×n matrix is never written to or read back from slow memory (HBM): each tile lives in fast on-chip memory (Dao et al., 2022).',
  flashInputPage: 'Input: Q, K, V of the page’s first {n} tokens (head 1{dv}).',
  flashInputRandom: 'Input: a small random example (the page’s rule has dq ≠ dk or cross attention).',
  flashBlockRows: 'query rows per block',
  flashBlockCols: 'keys per block',
  flashCausal: 'causal',
  flashBack: '◀ Back',
  flashStep: 'Next tile ▶',
  flashPlay: 'Play',
  flashPause: 'Pause',
  flashReset: 'Start over',
  flashCounter: 'Tile {k} of {total}: query rows {r0}–{r1} × keys {c0}–{c1}',
  flashGridCaption:
    'The n×n scores. Dark: the tile being computed now (its scaled scores). Grey: tiles already folded in, thrown away: the matrix is never stored. Blank: tiles still to come, or skipped (causal: wholly above the diagonal).',
  flashRowsTitle: 'Each row of this block after the tile',
  flashRow: 'row',
  flashFactor: 'exp(m_old − m_new)',
  flashORow: 'O (not yet ÷ l)',
  flashMemory:
    'Memory at once: plain attention keeps the {n}×{nk} = {plain} scores; the tiles keep one {br}×{bc} tile plus m, l and O of {br} rows = {flash} floats. At n = 4096 with the kernel’s blocks and d_v = {kdv}: 16,777,216 against {kernelFloats}.',
  flashDone: 'Done: O / l equals plain attention. Largest difference from attention(): {diff}.',
  flashNotDone: 'At the end O / l is compared with plain attention.',
  flashKernel:
    'The real kernel in this page’s engine runs blocks of {br} query rows × {bc} keys ({half} keys when d > 64), so a tile’s keys stay in the processor’s cache; it also skips tiles wholly outside a causal or sliding-window mask, which saves work only under such a mask. The numbers here come from the same C++ loops with small blocks, recording after each tile.',
  flashFirstTile: 'first tile of the row: nothing to rescale',
  // heads
  headsTitle: 'Multi-head, grouped-query and multi-query attention',
  headsLead:
    'Every query head has its own W_q. In multi-head attention (MHA) each head also has its own K and V; in grouped-query attention (GQA: LLaMA-3, Mistral-7B, Qwen2) a group of query heads shares one K/V head; in multi-query attention (MQA) all share one. Fewer K/V heads means a smaller KV cache; Ainslie et al. (2023) report quality close to multi-head attention.',
  headsSentence: 'On the page’s sentence: {n} tokens, E = {E}, {H} query heads of {hd} dims.',
  headsArrangement: 'arrangement',
  headsKV: 'K/V heads',
  headsMemory: 'K/V cached per token per layer',
  headsShare: 'query head {h} → K/V head {g}',
  headsWeightsOf: 'head {h}',
  headsWindowTitle: 'Sliding window with sinks',
  headsWindowLead:
    'A sliding window limits each query to the last W keys: query i sees keys i − W < j ≤ i. Mistral-7B v0.1 does so in every layer (W = 4,096); Gemma 2 and 3 interleave such local layers with global ones (Gemma 1 attends over everything). StreamingLLM keeps the first few tokens (sinks) as well, because heads park weight there. Tokens that slide out are not seen by this layer any more; their information reaches later positions only through earlier layers (each layer’s window stacks, so L windowed layers reach back up to about L·W tokens; with global layers in between, as in Gemma 2 and 3, some layers see everything).',
  headsWindow: 'window W',
  headsSinks: 'sinks',
  headsOutside: 'Row {i} ({tok}): outside the window, not attended: {list}.',
  headsNoneOutside:
    'Every row still sees all its earlier keys: the window and the sinks cover the sentence (W + sinks = {w} + {k} ≥ n = {n}). A smaller W lets a token slide out.',
  headsLegendSeen: 'in the window',
  headsLegendSink: 'sink (kept)',
  headsLegendOut: 'slid out',
  // sinks
  sinksTitle: 'Attention sinks: why heads stare at the first token',
  sinksLead:
    'Softmax must hand out a total weight of 1 on every row. A head with nothing useful to look at still has to put that weight somewhere; trained models learn to dump it on one always-visible token, usually the first. BertViz users see it as "every token attends to [CLS]"; StreamingLLM found that dropping those tokens breaks a model. A sink logit (gpt-oss) gives the head an explicit place to put "nothing": one more logit in the softmax whose share is thrown away, so rows may sum to less than 1.',
  sinksTrain:
    'Measured on a model trained here by the Train tab’s trainer (task next-char, causal, 2 layers × 4 heads, {steps} steps, the page’s seed):',
  sinksTraining: 'Training a small causal model ({steps} steps)…',
  sinksHeadTitle: 'layer {l}, head {h}: mean weight on position 0 over rows 1…: {mean}',
  sinksFound:
    'Found: head {h} of layer {l} puts {mean} of its weight on position 0 on average, {ratio}× the {uniform} an even spread over the keys it sees would give (the threshold here: 2×). It leans on position 0 rather than piling everything there, as the sink heads of large models do; other seeds may find none.',
  sinksNotFound:
    'Not found here: no head of this small model puts more than {mean} of its weight on position 0 on average (uniform: {uniform}). The effect shows in large models trained for long; this one is small and trained briefly, so we say so rather than fake it.',
  sinksTabTitle: 'The model you trained in the Train tab',
  sinksTabWaiting:
    'Train a model in the Train tab and press “Look inside this step”: its last layer is measured here as well.',
  sinksTabHead: 'head {h}: mean weight on position 0 over rows 1…: {mean}',
  sinksTabFound:
    'Found in the Train tab’s model (last layer, {n} tokens): head {h} puts {mean} of its weight on position 0 on average, {ratio}× the {uniform} an even spread would give (threshold 2×).',
  sinksTabNotFound:
    'Not found in the Train tab’s model (last layer, {n} tokens): its strongest head puts {mean} on position 0 on average, {ratio}× the {uniform} of an even spread (threshold 2×). A small model trained for a few hundred steps need not grow a sink; we say so rather than fake one.',
  sinksLogitTitle: 'The same head with a sink logit',
  sinksLogitLead:
    'Its scores again, with one extra logit s in the softmax (0 = "softmax off by one"). The scores are unchanged, so every weight of a row is multiplied by (1 − c), c the share the sink takes: position 0 gives up only a₀·c of it, the other keys the rest. Only a model trained with a sink logit (as gpt-oss is) can learn to stop parking weight on position 0.',
  sinksLogit: 'sink logit s',
  sinksColumnSink: 'sink',
  sinksRowSum: 'row sum',
  sinksTableLegend:
    'Each cell: the weight in percent of its row with the sink, in brackets without it (0 under 0.5 %). The sink column: the share the sink takes; row sum: the keys’ share (the two make 100).',
  sinksPos0: 'on position 0: {a} without the sink, {b} with it; the sink takes {c}',
  // kv cache
  kvTitle: 'KV cache: decoding without recomputing',
  kvLead:
    'When a decoder writes token t, its new query needs the keys and values of every earlier token. They do not change (causal attention: earlier tokens never see later ones), so they are kept: the KV cache. Step t computes one new q, k and v row and appends k and v; without the cache this layer would recompute all t rows of K and V before the same one row of attention (the counts below). A decoder of several layers without a cache does more: each layer’s K and V come from the layer below’s outputs for every earlier row, so it runs the whole prefix again, every row’s attention in every layer.',
  kvStep: 'Step {t}: the cache holds {t} K rows and {t} V rows.',
  kvCounters: 'This step',
  kvWith: 'with the cache',
  kvWithout: 'without',
  kvMacs: 'multiply-adds',
  kvBytes: 'bytes of K and V touched',
  kvFormula: 'Cache size = 2 (K and V) · layers · kvHeads · headDim · tokens · bytes per number',
  kvTableModel: 'model',
  kvTableLayers: 'layers',
  kvTableHeads: 'query heads',
  kvTableKV: 'K/V heads',
  kvTableHeadDim: 'head dim',
  kvTableContext: 'context (tokens)',
  kvTablePerToken: 'per token (fp16)',
  kvTableAt: 'at its context length (fp16)',
  kvNoWindow: '{size} without the window',
  kvAsMha: 'as multi-head: {size}',
  kvTableNote:
    'From the models’ published configurations: each model’s name links to its config.json on Hugging Face (layers, query heads, K/V heads, hidden size ÷ heads, context length, Mistral’s sliding_window). GQA: LLaMA-3-8B keeps 8 K/V heads for 32 query heads, a quarter of the cache multi-head attention would need. Mistral-7B v0.1’s sliding window of 4,096 tokens (later Mistral versions have none) caps its cache at 4,096 tokens however long the text (a rolling buffer).',
  kvWindowCap: '{model}: capped at the window of {w} tokens',
  // quiz (web/views/modern-quiz.ts)
  quizFlashRescalePrompt:
    'A new tile raises row i’s running maximum from m_old to m_new. What happens to the row’s O and l first?',
  quizFlashRescaleRight: 'Both are multiplied by exp(m_old − m_new)',
  quizFlashRescaleWrong1: 'Both are reset to 0',
  quizFlashRescaleWrong2: 'O is divided by l',
  quizFlashRescaleWrong3: 'Nothing: the maximum does not matter',
  quizFlashRescaleExplain:
    'O and l were summed with exp(s − m_old); to continue with the new maximum every earlier term must become exp(s − m_new) = exp(s − m_old)·exp(m_old − m_new).',
  quizFlashMemoryPrompt: 'How much memory do the scores take at once in the fused kernel, for n tokens?',
  quizFlashMemoryRight: 'One tile (block rows × block keys), whatever n is',
  quizFlashMemoryWrong1: 'n × n',
  quizFlashMemoryWrong2: 'n × d',
  quizFlashMemoryWrong3: 'Nothing: scores are never computed',
  quizFlashMemoryExplain:
    'Each tile’s scores are turned into m, l and O and thrown away; only a tile exists at a time (in this engine 36 query rows × 128 keys, or × 64 keys when d > 64), so memory grows with n·d (Q, K, V, O), not n².',
  quizHeadsGroupPrompt:
    'With 32 query heads and 8 K/V heads (grouped-query attention), which K/V head does query head 13 read? (Heads counted from 1, as on every tab: query heads 1–32, K/V heads 1–8.)',
  quizHeadsGroupRight: 'K/V head 4',
  quizHeadsGroupWrong1: 'K/V head 13',
  quizHeadsGroupWrong2: 'K/V head 3',
  quizHeadsGroupWrong3: 'All 8 of them',
  quizHeadsGroupExplain:
    'Each K/V head serves 32 / 8 = 4 query heads in a row: heads 1–4 read K/V head 1, …, heads 13–16 K/V head 4 (⌈13 / 4⌉ = 4). In code, counting from 0, it is index 12 → ⌊12 · 8 / 32⌋ = 3, as Hugging Face’s repeat_kv does; "K/V head 3" is that index read as a number counted from 1.',
  quizHeadsWindowPrompt:
    'A sliding window of W = 3 with 1 sink: which keys does query 6 see? (Positions counted from 0, as in the formulas: key 0 is the first token.)',
  quizHeadsWindowRight: 'Keys 0, 4, 5 and 6',
  quizHeadsWindowWrong1: 'Keys 3 to 6',
  quizHeadsWindowWrong2: 'Keys 0 to 6',
  quizHeadsWindowWrong3: 'Keys 4 to 6',
  quizHeadsWindowExplain: 'The window keeps i − W < j ≤ i, so 4, 5, 6; the sink keeps key 0 too.',
  quizSinksSumPrompt: 'Why can a head not simply give a row “no attention at all” in plain softmax attention?',
  quizSinksSumRight: 'Softmax makes every row’s weights sum to 1',
  quizSinksSumWrong1: 'The scores are always positive',
  quizSinksSumWrong2: 'The first token has the largest value',
  quizSinksSumWrong3: 'The mask forbids it',
  quizSinksSumExplain:
    'Whatever the scores, softmax spreads a total of exactly 1; a head with nothing to say parks it on a token it always sees (in large trained models usually the first: Xiao et al., 2023).',
  quizSinksLogitPrompt: 'With a sink logit, a row’s weights sum to 0.7. Where did the other 0.3 go?',
  quizSinksLogitRight: 'To the sink: its share is dropped from the output',
  quizSinksLogitWrong1: 'To the first token',
  quizSinksLogitWrong2: 'It is an error',
  quizSinksLogitWrong3: 'To the padding',
  quizSinksLogitExplain:
    'The sink is one more logit in the softmax with no value vector: its share of the 1 is simply not added to the output.',
}

export type ModernKey = keyof typeof en

const zh: Messages<ModernKey> = {
  beyond: '课程之外：课程讲到一次注意力计算为止；这里是今天的模型实际怎样运行它。',
  flashTitle: 'FlashAttention：按瓦片逐个计算注意力',
  flashLead:
    '融合内核从不构造 n×n 的分数矩阵。它每次取一块查询行和一块键（合起来是一个“瓦片”，tile），每一行只保留一个运行中的最大值 m、exp(s − m) 的运行和 l，以及尚未归一化的输出 O。新的瓦片让某行的最大值变大时，先把这一行旧的 l 和 O 乘以 exp(m_old − m_new)。最后 O / l 正好等于 softmax · V。它的乘加次数与标准、不分块的注意力相同（反向传播还要更多，因为要重新计算分数）；它在 GPU 上更快，是因为 n×n 的矩阵从不写入、也不从慢速显存（HBM）读回：每个瓦片都留在片上的快速存储里（Dao 等，2022）。',
  flashInputPage: '输入：页面前 {n} 个词元的 Q、K、V（第 1 个头{dv}）。',
  flashInputRandom: '输入：一个小的随机例子（页面的计算规则 dq ≠ dk，或是交叉注意力）。',
  flashBlockRows: '每块的查询行数',
  flashBlockCols: '每块的键数',
  flashCausal: '因果掩码',
  flashBack: '◀ 上一个瓦片',
  flashStep: '下一个瓦片 ▶',
  flashPlay: '播放',
  flashPause: '暂停',
  flashReset: '从头开始',
  flashCounter: '第 {k} / {total} 个瓦片：查询行 {r0}–{r1} × 键 {c0}–{c1}',
  flashGridCaption:
    'n×n 的分数。深色：正在计算的瓦片（缩放后的分数）。灰色：已经并入并丢弃的瓦片——整个矩阵从不保存。空白：还没算到的瓦片，或被跳过的瓦片（因果：整个瓦片在对角线之上）。',
  flashRowsTitle: '这个瓦片之后，块内每一行的状态',
  flashRow: '行',
  flashFactor: 'exp(m_old − m_new)',
  flashORow: 'O（还没 ÷ l）',
  flashMemory:
    '同一时刻占用的内存：标准、不分块的注意力保存 {n}×{nk} = {plain} 个分数；分块计算只保存一个 {br}×{bc} 的瓦片，加上 {br} 行的 m、l 和 O，共 {flash} 个数。n = 4096、d_v = {kdv} 时按内核的块大小：16,777,216 对 {kernelFloats}。',
  flashDone: '完成：O / l 等于标准、不分块的注意力。与 attention() 的最大差：{diff}。',
  flashNotDone: '最后会把 O / l 与标准、不分块的注意力比较。',
  flashKernel:
    '本页引擎里真正的内核每块取 {br} 个查询行 × {bc} 个键（d > 64 时为 {half} 个键），让一个瓦片的键留在处理器缓存里；整个瓦片落在因果或滑动窗口掩码之外时直接跳过，只有在这样的掩码下才省下计算。这里的数字来自同一段 C++ 循环，只是块更小，并在每个瓦片之后记录状态。',
  flashFirstTile: '这一行的第一个瓦片：没有需要重新缩放的',
  headsTitle: '多头、分组查询与多查询注意力',
  headsLead:
    '每个查询头都有自己的 W_q。多头注意力（MHA）里每个头也有自己的 K 和 V；分组查询注意力（GQA：LLaMA-3、Mistral-7B、Qwen2）里一组查询头共用一个 K/V 头；多查询注意力（MQA）里所有头共用一个。K/V 头越少，KV 缓存越小；Ainslie 等（2023）报告质量接近多头注意力。',
  headsSentence: '用页面的句子：{n} 个词元，E = {E}，{H} 个查询头，每头 {hd} 维。',
  headsArrangement: '结构',
  headsKV: 'K/V 头数',
  headsMemory: '每层每个词元缓存的 K/V',
  headsShare: '查询头 {h} → K/V 头 {g}',
  headsWeightsOf: '头 {h}',
  headsWindowTitle: '带汇聚词的滑动窗口',
  headsWindowLead:
    '滑动窗口让每个查询只看最近的 W 个键：查询 i 看键 i − W < j ≤ i。Mistral-7B v0.1 每一层都这样做（W = 4,096）；Gemma 2 和 3 把这样的局部层与全局层交替排列（Gemma 1 每层都看全部）。StreamingLLM 还保留开头几个词元（汇聚词，sinks），因为注意力头会把权重停放在那里。滑出窗口的词元这一层不再看到；它们的信息只能经由更早的层传到后面（每层的窗口叠加，L 个加窗口的层最多大约能回看 L·W 个词元；像 Gemma 2、3 那样中间夹着全局层时，有些层能看到全部）。',
  headsWindow: '窗口 W',
  headsSinks: '汇聚词',
  headsOutside: '第 {i} 行（{tok}）：在窗口之外、不再关注：{list}。',
  headsNoneOutside:
    '每一行仍能看到之前所有的键：窗口加上汇聚词覆盖了整句（W + 汇聚词数 = {w} + {k} ≥ n = {n}）。W 再小一些，就会有词元滑出窗口。',
  headsLegendSeen: '在窗口内',
  headsLegendSink: '汇聚词（保留）',
  headsLegendOut: '已滑出',
  sinksTitle: '注意力汇聚：为什么注意力头盯着第一个词元',
  sinksLead:
    'softmax 每一行的权重总和必须是 1。一个没有有用内容可看的头也得把这份权重放在某处；训练好的模型学会把它倒在一个总能看到的词元上，通常是第一个。BertViz 的用户看到的是“每个词元都关注 [CLS]”；StreamingLLM 发现删掉这些词元会让模型崩溃。汇聚 logit（gpt-oss）给注意力头一个明确放“什么都不看”的地方：softmax 里多一个 logit，它分到的份额被丢掉，所以每行的和可以小于 1。',
  sinksTrain:
    '用“训练”页的训练器在这里训练的模型上测得（任务 next-char，因果，2 层 × 4 个头，{steps} 步，页面的随机种子）：',
  sinksTraining: '正在训练一个小的因果模型（{steps} 步）…',
  sinksHeadTitle: '第 {l} 层第 {h} 个头：第 1 行起在位置 0 上的平均权重：{mean}',
  sinksFound:
    '找到了：第 {l} 层第 {h} 个头平均把 {mean} 的权重放在位置 0 上，是在它能看到的键上均匀分配（{uniform}）的 {ratio} 倍（这里的门槛是 2 倍）。它偏向位置 0，但不像大模型的汇聚头那样把几乎全部权重都堆在那里；换一个随机种子也可能一个都没有。',
  sinksNotFound:
    '这里没有出现：这个小模型没有哪个头平均在位置 0 上放超过 {mean} 的权重（均匀分配：{uniform}）。这种现象出现在训练很久的大模型里；这个模型小、训练时间短，所以我们如实说明，而不是伪造。',
  sinksTabTitle: '你在“训练”页训练的模型',
  sinksTabWaiting: '在“训练”页训练一个模型，再点“看看这一步的内部”：它的最后一层也会在这里测量。',
  sinksTabHead: '第 {h} 个头：第 1 行起在位置 0 上的平均权重：{mean}',
  sinksTabFound:
    '在“训练”页的模型里找到了（最后一层，{n} 个词元）：第 {h} 个头平均把 {mean} 的权重放在位置 0 上，是均匀分配（{uniform}）的 {ratio} 倍（门槛 2 倍）。',
  sinksTabNotFound:
    '在“训练”页的模型里没有出现（最后一层，{n} 个词元）：最强的头平均在位置 0 上放 {mean}，是均匀分配（{uniform}）的 {ratio} 倍（门槛 2 倍）。只训练几百步的小模型不一定长出汇聚头；我们如实说明，而不是伪造。',
  sinksLogitTitle: '同一个头加上汇聚 logit',
  sinksLogitLead:
    '还是它的分数，softmax 里多一个 logit s（0 即“softmax off by one”）。分数没变，所以一行的每个权重都乘以 (1 − c)，c 是汇聚项分走的份额：其中位置 0 只让出 a₀·c，其余来自别的键。只有带着汇聚 logit 训练的模型（如 gpt-oss）才能学会不再把权重停放在位置 0 上。',
  sinksLogit: '汇聚 logit s',
  sinksColumnSink: '汇聚',
  sinksRowSum: '行和',
  sinksTableLegend:
    '每格：有汇聚项时这个权重占该行的百分比，括号里是没有汇聚项时的（不到 0.5 % 记为 0）。汇聚列：汇聚项分走的份额；行和：各个键的份额（两者相加为 100）。',
  sinksPos0: '位置 0 上：没有汇聚项时 {a}，有汇聚项时 {b}；汇聚项分走 {c}',
  kvTitle: 'KV 缓存：解码时不必重算',
  kvLead:
    '解码器写第 t 个词元时，新的查询需要之前每个词元的键和值。它们不会变（因果注意力：前面的词元看不到后面的词元），所以把它们存起来：这就是 KV 缓存。第 t 步只计算一行新的 q、k、v，并把 k 和 v 追加进去；没有缓存，这一层就要先重算全部 t 行 K 和 V，再算同样的那一行注意力（下面的计数）。多层的解码器没有缓存时要做得更多：每层的 K、V 来自下一层对之前每一行的输出，所以要把整个前缀重新跑一遍，每一层的每一行注意力都要重算。',
  kvStep: '第 {t} 步：缓存里有 {t} 行 K 和 {t} 行 V。',
  kvCounters: '这一步',
  kvWith: '有缓存',
  kvWithout: '无缓存',
  kvMacs: '乘加次数',
  kvBytes: '读写的 K、V 字节数',
  kvFormula: '缓存大小 = 2（K 和 V）· 层数 · K/V 头数 · 每头维度 · 词元数 · 每个数的字节数',
  kvTableModel: '模型',
  kvTableLayers: '层数',
  kvTableHeads: '查询头',
  kvTableKV: 'K/V 头',
  kvTableHeadDim: '每头维度',
  kvTableContext: '上下文长度（词元）',
  kvTablePerToken: '每个词元（fp16）',
  kvTableAt: '满上下文长度时（fp16）',
  kvNoWindow: '不用窗口则 {size}',
  kvAsMha: '若用多头：{size}',
  kvTableNote:
    '数据来自各模型公开的配置：模型名链接到它在 Hugging Face 上的 config.json（层数、查询头数、K/V 头数、隐藏维度 ÷ 头数、上下文长度、Mistral 的 sliding_window）。GQA：LLaMA-3-8B 对 32 个查询头只保留 8 个 K/V 头，缓存是多头注意力的四分之一。Mistral-7B v0.1 的 4,096 词元滑动窗口（Mistral 之后的版本没有窗口）让缓存无论文本多长都不超过 4,096 个词元（滚动缓冲区）。',
  kvWindowCap: '{model}：以 {w} 个词元的窗口为上限',
  quizFlashRescalePrompt: '新的瓦片让第 i 行的运行最大值从 m_old 变成 m_new。这一行的 O 和 l 先怎么处理？',
  quizFlashRescaleRight: '都乘以 exp(m_old − m_new)',
  quizFlashRescaleWrong1: '都清零',
  quizFlashRescaleWrong2: 'O 除以 l',
  quizFlashRescaleWrong3: '不用处理：最大值无关紧要',
  quizFlashRescaleExplain:
    'O 和 l 是按 exp(s − m_old) 累加的；要换成新的最大值，之前每一项都要变成 exp(s − m_new) = exp(s − m_old)·exp(m_old − m_new)。',
  quizFlashMemoryPrompt: '对 n 个词元，融合内核同一时刻为分数占用多少内存？',
  quizFlashMemoryRight: '一个瓦片（块行数 × 块键数），与 n 无关',
  quizFlashMemoryWrong1: 'n × n',
  quizFlashMemoryWrong2: 'n × d',
  quizFlashMemoryWrong3: '不占：分数从不计算',
  quizFlashMemoryExplain:
    '每个瓦片的分数变成 m、l、O 后就丢掉；任何时刻只有一个瓦片（本引擎是 36 个查询行 × 128 个键，d > 64 时 × 64 个键），所以内存随 n·d（Q、K、V、O）增长，而不是 n²。',
  quizHeadsGroupPrompt:
    '32 个查询头、8 个 K/V 头（分组查询注意力）时，查询头 13 读哪个 K/V 头？（头从 1 开始数，各页相同：查询头 1–32，K/V 头 1–8。）',
  quizHeadsGroupRight: 'K/V 头 4',
  quizHeadsGroupWrong1: 'K/V 头 13',
  quizHeadsGroupWrong2: 'K/V 头 3',
  quizHeadsGroupWrong3: '全部 8 个',
  quizHeadsGroupExplain:
    '每个 K/V 头依次服务 32 / 8 = 4 个查询头：头 1–4 读 K/V 头 1，……，头 13–16 读 K/V 头 4（⌈13 / 4⌉ = 4）。代码里从 0 开始数，是下标 12 → ⌊12 · 8 / 32⌋ = 3，与 Hugging Face 的 repeat_kv 相同；“K/V 头 3”是把这个下标当成从 1 数的编号。',
  quizHeadsWindowPrompt:
    '窗口 W = 3、1 个汇聚词时，查询 6 能看到哪些键？（位置从 0 开始数，与公式相同：键 0 是第一个词元。）',
  quizHeadsWindowRight: '键 0、4、5、6',
  quizHeadsWindowWrong1: '键 3 到 6',
  quizHeadsWindowWrong2: '键 0 到 6',
  quizHeadsWindowWrong3: '键 4 到 6',
  quizHeadsWindowExplain: '窗口保留 i − W < j ≤ i，即 4、5、6；汇聚词再保留键 0。',
  quizSinksSumPrompt: '普通的 softmax 注意力里，为什么一个头不能让某一行“什么都不关注”？',
  quizSinksSumRight: 'softmax 让每行权重之和为 1',
  quizSinksSumWrong1: '分数总是正的',
  quizSinksSumWrong2: '第一个词元的值最大',
  quizSinksSumWrong3: '掩码不允许',
  quizSinksSumExplain:
    '无论分数如何，softmax 总要分出正好 1 的权重；没有内容可看的头就把它停放在一个总能看到的词元上（训练好的大模型里通常是第一个：Xiao 等，2023）。',
  quizSinksLogitPrompt: '加上汇聚 logit 后，一行的权重和是 0.7。另外 0.3 去哪了？',
  quizSinksLogitRight: '给了汇聚项：它的份额不进入输出',
  quizSinksLogitWrong1: '给了第一个词元',
  quizSinksLogitWrong2: '这是个错误',
  quizSinksLogitWrong3: '给了填充位',
  quizSinksLogitExplain: '汇聚项是 softmax 里多出的一个 logit，没有对应的值：它分到的份额直接不加进输出。',
}

export const MODERN: Table<ModernKey> = { en, zh }
