// The Train panel (web/train/), a table of its own: the panel is loaded only when the Train tab is first shown, and
// its strings with it. zh uses docs/glossary.md's terms. How to add a string: docs/design.md, "Adding a string".

import type { Messages, Table } from './core'

const en = {
  title: 'Train attention',
  intro:
    'With random weights attention points anywhere. Here every parameter learns by backpropagation (the embeddings, ' +
    'W_q, W_k, W_v, the output projection W_o and b_o, the position table when it is learned, the scoring rule’s own ' +
    'matrices and the output layer where the task has one), in your browser.',
  introCoreference:
    'Watch "it" learn to look at "animal" when the animal was tired, and at "street" when the street was wide. ' +
    'In the coreference task the loss is on the attention row of "it" itself (−log of its weight on the right noun): the row is trained to be the answer.',
  introReverse:
    'The task: write 6 digits in reverse order. Output position i must copy input position 5 − i, which one attention layer does by matching positions: watch the attention turn into the anti-diagonal.',
  introNextChar:
    'The task: predict each next character of the text you paste, seeing only the characters before it (a causal mask).',
  introInduction:
    'The task: continue a segment of words that appears twice. Watch a head in layer 2 learn to find where the current word was seen before and read the word after it (how, below the charts).',
  task: 'Task',
  taskCoreference: 'coreference ("it" → its noun)',
  taskReverse: 'reverse 6 digits',
  taskNextChar: 'next character of a text',
  taskPoems: 'Tang poems (a small GPT)',
  score: 'Scoring rule',
  ruleScaledDot: 'scaled dot',
  ruleDot: 'dot',
  ruleBilinear: 'bilinear',
  ruleAdditive: 'additive',
  ruleConcat: 'concat',
  optAdam: 'Adam',
  optSgd: 'SGD',
  heads: 'Heads',
  optimizer: 'Optimizer',
  positions: 'Positions',
  posLearned: 'learned table (GPT-2)',
  posSinusoidal: 'sinusoidal (Transformer 2017)',
  posRope: 'RoPE: q and k turned (LLaMA)',
  inspectRope: 'With RoPE the gradients view is not offered: it runs the course program, which has no positions.',
  lr: 'Learning rate (peak: warm-up, then cosine decay)',
  seed: 'Seed',
  text: 'Text to learn (paste your own)',
  reset: 'New model',
  play: 'Play',
  pause: 'Pause',
  step: 'Step ×10',
  sentence: 'Sentence to watch',
  curves: 'Loss and accuracy',
  gradNorms: 'Gradient norm ‖dL/dW‖ per matrix (last layer; log scale)',
  inspect: 'Look inside this step (the backward view, on this model’s last layer)',
  trainLoss: 'training loss',
  trainAcc: 'training accuracy',
  testAcc: 'held-out accuracy',
  attention: 'Attention of the last layer (rows: queries, columns: keys)',
  pca: 'Token embeddings, 2-D PCA',
  starting: 'Loading the engine…',
  status:
    'step {steps} · loss {loss} · training accuracy {train} · held-out accuracy {test} · learning rate in use {lr}',
  heldOutNote: '{test} held-out sentences use word combinations never seen in training.',
  workerFailed: 'Training stopped:',
  workerCrashed:
    'The training worker stopped ({reason}). The rest of the page still works; Restart starts a fresh worker with a new model and the same settings.',
  workerSilent: 'no answer for {seconds} s',
  restart: 'Restart',
  taskInduction: 'induction (copy a repeated segment)',
  inductionExplain:
    'Each sequence holds a segment of 4–8 words that appears twice in a row, at a random place; the rest is random. ' +
    'Only the second copy can be predicted (after its first word), and only by finding where the current word ' +
    'occurred before and reading the word after it: an induction head. Look for a stripe in layer 2 one column to ' +
    'the right of the first copy (each word of the second copy attends to the word after its earlier occurrence). ' +
    'Layer 2 can only find that column if layer 1 has written something into the positions: in the textbook circuit ' +
    '(Olsson et al. 2022) a previous-token head (the diagonal just below the main one) copies each word into the next ' +
    'position, so the word after A carries "A came before me". This model starts with small word vectors (0.1 of the ' +
    'usual scale) and full-size positions, and with the default seed it learns that circuit (with seeds 0–4, three ' +
    'times in five). Started the other way round, as the other tasks are, and with some seeds even so, it takes a ' +
    'second route instead: a duplicate-token head in layer 1 (each word of the second copy attends to its earlier ' +
    'copy) passes on where the word was seen, and layer 2 attends to the position after it. Either way, the copy ' +
    'accuracy jumps when the induction score rises (marked on the loss curve): a phase change. The lessons do not ' +
    'cover multi-layer circuits; this goes beyond them.',
  rolePrevious: 'previous-token head',
  roleInduction: 'induction head',
  roleDuplicate: 'duplicate-token head',
  roleNone: 'no clear role yet',
  headLine: 'layer {layer} head {head}: {role} (previous-token {prev} · induction {ind} · duplicate-token {dup})',
  scores: 'Head scores over training',
  scoresLegend: 'per head: induction ——  previous-token – –  duplicate-token ···',
  phase: 'induction score rises',
  layerMap: 'Layer {layer}, head {head}',
  inductionStatus:
    'step {steps} · loss {loss} · held-out accuracy on copyable words {test} · on the others {rest} (chance 3.1 %)',
  goalReached:
    'Goal reached at step {steps}: {which} accuracy {acc}. Training is paused; press Play to go on (it will not stop again by itself).',
  goalHeldOut: 'held-out',
  goalTraining: 'training',
  notInVocab:
    '“{word}” is not in this task’s vocabulary, so the sentence cannot be shown (the last one that could stays). Use its words: {words} …',
  sentenceFailed: 'This sentence cannot be shown (the last one that could stays):',
}

export type TrainKey = keyof typeof en

const zh: Messages<TrainKey> = {
  title: '训练注意力',
  intro:
    '权重随机时，注意力指向哪里都有可能。这里所有参数（词嵌入、W_q、W_k、W_v、输出投影 W_o 和 b_o、可学习时的位置表、' +
    '计算规则自己的矩阵，以及任务有输出层时的输出层）都在浏览器里通过反向传播学习。',
  introCoreference:
    '看 “it” 如何学会在动物累了时看向 “animal”，在街道太宽时看向 “street”。' +
    '指代任务的损失直接定义在 “it” 这一行注意力权重上（落在正确名词上的权重的 −log）：训练让这一行本身成为答案。',
  introReverse:
    '任务：把 6 个数字倒序写出。输出的第 i 个位置要抄写输入的第 5 − i 个位置，一层注意力靠匹配位置就能做到：看注意力如何变成反对角线。',
  introNextChar: '任务：预测你粘贴的文本中的每一个下一个字符，每个字符只能看到它之前的字符（因果掩码）。',
  introInduction:
    '任务：接着写出出现了两次的一段词。看第 2 层的一个头如何学会找到当前词上一次出现的位置，并读出它后面的那个词（原理见图表下方）。',
  task: '任务',
  taskCoreference: '指代（“it” → 它指的名词）',
  taskReverse: '倒序 6 个数字',
  taskNextChar: '预测文本的下一个字符',
  taskPoems: '唐诗（一个小型 GPT）',
  score: '计算规则',
  ruleScaledDot: '缩放点积',
  ruleDot: '点积',
  ruleBilinear: '双线性',
  ruleAdditive: '加性',
  ruleConcat: '拼接',
  optAdam: 'Adam',
  optSgd: '随机梯度下降',
  heads: '头数',
  optimizer: '优化器',
  positions: '位置编码',
  posLearned: '可学习的位置表（GPT-2）',
  posSinusoidal: '正弦位置编码（2017 年的 Transformer）',
  posRope: '旋转位置编码 RoPE：旋转 q 和 k（LLaMA）',
  inspectRope: '使用旋转位置编码时不提供梯度视图：它运行的是课程的程序，其中没有位置编码。',
  lr: '学习率（峰值：先预热，再余弦衰减）',
  seed: '随机种子',
  text: '要学习的文本（可粘贴自己的）',
  reset: '新模型',
  play: '开始',
  pause: '暂停',
  step: '前进 10 步',
  sentence: '观察的句子',
  curves: '损失与准确率',
  gradNorms: '每个矩阵的梯度范数（最后一层；对数刻度）',
  inspect: '看看这一步的内部（反向传播视图，用这个模型的最后一层）',
  trainLoss: '训练损失',
  trainAcc: '训练准确率',
  testAcc: '留出集准确率',
  attention: '最后一层的注意力（行：查询，列：键）',
  pca: '词嵌入的二维 PCA',
  starting: '正在加载引擎…',
  status: '第 {steps} 步 · 损失 {loss} · 训练准确率 {train} · 留出集准确率 {test} · 当前学习率 {lr}',
  heldOutNote: '{test} 个留出句子使用训练中从未出现过的词语组合。',
  workerFailed: '训练已停止：',
  workerCrashed:
    '训练用的 Worker 已停止（{reason}）。页面的其他部分仍可使用；“重新启动”会新建一个 Worker，用相同的设置从头训练一个新模型。',
  workerSilent: '{seconds} 秒无响应',
  restart: '重新启动',
  taskInduction: '归纳（复制重复出现的片段）',
  inductionExplain:
    '每个序列里有一段 4–8 个词的片段，在随机位置连续出现两次；其余的词都是随机的。' +
    '只有第二份副本（从它的第二个词起）可以预测，而且只能这样做：找到当前词之前出现的位置，读出它后面的那个词——这就是归纳头。' +
    '请看第 2 层的一条斜纹：它在第一份副本右边一列（第二份副本的每个词都注意到它上一次出现之后的那个词）。' +
    '第 2 层之所以能找到那一列，是因为第 1 层先往各个位置写入了信息：在经典电路中（Olsson 等，2022），' +
    '一个“前一词头”（主对角线正下方的那条对角线）把每个词复制到下一个位置，于是 A 后面的那个词带着“我前面是 A”。' +
    '这个模型开始时词嵌入很小（通常尺度的 0.1），位置向量是完整尺度；用默认的随机种子，它学到的正是这个电路' +
    '（种子 0–4 中五次有三次）。如果像其他任务那样反过来开始（用某些种子时即使这样开始也会），它会走另一条路：第 1 层的“重复词头”（第二份副本的每个词注意到它的上一次出现）' +
    '把这个词上次出现的位置传下去，第 2 层再注意那个位置的下一个位置。无论哪条路，归纳分数上升时（在损失曲线上标出）' +
    '复制准确率都会突然跳升：这是一次相变。课程讲义没有讲多层电路，这部分超出了讲义的范围。',
  rolePrevious: '前一词头',
  roleInduction: '归纳头',
  roleDuplicate: '重复词头',
  roleNone: '角色尚不明确',
  headLine: '第 {layer} 层第 {head} 个头：{role}（前一词 {prev} · 归纳 {ind} · 重复词 {dup}）',
  scores: '训练过程中各个头的分数',
  scoresLegend: '每个头：归纳 ——  前一词 – –  重复词 ···',
  phase: '归纳分数上升',
  layerMap: '第 {layer} 层第 {head} 个头',
  inductionStatus: '第 {steps} 步 · 损失 {loss} · 留出集上可复制词的准确率 {test} · 其余词 {rest}（随机猜测 3.1 %）',
  goalReached: '第 {steps} 步达到目标：{which}准确率 {acc}。训练已暂停；按“开始”继续（之后不会再自动停下）。',
  goalHeldOut: '留出集',
  goalTraining: '训练',
  notInVocab: '“{word}”不在这个任务的词表里，无法显示这句话（保留上一句能显示的）。请用词表中的词：{words} ……',
  sentenceFailed: '无法显示这句话（保留上一句能显示的）：',
}

export const TRAIN: Table<TrainKey> = { en, zh }
