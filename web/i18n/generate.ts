// The "Write a poem" view (views/generate.ts) and its quiz (views/generate-quiz.ts): a table of its own, read with
// `translate` (its tab's name and "what you need first" are in shell.ts). It goes beyond the lessons and says so.
// zh uses docs/glossary.md's terms. How to add a string: docs/design.md, "Adding a string". The presets are real
// first lines of five-character poems (the same text in both languages).

import type { Messages, Table } from './core'

const en = {
  genTitle: 'Write a poem: from attention to the next character',
  genBeyond:
    'Beyond the lessons: the lessons stop at one attention step. Here a small GPT built from such steps (nanoGPT’s layout) writes five-character Tang poems one character at a time.',
  genLead:
    'The model reads the first line, picks the next character, adds it to what it has read and picks again. For each character: how likely every candidate was, which earlier characters each head looked at, and what each block added.',
  // the model and its file
  genLoadingSample: 'Loading the sample model…',
  genLoading: 'Opening {name}…',
  genLoadFailed: 'Could not open {name}:',
  genDownloadLimit: 'The file is too large to download here.',
  genModelInfo:
    '{name}: {layers} layers × {heads} heads, d_model {d}, {vocab} characters in its vocabulary, context {context}, {params} parameters.',
  genModelMeta: 'Its file says: validation loss {loss} nats per character after {steps} training steps.',
  genSampleNote:
    'This is the sample trained by scripts/poems_torch.py on 17,084 Tang poems (public/poems). Open your own nanoGPT checkpoint converted to safetensors (docs/your-model.md) to write with it instead.',
  genTrainedNote: 'The weights the Train tab is training, as they were when you pressed “look inside”.',
  genOpen: 'Open a model file (.safetensors)…',
  genDrop: 'or drop one here',
  genOpenSample: 'Back to the sample',
  genNoModel: 'No model yet: open a nanoGPT checkpoint in safetensors (docs/your-model.md).',
  // the first line and the sampler
  genPrompt: 'First line',
  genPresets: 'Or pick a real first line:',
  genPresetJingyesi: 'Li Bai, Quiet Night Thought',
  genPresetDengguanquelou: 'Wang Zhihuan, On the Stork Tower',
  genPresetChunxiao: 'Meng Haoran, Spring Morning',
  genPresetJiangxue: 'Liu Zongyuan, River Snow',
  genPresetJingtingshan: 'Li Bai, Sitting Alone on Jingting Mountain',
  genPresetLuzhai: 'Wang Wei, Deer Park',
  genTemperature: 'temperature',
  genTopK: 'top-k (0: all)',
  genTopP: 'top-p',
  genSeed: 'seed',
  genAgain: 'Another poem',
  genMissing: 'Not in this model’s vocabulary: {chars}. Its {vocab} characters are the ones it saw in training.',
  genEmpty: 'Type at least one character.',
  genFailed: 'The model refused this:',
  // stepping
  genBack: '◀ Back',
  genNext: 'Next character ▶',
  genPlay: 'Play',
  genPause: 'Pause',
  genCounter: 'Character {k} of {total}: {char}',
  genEnd: 'end of the poem',
  genReasonStop: 'It wrote the end-of-poem mark after {total} characters.',
  genReasonContext: 'It stopped at its context of {context} characters.',
  genReasonMax: 'It stopped after {total} characters.',
  genPoemTitle: 'The poem so far',
  genPoemLegend:
    'Your first line is underlined; the last character written is framed. Click a character to look at its residual stream below.',
  genPoemLegendTouch:
    'Your first line is underlined; the last character written is framed. Tap a character to look at its residual stream below.',
  // next-character distribution
  genBarsTitle: 'How it chose the next character',
  genBarsLead:
    'The model’s last layer gives a score (logit) to each of the {vocab} characters; softmax turns the scores into probabilities. Temperature divides the scores first, top-k keeps the k most likely, top-p the fewest whose probabilities reach p; what is left is renormalised and one character is drawn with a uniform number u: the first whose running total passes u.',
  genBefore: 'The model’s probabilities (temperature 1)',
  genAfter: 'After temperature {T}, top-k {k}, top-p {p}',
  genKept: '{kept} of {vocab} characters kept.',
  genDrawn: 'Drawn: {char}, with u = {u}.',
  genGreedy:
    'Temperature 0 or top-k 1: the most likely character, {char}, without a draw (u = {u} is drawn and unused).',
  genDrawnMark: 'drawn',
  genNotShown: '{char} (drawn) is not among the ten most likely shown here.',
  // KV cache
  genKvTitle: 'The KV cache',
  genKvText:
    'To choose character {k}, the character before it is the query; the keys and values of all {rows} characters so far are in the cache, one row more than at the previous step, in each of {layers} layers × {heads} heads: 2 × {layers} × {rows} × {d} numbers = {bytes} as float32. Nothing already there is recomputed: earlier characters never see later ones, so their K and V do not change.',
  genKvLink: 'How a KV cache works (Decoding view) →',
  // attention on the grid
  genHeadsTitle: 'Where each head looked',
  genHeadsLead:
    'For each head, the weights the query (the character before the new one, framed) gave the characters so far, drawn on the poem’s lines. The outlined cells are the three places the heads are measured at: the same place in the previous line, the previous character, and the previous line’s end.',
  genHeadCaption: 'layer {l} · head {h}',
  genHeadLabel: 'measured: looks at {role} ({score})',
  genHeadNoLabel: 'measured: no role (largest {role}, {score})',
  genHeadTop: 'most weight on {char} ({w})',
  genRolePreviousLine: 'the same place in the previous line',
  genRolePreviousChar: 'the previous character',
  genRoleLineEnd: 'the previous line’s end',
  genScoresMeasuring: 'Measuring the heads on the validation poems: {done} of {n}…',
  genScoresNone:
    'No head of this model specialises: measured on {n} validation poems, no head puts {threshold} or more of its weight on any of the three places (largest: layer {l}, head {h}, {role}, {score}). The heads are not labelled by what we would expect them to do, only by what they are measured to do.',
  genScoresSome:
    'Measured on {n} validation poems: a head is labelled when one of its three scores is {threshold} or more; {count} of {total} heads are.',
  genScoresUnavailable: 'The heads could not be measured: {why}',
  genScoresNoPoems: 'this model’s vocabulary cannot read the validation poems.',
  genLegendPreviousLine: 'same place, previous line',
  genLegendPreviousChar: 'previous character',
  genLegendLineEnd: 'previous line’s end',
  genLegendQuery: 'the query',
  // residual stream
  genResidualTitle: 'The residual stream at {char} (position {pos})',
  genResidualLead:
    'Each block adds to one vector per position (d_model = {d} numbers): attention adds what it gathered from earlier positions, the MLP adds what it computes from this position alone. After each block the logit lens reads the stream as if it were the last: ln_f, then the unembedding, then softmax: its top guesses for the next character.',
  genResidualEmbedding: 'character + position (wte + wpe)',
  genResidualAttention: 'block {b}: attention adds',
  genResidualMlp: 'block {b}: MLP adds',
  genResidualLens: 'after block {b}, the lens guesses',
  genResidualNorm: 'length {norm}',
  genResidualLast:
    'After the last block the lens is the model’s own prediction: its guesses equal the probabilities above.',
  genResidualNext: 'next: {char}',
  // teaching
  genTeachTitle: 'How a GPT writes (beyond the lessons)',
  genTeachAttnTitle: 'Attention moves information between places; the MLP works at one place',
  genTeachAttn:
    'A block has two parts, each added to the residual stream (x + …), so a block refines what is there instead of replacing it. Attention is the only part where positions exchange anything: the query of one character reads the values of earlier characters, weighted by softmax(q·k/√d_k) under the causal mask, as in the lessons, in every head. The MLP (Linear → GELU → Linear, four times wider in the middle) then works on each position alone, with the same weights at every position and nothing read from elsewhere. What a character can know about the rest of the poem has come to it through attention.',
  genTeachPosTitle: 'Why it can count to five: positions',
  genTeachPos:
    'The training windows start at a poem’s first character, so place k of line l (both counted from 0) is always position 6·l + k, and the line’s punctuation position 6·l + 5. The model adds a learned vector per position (wpe, as GPT-2 does) to each character’s embedding: positions 5, 11, 17, … where a comma or full stop belongs look alike to it in every poem it trained on, and different from the rest. That is how a model with no notion of lines writes five characters and then punctuation. Learned positions stop at the context: past its last position there is no vector to add, so writing stops there.',
  genTeachMaskTitle: 'Why it needs the mask: it must not see the next character',
  genTeachMask:
    'In training, one pass over a poem predicts every position’s next character at once: position i must name the character at i + 1. Without the causal mask the query at i could read that character’s key and value: the answer would be in plain view, the loss would fall, and the model would learn to copy instead of to write. The mask covers i + 1 and everything after it: the lesson’s “防止偷看答案” (do not peek at the answer), now on a real task. When writing, the next character does not exist yet, so each row the model computes is the row it was trained on, and rows already computed never change: that is why the KV cache can keep them.',
  // quiz
  quizGenMlpPrompt:
    'Predict: block 1’s MLP at the position of 光 in “床前明月光”. Which characters’ vectors does it read?',
  quizGenMlpRight: 'Only 光’s own',
  quizGenMlpWrong1: 'All five characters',
  quizGenMlpWrong2: 'The next character',
  quizGenMlpWrong3: 'The characters the heads looked at most',
  quizGenMlpExplain:
    'The MLP is applied to each position alone, with the same weights everywhere. What it sees of other characters is what attention has already added to this position’s residual stream.',
  quizGenNoAttnPrompt:
    'Predict: take every attention layer out and keep the MLPs. What can the model still use to choose the next character?',
  quizGenNoAttnRight: 'The last character and its position, nothing else',
  quizGenNoAttnWrong1: 'The whole first line, in any order',
  quizGenNoAttnWrong2: 'Nothing: it writes at random',
  quizGenNoAttnWrong3: 'The whole poem, as before',
  quizGenNoAttnExplain:
    'Without attention nothing moves between positions: the last position’s vector starts as its character plus its position and only the MLPs work on it. The model could still place punctuation by position, but not answer the line before.',
  quizGenCommaPrompt:
    'Predict: a poem starts at position 0, lines of five characters and their punctuation. At which position is the comma that ends line 3? (Positions counted from 0.)',
  quizGenCommaRight: 'Position 17 (6 × 2 + 5)',
  quizGenCommaWrong1: 'Position 15',
  quizGenCommaWrong2: 'Position 14',
  quizGenCommaWrong3: 'Position 18',
  quizGenCommaExplain:
    'Each line takes six positions: lines start at 0, 6, 12, …, and place 5 of each is its punctuation: 5, 11, 17. Training poems always start at 0, so these positions are always punctuation, and a learned position vector can mark them.',
  quizGenContextPrompt:
    'Predict: this model’s positions are learned vectors, one for each position from 0 to the context − 1. What happens when its poem reaches the context?',
  quizGenContextRight: 'It stops: there is no position vector to add',
  quizGenContextWrong1: 'It reuses position 0',
  quizGenContextWrong2: 'It goes on, positions do not matter there',
  quizGenContextWrong3: 'It extrapolates the vectors smoothly',
  quizGenContextExplain:
    'A learned table has as many rows as it was trained with (block_size in nanoGPT, 1,024 in GPT-2). The package stops at the context and says so; nanoGPT instead cuts the oldest characters off.',
  quizGenPeekPrompt:
    'Predict: train without the causal mask, so every position can read the whole poem. What does the training loss do?',
  quizGenPeekRight: 'It falls fast: each position can copy the next character',
  quizGenPeekWrong1: 'It stays high: the model cannot learn anything',
  quizGenPeekWrong2: 'Nothing changes: the mask only matters when writing',
  quizGenPeekWrong3: 'It rises: the model sees too much',
  quizGenPeekExplain:
    'Position i’s answer is the character at i + 1. Unmasked, it is one of the keys: copying it gives a low loss without learning to write, and when writing there is no next character to copy. The mask hides the answer (防止偷看答案).',
  quizGenLastRowPrompt:
    'Predict: while writing, the query is the last character written. How many of the keys before it does the causal mask hide?',
  quizGenLastRowRight: 'None: nothing comes after it yet',
  quizGenLastRowWrong1: 'All of them',
  quizGenLastRowWrong2: 'Half of them',
  quizGenLastRowWrong3: 'Those of the first line',
  quizGenLastRowExplain:
    'The mask hides keys after the query. The last character has none after it, so its row sees everything written. The mask shapes the earlier rows, as it did in training, and because those rows never change when a character is added, the KV cache can keep their keys and values.',
}

export type GenerateKey = keyof typeof en

const zh: Messages<GenerateKey> = {
  genTitle: '写诗：从注意力到下一个字',
  genBeyond:
    '超出课程内容：课程讲到一次注意力计算为止。这里一个由这种计算搭成的小 GPT（nanoGPT 的结构）一个字一个字地写五言唐诗。',
  genLead:
    '模型读入第一句，选出下一个字，把它接在读过的内容后面，再选下一个。每个字都可以看到：每个候选字的概率，每个头看了前面哪些字，以及每一块加了什么。',
  genLoadingSample: '正在加载示例模型…',
  genLoading: '正在打开 {name}…',
  genLoadFailed: '无法打开 {name}：',
  genDownloadLimit: '文件太大，不能在这里下载。',
  genModelInfo:
    '{name}：{layers} 层 × {heads} 个头，d_model {d}，词表 {vocab} 个字，上下文 {context}，{params} 个参数。',
  genModelMeta: '文件中记录：训练 {steps} 步后，留出集损失为每字 {loss} 奈特。',
  genSampleNote:
    '这是本项目的训练脚本在 17,084 首唐诗上训练的示例模型。也可以打开你自己转换成 safetensors 格式的 nanoGPT 检查点（做法见项目文档），用它来写。',
  genTrainedNote: '训练页正在训练的权重，即你按下“查看内部”时的状态。',
  genOpen: '打开模型文件（.safetensors）…',
  genDrop: '或把文件拖到这里',
  genOpenSample: '回到示例模型',
  genNoModel: '还没有模型：请打开一个 safetensors 格式的 nanoGPT 检查点（做法见项目文档）。',
  genPrompt: '第一句',
  genPresets: '或选一句真实的第一句：',
  genPresetJingyesi: '李白《静夜思》',
  genPresetDengguanquelou: '王之涣《登鹳雀楼》',
  genPresetChunxiao: '孟浩然《春晓》',
  genPresetJiangxue: '柳宗元《江雪》',
  genPresetJingtingshan: '李白《独坐敬亭山》',
  genPresetLuzhai: '王维《鹿柴》',
  genTemperature: '温度',
  genTopK: 'top-k（0：全部）',
  genTopP: 'top-p',
  genSeed: '种子',
  genAgain: '再写一首',
  genMissing: '不在这个模型的词表中：{chars}。词表中的 {vocab} 个字是它在训练中见过的字。',
  genEmpty: '请至少输入一个字。',
  genFailed: '模型拒绝了这个输入：',
  genBack: '◀ 上一步',
  genNext: '下一个字 ▶',
  genPlay: '播放',
  genPause: '暂停',
  genCounter: '第 {k} 个字，共 {total} 个：{char}',
  genEnd: '诗的结尾',
  genReasonStop: '写了 {total} 个字后，它写出了诗的结束符。',
  genReasonContext: '写到上下文长度 {context} 个字时停止。',
  genReasonMax: '写了 {total} 个字后停止。',
  genPoemTitle: '已经写出的诗',
  genPoemLegend: '你给的第一句带下划线；最后写出的字带边框。点击一个字，可在下方查看它的残差流。',
  genPoemLegendTouch: '你给的第一句带下划线；最后写出的字带边框。点一下一个字，可在下方查看它的残差流。',
  genBarsTitle: '它如何选出下一个字',
  genBarsLead:
    '模型最后一层给词表中 {vocab} 个字各打一个分数（logit），softmax 把分数变成概率。温度先去除分数，top-k 保留最可能的 k 个，top-p 保留概率之和达到 p 的最少几个；剩下的重新归一化，再用一个均匀随机数 u 抽出一个字：累计概率第一个超过 u 的字。',
  genBefore: '模型给出的概率（温度 1）',
  genAfter: '经过温度 {T}、top-k {k}、top-p {p} 之后',
  genKept: '保留了 {vocab} 个字中的 {kept} 个。',
  genDrawn: '抽中：{char}，u = {u}。',
  genGreedy: '温度为 0 或 top-k 为 1：直接取最可能的字 {char}，不抽样（仍抽出 u = {u}，但不使用）。',
  genDrawnMark: '抽中',
  genNotShown: '{char}（抽中）不在这里列出的最可能的十个字之中。',
  genKvTitle: 'KV 缓存',
  genKvText:
    '选第 {k} 个字时，它前面的字是查询；到目前为止全部 {rows} 个字的键和值都在缓存里，比上一步多一行，{layers} 层 × {heads} 个头都是如此：2 × {layers} × {rows} × {d} 个数 = {bytes}（float32）。已在缓存中的不重新计算：前面的字看不到后面的字，它们的 K 和 V 不会变。',
  genKvLink: 'KV 缓存如何工作（逐步解码）→',
  genHeadsTitle: '每个头看了哪里',
  genHeadsLead:
    '每个头的查询（新字前面的那个字，带边框）给到目前为止各个字的注意力权重，画在诗的各行上。描边的格子是度量各个头时用的三个位置：上一句的同一位置、前一个字、上一句的句末。',
  genHeadCaption: '第 {l} 层 · 头 {h}',
  genHeadLabel: '度量结果：看{role}（{score}）',
  genHeadNoLabel: '度量结果：没有专门的作用（最大的是{role}，{score}）',
  genHeadTop: '权重最大的是 {char}（{w}）',
  genRolePreviousLine: '上一句的同一位置',
  genRolePreviousChar: '前一个字',
  genRoleLineEnd: '上一句的句末',
  genScoresMeasuring: '正在用留出集的诗度量各个头：{n} 首中已完成 {done} 首…',
  genScoresNone:
    '这个模型没有专门化的头：在 {n} 首留出集的诗上度量，没有一个头在这三个位置中的任何一个上放 {threshold} 或更多的注意力权重（最大的是第 {l} 层头 {h}，{role}，{score}）。各个头不按我们期望它做什么来标注，只按度量到它做了什么来标注。',
  genScoresSome:
    '在 {n} 首留出集的诗上度量：一个头的三个分数中有一个达到 {threshold} 或更多时才标注；{total} 个头中有 {count} 个。',
  genScoresUnavailable: '无法度量各个头：{why}',
  genScoresNoPoems: '这个模型的词表读不了留出集的诗。',
  genLegendPreviousLine: '上一句同一位置',
  genLegendPreviousChar: '前一个字',
  genLegendLineEnd: '上一句句末',
  genLegendQuery: '查询',
  genResidualTitle: '{char}（位置 {pos}）处的残差流',
  genResidualLead:
    '每一块都往每个位置的一个向量（d_model = {d} 个数）上加东西：注意力加上它从前面各位置收集到的，MLP 加上它只根据这个位置算出的。每一块之后，logit 透镜把残差流当作最后一层来读：先 ln_f，再反嵌入，再 softmax，得到它对下一个字的最可能的猜测。',
  genResidualEmbedding: '字 + 位置（wte + wpe）',
  genResidualAttention: '第 {b} 块：注意力加上',
  genResidualMlp: '第 {b} 块：MLP 加上',
  genResidualLens: '第 {b} 块之后，透镜的猜测',
  genResidualNorm: '长度 {norm}',
  genResidualLast: '最后一块之后，透镜就是模型自己的预测：它的猜测等于上面的概率。',
  genResidualNext: '下一个：{char}',
  genTeachTitle: 'GPT 如何写字（超出课程内容）',
  genTeachAttnTitle: '注意力在位置之间搬运信息；MLP 只在一个位置上计算',
  genTeachAttn:
    '一块有两部分，每部分的结果都加到残差流上（x + …），所以一块是在已有内容上修改，而不是替换它。只有注意力让位置之间交换信息：一个字的查询读取前面各字的值，按因果掩码下的 softmax(q·k/√d_k) 加权，和课程里一样，每个头都如此。MLP（Linear → GELU → Linear，中间宽四倍）随后在每个位置上单独计算：每个位置用同样的权重，不读取别处的任何东西。一个字对诗中其他部分的了解，都是通过注意力得到的。',
  genTeachPosTitle: '它为什么会数到五：位置',
  genTeachPos:
    '训练窗口从一首诗的第一个字开始，所以第 l 句的第 k 个字（都从 0 数起）总在位置 6·l + k，这一句的标点在位置 6·l + 5。模型给每个位置学一个向量（wpe，和 GPT-2 一样），加到每个字的词嵌入上：位置 5、11、17…… 是逗号或句号该在的地方，在它训练过的每首诗里都彼此相像，又与其他位置不同。一个没有“句”这个概念的模型，就是这样写出五个字再写标点的。学到的位置只到上下文长度为止：超过最后一个位置就没有可以加上的向量，所以写到那里就停止。',
  genTeachMaskTitle: '它为什么需要掩码：不能看到下一个字',
  genTeachMask:
    '训练时，对一首诗算一遍就同时预测每个位置的下一个字：位置 i 要说出位置 i + 1 的字。没有因果掩码，位置 i 的查询就能读到那个字的键和值：答案就摆在眼前，损失会下降，模型学会的却是抄而不是写。掩码盖住 i + 1 及其后的一切：正是课程说的“防止偷看答案”，这次用在一个真实的任务上。写的时候，下一个字还不存在，所以模型算出的每一行都正是它训练时的那一行，而已经算好的行不会再变：这就是 KV 缓存可以留着它们的原因。',
  quizGenMlpPrompt: '先预测：第 1 块的 MLP 在“床前明月光”中“光”的位置上，读取哪些字的向量？',
  quizGenMlpRight: '只有“光”自己的',
  quizGenMlpWrong1: '全部五个字的',
  quizGenMlpWrong2: '下一个字的',
  quizGenMlpWrong3: '各个头看得最多的那些字的',
  quizGenMlpExplain:
    'MLP 对每个位置单独计算，各处用同样的权重。它对其他字的了解，只来自注意力已经加到这个位置残差流上的东西。',
  quizGenNoAttnPrompt: '先预测：去掉所有注意力层，只保留 MLP。模型还能用什么来选下一个字？',
  quizGenNoAttnRight: '最后一个字和它的位置，别无其他',
  quizGenNoAttnWrong1: '整个第一句，但不分顺序',
  quizGenNoAttnWrong2: '什么都不能用：它随便写',
  quizGenNoAttnWrong3: '整首诗，和原来一样',
  quizGenNoAttnExplain:
    '没有注意力，位置之间就不搬运任何东西：最后一个位置的向量起初是它的字加上它的位置，之后只有 MLP 在上面计算。模型仍能按位置放标点，却不能呼应上一句。',
  quizGenCommaPrompt:
    '先预测：一首诗从位置 0 开始，每句五个字加上标点。第 3 句末尾的逗号在哪个位置？（位置从 0 数起。）',
  quizGenCommaRight: '位置 17（6 × 2 + 5）',
  quizGenCommaWrong1: '位置 15',
  quizGenCommaWrong2: '位置 14',
  quizGenCommaWrong3: '位置 18',
  quizGenCommaExplain:
    '每句占六个位置：各句从 0、6、12…… 开始，每句的第 5 位是它的标点：5、11、17。训练用的诗总从 0 开始，所以这些位置总是标点，学到的位置向量就能把它们标出来。',
  quizGenContextPrompt:
    '先预测：这个模型的位置是学到的向量，从 0 到上下文长度 − 1 每个位置一个。诗写到上下文长度时会怎样？',
  quizGenContextRight: '停止：没有可以加上的位置向量了',
  quizGenContextWrong1: '重新使用位置 0',
  quizGenContextWrong2: '继续写，那里位置无关紧要',
  quizGenContextWrong3: '把向量平滑地外推下去',
  quizGenContextExplain:
    '学到的表训练时有多少行就只有多少行（nanoGPT 的 block_size，GPT-2 为 1,024）。本工具包写到上下文长度就停止并说明原因；nanoGPT 则切掉最早的字。',
  quizGenPeekPrompt: '先预测：训练时不加因果掩码，每个位置都能读整首诗。训练损失会怎样？',
  quizGenPeekRight: '下降得很快：每个位置都能抄下一个字',
  quizGenPeekWrong1: '一直很高：模型什么也学不到',
  quizGenPeekWrong2: '没有变化：掩码只在写的时候才有用',
  quizGenPeekWrong3: '上升：模型看到的太多了',
  quizGenPeekExplain:
    '位置 i 的答案是位置 i + 1 的字。不加掩码，它就是键之一：抄下来损失就低，却没学会写，而写的时候并没有下一个字可抄。掩码把答案藏起来（防止偷看答案）。',
  quizGenLastRowPrompt: '先预测：写的时候，查询是最后写出的那个字。因果掩码盖住它前面的多少个键？',
  quizGenLastRowRight: '一个也不盖：它后面还什么都没有',
  quizGenLastRowWrong1: '全部',
  quizGenLastRowWrong2: '一半',
  quizGenLastRowWrong3: '第一句的那些',
  quizGenLastRowExplain:
    '掩码盖住的是查询之后的键。最后一个字后面没有键，所以它这一行能看到所有已写的字。掩码决定的是前面各行，和训练时一样；而这些行在加上一个字时不会变，所以 KV 缓存可以留着它们的键和值。',
}

export const GENERATE: Table<GenerateKey> = { en, zh }

/**
 * Real first lines of five-character poems, with the key of their poet and title (the same text in zh and en).
 * A module of strings: the first lines are Chinese text shown to the learner.
 */
export const POEM_PRESETS: Readonly<Record<string, string>> = {
  genPresetJingyesi: '床前明月光，',
  genPresetDengguanquelou: '白日依山尽，',
  genPresetChunxiao: '春眠不觉晓，',
  genPresetJiangxue: '千山鸟飞绝，',
  genPresetJingtingshan: '众鸟高飞尽，',
  genPresetLuzhai: '空山不见人，',
}
