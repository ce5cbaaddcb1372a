// "Check your understanding": the questions web/quiz/questions.ts builds from the state.
// zh uses docs/glossary.md's terms. How to add a string: docs/design.md, "Adding a string".

import type { Messages, Table } from './core'

const en = {
  quizBwMaskPrompt: 'In dL/dS (the gradient at the scores), what does a masked cell receive?',
  quizBwMaskRight: 'Exactly 0: its weight is 0, so softmax’s Jacobian sends it nothing',
  quizBwMaskWrong1: 'The same gradient as the cell next to it',
  quizBwMaskWrong2: '−∞, like its score',
  quizBwMaskWrong3: 'A large gradient that pushes the mask open',
  quizBwMaskExplain:
    'dS = A ⊙ (dA − rowsum(dA ⊙ A)): every cell is multiplied by its weight a, and a masked cell has a = 0. The mask stops the gradient as it stops the attention (see the dS heatmap with a causal mask).',
  quizBwSatPrompt:
    'A row of weights is saturated (one weight ≈ 1, the rest ≈ 0) and the goal is the output goal (a squared error: dL/dA stays bounded). Why does almost nothing reach W_q and W_k?',
  quizBwSatRight: 'softmax’s Jacobian diag(a) − a·aᵀ is ≈ 0, so dS ≈ 0 and almost nothing reaches Q, K, W_q, W_k',
  quizBwSatWrong1: 'The learning rate becomes 0',
  quizBwSatWrong2: 'The loss is already 0',
  quizBwSatWrong3: 'V receives no gradient',
  quizBwSatExplain:
    'With a ≈ one-hot, a_j (1 − a_j) ≈ 0 and a_j a_k ≈ 0 for every cell: the Jacobian vanishes (V still learns: dV = Aᵀ·dO). That is why the scores are divided by √d_k: it keeps them from growing with d_k and saturating softmax (the lesson: 防止点积值过大导致 softmax 梯度消失). A log loss on the weights is different: for the attend goal, −log A[i, j], dL/dA = −1/A[i, j] cancels the Jacobian and dS row i = a − e_j, not 0.',
  quizTitle: 'Check your understanding',
  quizProgress: '{right} of {total} answered right (kept in this browser)',
  quizRight: 'Right.',
  quizWrong: 'Not quite.',
  quizRightIs: 'The answer is {a}.',
  quizListSep: ', ',
  quizNone: 'none',
  quizShapePrompt: 'With {nq} queries, {nk} keys and d_k = {dk}, what is the shape of the attention scores Q·Kᵀ?',
  quizShapeExplain:
    'Q is ({nq}, {dk}) and Kᵀ is ({dk}, {nk}): one score per query and key, so ({nq}, {nk}); d_k is summed away.',
  quizScalePrompt: 'Here d_k = {dk}. By what number does step ② (scale) divide the scores?',
  quizScaleExplain:
    '√{dk} = {root}: dividing by √d_k takes away the scores’ growth with d_k (for q and k with unit-variance entries their variance comes back to about 1), so softmax saturates less. With the course’s torch.rand weights the scores stay large even so: the note under ② shows it.',
  quizMaskPrompt: 'With the current mask, which keys are hidden from the query “{tok}”?',
  quizMaskExplain: 'Those cells of row “{tok}” are −∞ in the masked scores ({list}), so softmax gives them weight 0.',
  quizMaskNoneExplain: 'No cell of this row is −∞ in the masked scores: with this mask the query sees every key.',
  quizTopPrompt: 'Which key does the query “{tok}” weigh most?',
  quizTopExplain:
    'Its row of weights peaks at “{key}” ({w}): the largest score after scaling and masking gets the largest weight.',
  quizOutPrompt: 'The weights ({nq}, {nk}) times V: what is the output’s shape (d_v = {dv})?',
  quizOutExplain: 'One output row per query, each a weighted sum of value rows: ({nq}, {dv}).',
  quizKvPrompt: 'In seq2seq cross attention, where do K and V come from?',
  quizQPrompt: 'In seq2seq cross attention, where does Q come from?',
  quizFromEncoder: 'the encoder (the source sentence)',
  quizFromDecoder: 'the decoder (the target sentence)',
  quizFromBoth: 'half from each sentence',
  quizFromRandom: 'random numbers, fixed once',
  quizKvExplain: 'The lesson: Encoder → K, V; Decoder → Q. The decoder asks, the source answers.',
  quizQExplain: 'The decoder’s tokens ask the questions (Q); the encoder supplies K and V.',
  quizWhyPrompt: 'Why can attention connect “it” with “animal” better than an RNN?',
  quizWhyRight: 'it links the two words directly, in one step',
  quizWhyWrong1: 'it reads the sentence word by word more carefully',
  quizWhyWrong2: 'it only looks at neighbouring words',
  quizWhyWrong3: 'its weights are fixed after training',
  quizWhyExplain: 'Every token reaches every other token in one step, so distance does not fade the information.',
  quizDecodePrompt:
    'At one decoding step, what is the shape of the cross attention’s query, the row that asks the source (the lesson’s Q, d_q = {dq})?',
  quizDecodeRight: '(1, 1, {dq}): one row',
  quizDecodeWrong1: '(1, n, {dq}): one row per source word',
  quizDecodeWrong2: '(1, {dq}, n)',
  quizDecodeWrong3: '(1, 2, {dq}): two rows',
  quizDecodeExplain:
    'Each step asks the source with one row (the step’s LayerNorm row times W_q), as the lesson’s Q (1, 1, 64). The self-attention before it has one query per input so far; its last row is the one this step uses.',
  quizScaleWhatPrompt: 'What does dividing the scores by √d_k do?',
  quizScaleWhatRight: 'keeps their spread from growing with d_k, so softmax saturates less',
  quizScaleWhatWrong1: 'makes every row sum to 1',
  quizScaleWhatWrong2: 'hides future tokens',
  quizScaleWhatWrong3: 'makes the weights sharper',
  quizScaleWhatExplain:
    'For q and k with unit-variance entries, q·k adds d_k terms of variance 1, so its variance is d_k; ÷√d_k brings it to 1 (see the charts). It does not guarantee small scores: with the course’s torch.rand weights they stay large. Rows summing to 1 is softmax’s work; hiding tokens is the mask’s.',
  quizTrainPrompt: 'What does training change?',
  quizTrainRight:
    'the parameters: the embeddings, W_q, W_k, W_v and the model’s other matrices (in the Train tab also W_o, b_o, a learned position table and an output layer); attention weights are computed from them',
  quizTrainWrong1: 'the attention weights, stored one by one',
  quizTrainWrong2: 'the vocabulary',
  quizTrainWrong3: 'the softmax function',
  quizTrainExplain:
    'Backpropagation adjusts the parameters; the attention weights are recomputed from Q·Kᵀ for every input.',
  quizScalePromptTemp:
    'Here d_k = {dk} and the temperature is {T}. By what number does step ② (scale) alone divide the scores? (The temperature divides them afterwards, inside the softmax.)',
  quizShapePromptHeads:
    'With {heads} heads, each head has d_k = {dk}. With {nq} queries and {nk} keys, what is the shape of one head’s attention scores Q·Kᵀ?',
  quizOutPromptHeads:
    'Each of the {heads} heads multiplies its weights ({nq}, {nk}) by its V (d_v = {dvh} per head), and the heads’ outputs are put side by side. What is the output’s shape (d_v = {dv} in all)?',
}

export type QuizKey = keyof typeof en

const zh: Messages<QuizKey> = {
  quizBwMaskPrompt: '在注意力分数的梯度里，被掩码的格子得到什么？',
  quizBwMaskRight: '恰好是 0：它的权重是 0，softmax 的雅可比矩阵不给它任何梯度',
  quizBwMaskWrong1: '和旁边格子一样的梯度',
  quizBwMaskWrong2: '负无穷，和它的分数一样',
  quizBwMaskWrong3: '一个很大的梯度，把掩码推开',
  quizBwMaskExplain:
    '分数的梯度等于权重乘以（权重的梯度减去这一行按权重的加权和）：每个格子都乘以它自己的权重，而被掩码的格子权重为 0。掩码挡住了注意力，也挡住了梯度（用因果掩码看看反向传播视图里分数梯度的热力图）。',
  quizBwSatPrompt:
    '某一行权重饱和了（一个权重 ≈ 1，其余 ≈ 0），目标是输出目标（平方误差：损失对权重的梯度有界）。为什么 W_q、W_k 几乎收不到梯度？',
  quizBwSatRight: 'softmax 的雅可比矩阵接近 0，所以分数的梯度接近 0，Q、K、W_q、W_k 几乎都收不到梯度',
  quizBwSatWrong1: '学习率变成了 0',
  quizBwSatWrong2: '损失已经是 0',
  quizBwSatWrong3: 'V 收不到梯度',
  quizBwSatExplain:
    'a 接近独热向量时，雅可比矩阵的每一项 a_j (1 − a_j) 和 a_j a_k 都接近 0：它消失了（V 仍在学习：dV = Aᵀ·dO）。这就是要把分数除以 √d_k 的原因：防止点积值过大导致 softmax 梯度消失（课程原话）。对权重取对数的损失不同：关注目标 −log A[i, j] 的梯度 −1/A[i, j] 抵消了雅可比矩阵，分数梯度的第 i 行 = a − e_j，而不是 0。',
  quizTitle: '检验一下你的理解',
  quizProgress: '答对 {right} / {total} 题（进度保存在本浏览器中）',
  quizRight: '答对了。',
  quizWrong: '不对。',
  quizRightIs: '正确答案是 {a}。',
  quizListSep: '、',
  quizNone: '一个也没有',
  quizShapePrompt: '有 {nq} 个查询、{nk} 个键，d_k = {dk}，注意力分数 Q·Kᵀ 的形状是什么？',
  quizShapeExplain:
    'Q 是 ({nq}, {dk})，Kᵀ 是 ({dk}, {nk})：每个查询与每个键各一个分数，所以是 ({nq}, {nk})；d_k 在求和中消失了。',
  quizScalePrompt: '这里 d_k = {dk}。第 ② 步（缩放）把注意力分数除以多少？',
  quizScaleExplain:
    '√{dk} = {root}：除以 √d_k 去掉了分数随 d_k 的增长（q、k 的各分量方差为 1 时，分数的方差回到 1 左右），softmax 就不那么容易饱和。课程用 torch.rand 权重时，即使这样分数仍然很大：② 下方的说明展示了这一点。',
  quizMaskPrompt: '在当前的掩码下，查询“{tok}”看不到哪些键？',
  quizMaskExplain: '掩码后，“{tok}”这一行里这些单元格是 −∞（{list}），softmax 后权重为 0。',
  quizMaskNoneExplain: '掩码后这一行没有 −∞ 的单元格：在这个掩码下，这个查询能看到所有的键。',
  quizTopPrompt: '查询“{tok}”给哪个键的注意力权重最大？',
  quizTopExplain: '它那一行的权重在“{key}”处最大（{w}）：缩放和掩码之后分数最大的键得到最大的权重。',
  quizOutPrompt: '注意力权重 ({nq}, {nk}) 乘以 V：输出的形状是什么（d_v = {dv}）？',
  quizOutExplain: '每个查询一行输出，每行都是各行 V 的加权和：({nq}, {dv})。',
  quizKvPrompt: '在 Seq2Seq 的交叉注意力中，K 和 V 从哪里来？',
  quizQPrompt: '在 Seq2Seq 的交叉注意力中，Q 从哪里来？',
  quizFromEncoder: '编码器（源句）',
  quizFromDecoder: '解码器（目标句）',
  quizFromBoth: '两个句子各一半',
  quizFromRandom: '一次性固定的随机数',
  quizKvExplain: '课程中：编码器 → K、V；解码器 → Q。解码器提问，源句作答。',
  quizQExplain: '解码器的词元提出问题（Q）；编码器提供 K 和 V。',
  quizWhyPrompt: '为什么注意力比 RNN 更容易把 “it” 和 “animal” 联系起来？',
  quizWhyRight: '它一步直接连接这两个词',
  quizWhyWrong1: '它更仔细地逐词阅读句子',
  quizWhyWrong2: '它只看相邻的词',
  quizWhyWrong3: '它的权重在训练后固定不变',
  quizWhyExplain: '每个词元一步就能到达任何其他词元，信息不会因为距离而衰减。',
  quizDecodePrompt: '在解码的某一步，交叉注意力的查询（去查询源句的那一行，即课程中的 Q，d_q = {dq}）是什么形状？',
  quizDecodeRight: '(1, 1, {dq})：只有一行',
  quizDecodeWrong1: '(1, n, {dq})：每个源词一行',
  quizDecodeWrong2: '(1, {dq}, n)',
  quizDecodeWrong3: '(1, 2, {dq})：两行',
  quizDecodeExplain:
    '每一步只用一行去查询源句（这一步 LayerNorm 之后的那一行乘以 W_q），就像课程中的 Q (1, 1, 64)。它前面的自注意力对目前为止的每个输入各有一个查询，这一步用的是最后一行。',
  quizScaleWhatPrompt: '把注意力分数除以 √d_k 有什么作用？',
  quizScaleWhatRight: '让分数的分布范围不随 d_k 变大，softmax 不那么容易饱和',
  quizScaleWhatWrong1: '让每一行的和为 1',
  quizScaleWhatWrong2: '遮住后面的词元',
  quizScaleWhatWrong3: '让权重更尖锐',
  quizScaleWhatExplain:
    'q、k 的各分量方差为 1 时，q·k 是 d_k 个方差为 1 的项之和，方差为 d_k；除以 √d_k 后回到 1（见图）。它并不保证分数很小：课程用 torch.rand 权重时分数仍然很大。每行和为 1 是 softmax 的作用，遮住词元是掩码的作用。',
  quizTrainPrompt: '训练改变的是什么？',
  quizTrainRight:
    '参数：词嵌入、W_q、W_k、W_v 这些矩阵（课程中叫“权重矩阵”）和模型的其他矩阵（“训练”页里还有 W_o、b_o、可学习的位置表和输出层）；注意力权重由它们算出',
  quizTrainWrong1: '逐个存储的注意力权重',
  quizTrainWrong2: '词表',
  quizTrainWrong3: 'softmax 函数',
  quizTrainExplain: '反向传播调整的是参数；注意力权重每次都由输入的 Q·Kᵀ 重新计算。',
  quizScalePromptTemp:
    '这里 d_k = {dk}，温度是 {T}。单看第 ② 步（缩放），注意力分数除以多少？（温度在这之后、在 softmax 里面再除。）',
  quizShapePromptHeads:
    '有 {heads} 个头，每个头的 d_k = {dk}。有 {nq} 个查询、{nk} 个键，一个头的注意力分数 Q·Kᵀ 是什么形状？',
  quizOutPromptHeads:
    '{heads} 个头各自用注意力权重 ({nq}, {nk}) 乘以自己的 V（每个头 d_v = {dvh}），再把各头的输出并排拼接。输出是什么形状（总的 d_v = {dv}）？',
}

export const QUIZ: Table<QuizKey> = { en, zh }
