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
}

export const LESSON_ZH: Record<keyof typeof LESSON_EN, string> = {
  presetItTrained: '“it” 指代句（训练后的权重）',
  weightsRandomTitle: '随机权重。',
  weightsRandom:
    '词嵌入和 W_q、W_k、W_v 都由随机种子（{seed}）抽取，没有经过训练：注意力权重里看到的任何规律都是巧合，不代表含义。',
  weightsTrainedTitle: '训练后的权重。',
  weightsTrained:
    '“训练”页默认训练的模型的第 {layer} 层（共 {layers} 层）。训练任务是指代：损失是 “it” 那一行注意力权重落在它所指名词上的 −log；Adam 训练 {steps} 步，随机种子 {seed}；留出数据上的准确率 {accuracy}。这里的 X 不是词嵌入表中的一行，而是下面各层对这句话的计算结果（词嵌入 + 位置嵌入，再加上第 1 层的注意力输出）。只接受该任务词表中的词。',
  weightsTrainLink: '“训练”页：自己训练这样一个模型',
  weightsUseTrained: '换成训练后的权重',
  weightsUseRandom: '换回随机权重',
  decodeNormTitle: '② 加上输入（残差），再做 LayerNorm',
  decodeNormHelp:
    '自注意力输出的第 t 行加上输入 x_t（这里自注意力的 d_v 取 d_model，两者才能相加；Transformer 在这里还有一个输出投影 W_o），再经过 LayerNorm，使这一行的均值为 0、方差为 1（增益 1、偏移 0，与 nn.LayerNorm 的初始值相同）。用这一行去查询源句。',
  decodeSelfRow: '自注意力第 t 行',
  decodeResidualRow: 'x + 自注意力',
}
