// The strings of the lessons' second pass (trained or random weights, the decoder's steps, the first visit's
// folded options), kept together so that merges with other work on web/i18n.ts stay easy. web/i18n.ts
// spreads them into its tables; zh uses the terms of docs/glossary.md.

export const LESSON_EN = {
  presetItTrained: 'The "it" sentence, trained',
  weightsRandomTitle: 'Random weights.',
  weightsRandom:
    'The embeddings and W_q, W_k, W_v are drawn from the seed ({seed}); nothing here was trained, so any pattern in the attention weights is chance, not meaning.',
  weightsTrainedTitle: 'Trained weights.',
  weightsTrained:
    'Layer {layer} of {layers} of the model the Train tab trains by default (coreference: the loss is −log of the weight the "it" row puts on the noun "it" refers to; {steps} Adam steps, seed {seed}; held-out accuracy {accuracy}). X is not a row of an embedding table: it is what the layers below make of the sentence (token + position embeddings, then layer 1\'s attention added). Only words of the task\'s vocabulary are accepted.',
  weightsTrainLink: 'Train tab: train such a model yourself',
  weightsUseTrained: 'show trained weights',
  weightsUseRandom: 'back to random weights',
  decodeNormTitle: '② Add the input (residual), then LayerNorm',
  decodeNormHelp:
    "Row t of the self-attention is added to the input x_t (the self-attention's d_v is d_model here so that the two can be added; a Transformer has an output projection W_o there), then LayerNorm makes the row's mean 0 and variance 1 (gain 1, shift 0, as nn.LayerNorm starts). This row is what asks the source.",
  decodeSelfRow: 'self-attention, row t',
  decodeResidualRow: 'x + self-attention',
  noticeDkClash: '{v} ({score} needs dk = dq = {dq})',
  noticeHeadsClash: '{v} (must divide dq = {dq}, dk = {dk}, dv = {dv})',
  tokIdWord: 'id',
  stepScoresGeneral: '① Attention scores: q W kᵀ',
  stepScoresAdditive: '① Attention scores: vᵀtanh(Wa_q q + Wa_k k)',
  stepScoresConcat: '① Scores of rule 1: Linear([q_i; k_i])',
  trainedLayerInput: 'X = layer 2’s input (trained: made by layer 1)',
  kindNote:
    'This table is the lesson’s, and its split is historical: before the Transformer, attention between an encoder and a decoder (RNN-era Bahdanau 2014, Luong 2015) scored with rules like 1 and 2; the Transformer (2017) scores with the scaled dot product everywhere — in its cross attention (this page’s cross mode: 一般注意力 between two sequences) as in its self-attention. And in self-attention Q, K, V are not equal: they are three projections X·W_q, X·W_k, X·W_v of one X; “Q = K = V” in the lesson means one source.',
  headsNote:
    'With several heads each head has its own slice of W_q, W_k, W_v and its own weights; their outputs are put side by side (concatenated). A Transformer then multiplies by an output matrix W_o [d_v, d_model]; this page stops at the concatenation (W_o is not shown).',
  quizScalePromptTemp:
    'Here d_k = {dk} and the temperature is {T}. By what number does step ② (scale) alone divide the scores? (The temperature divides them afterwards, inside the softmax.)',
  quizShapePromptHeads:
    'With {heads} heads, each head has d_k = {dk}. With {nq} queries and {nk} keys, what is the shape of one head’s attention scores Q·Kᵀ?',
  quizOutPromptHeads:
    'Each of the {heads} heads multiplies its weights ({nq}, {nk}) by its V (d_v = {dvh} per head), and the heads’ outputs are put side by side. What is the output’s shape (d_v = {dv} in all)?',
}

export const LESSON_ZH: Record<keyof typeof LESSON_EN, string> = {
  presetItTrained: '“it” 指代句（训练后的权重）',
  weightsRandomTitle: '随机权重。',
  weightsRandom:
    '词嵌入和 W_q、W_k、W_v 都由随机种子（{seed}）抽取，没有经过训练：注意力权重里看到的任何规律都是巧合，不代表含义。',
  weightsTrainedTitle: '训练后的权重。',
  weightsTrained:
    '“训练”页默认训练的模型的第 {layer} 层（共 {layers} 层）。训练任务是指代：损失是 “it” 那一行注意力权重落在它所指名词上的 −log；Adam 训练 {steps} 步，随机种子 {seed}；留出集准确率 {accuracy}。这里的 X 不是词嵌入表中的一行，而是下面各层对这句话的计算结果（词嵌入 + 位置嵌入，再加上第 1 层的注意力输出）。只接受该任务词表中的词。',
  weightsTrainLink: '“训练”页：自己训练这样一个模型',
  weightsUseTrained: '换成训练后的权重',
  weightsUseRandom: '换回随机权重',
  decodeNormTitle: '② 加上输入（残差），再做 LayerNorm',
  decodeNormHelp:
    '自注意力输出的第 t 行加上输入 x_t（这里自注意力的 d_v 取 d_model，两者才能相加；Transformer 在这里还有一个输出投影 W_o），再经过 LayerNorm，使这一行的均值为 0、方差为 1（增益 1、偏移 0，与 nn.LayerNorm 的初始值相同）。用这一行去查询源句。',
  decodeSelfRow: '自注意力第 t 行',
  decodeResidualRow: 'x + 自注意力',
  noticeDkClash: '{v}（{score} 要求 dk = dq = {dq}）',
  noticeHeadsClash: '{v}（必须整除 dq = {dq}、dk = {dk}、dv = {dv}）',
  tokIdWord: '编号',
  stepScoresGeneral: '① 注意力分数：q W kᵀ',
  stepScoresAdditive: '① 注意力分数：vᵀtanh(Wa_q q + Wa_k k)',
  stepScoresConcat: '① 规则 1 的分数：Linear([q_i; k_i])',
  trainedLayerInput: 'X = 第 2 层的输入（训练后：由第 1 层算出）',
  kindNote:
    '这张表来自课程，它的划分是历史上的：在 Transformer 之前，编码器与解码器之间的注意力（RNN 时代的 Bahdanau 2014、Luong 2015）用规则 1、2 这样的计算规则；Transformer（2017）处处用缩放点积——交叉注意力（本页的交叉模式，即两个序列之间的一般注意力）和自注意力都是。而且自注意力中 Q、K、V 并不相等：它们是同一个 X 的三个投影 X·W_q、X·W_k、X·W_v；课程中的“Q = K = V”指它们来自同一个序列。',
  headsNote:
    '多头时，每个头有自己那一份 W_q、W_k、W_v 和自己的注意力权重；各头的输出并排拼接。Transformer 之后还要乘一个输出矩阵 W_o [d_v, d_model]；本页只算到拼接为止（不显示 W_o）。',
  quizScalePromptTemp:
    '这里 d_k = {dk}，温度是 {T}。单看第 ② 步（缩放），注意力分数除以多少？（温度在这之后、在 softmax 里面再除。）',
  quizShapePromptHeads:
    '有 {heads} 个头，每个头的 d_k = {dk}。有 {nq} 个查询、{nk} 个键，一个头的注意力分数 Q·Kᵀ 是什么形状？',
  quizOutPromptHeads:
    '{heads} 个头各自用注意力权重 ({nq}, {nk}) 乘以自己的 V（每个头 d_v = {dvh}），再把各头的输出并排拼接。输出是什么形状（总的 d_v = {dv}）？',
}
