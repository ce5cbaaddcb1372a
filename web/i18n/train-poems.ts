// The Train panel's task `poems` (web/train/poems-view.ts): a small GPT learning five-character Tang poems in the
// worker. Loaded with the panel. zh uses docs/glossary.md's terms. How to add a string: docs/design.md, "Adding a
// string".

import type { Messages, Table } from './core'

const en = {
  intro:
    'Task Tang poems: a small GPT learns to write five-character Tang poems from scratch, in your browser. At every ' +
    'position it predicts the next character from the ones before; the causal mask keeps it from seeing the answer ' +
    '(the lessons’ “no peeking at the answer”, here on a real task). Between the characters sit the pieces this page ' +
    'shows one by one: embeddings and positions, causal self-attention with several heads, and after each attention ' +
    'an MLP working on each position alone; every parameter learns by backpropagation (AdamW). The lessons stop at ' +
    'one attention step: a whole language model goes beyond them.',
  explain:
    'Watch three things. The validation loss (nats a character on poems it never trains on) falls from about ' +
    'ln 2,401 = 7.8, the value of a uniform guess. The sample poem takes the form: four or eight lines of five ' +
    'characters, each pair of lines closed by ， and 。. With learned positions the form comes from the position ' +
    'table (place k of line l is position 6·l + k); with RoPE the model has to count, and heads that look at the ' +
    'previous character or at the end of the previous line appear (a head is named only when a score reaches 0.4).',
  shape:
    'Model: {layers} layers × {heads} heads × d_model {dModel} (head size {headSize}), MLP {mlp} · vocabulary {vocab} ' +
    'characters · context {context} · batch {batch} windows · {positions} · {parameters} parameters · AdamW, peak ' +
    'learning rate {lr}, {warmup} warm-up steps, cosine decay to {minLr} at step {decay}',
  posLearned: 'learned positions',
  posRope: 'RoPE',
  runSteps: 'Steps (the run’s length)',
  status:
    'step {steps} · training loss {loss} · validation loss {val} (step {valAt}) · {kept} of {total} sampled poems ' +
    'keep the form · learning rate in use {lr}',
  curves: 'Loss (nats a character) and poems in the form',
  trainLoss: 'training loss',
  valLoss: 'validation loss',
  formShare: 'poems in the form',
  curvesLabel: 'Loss and form: training loss {loss}, validation loss {val}, {form} of sampled poems keep the form',
  sample: 'A poem written at step {steps} (temperature 0.8, first character {first} from a validation poem)',
  sampleNone: 'No poem yet.',
  keeps: 'Keeps the form: {lines} lines of five characters.',
  breaks: 'Not the form yet.',
  noEnd: '(no end of poem written before the context ran out)',
  earlier: 'The same prompt and seed earlier:',
  earlierStep: 'step {steps}',
  heads: 'Heads (scores on {poems} validation poems at step {steps})',
  headsNone: 'No head scores yet.',
  colHead: 'head',
  colPreviousLine: 'same place in the previous line',
  colPreviousChar: 'previous character',
  colLineEnd: 'end of the previous line',
  colRole: 'named',
  headsKey:
    'Each score is the head’s mean attention weight on one place: previous line, the same place in the line before; ' +
    'previous character, the one just before; line end, the punctuation that closed the line before.',
  legPreviousLine: 'previous line',
  legPreviousChar: 'previous character',
  legLineEnd: 'line end',
  headName: 'layer {layer} head {head}',
  roleNone: '–',
  noneSpecialise:
    'No head specialises yet: the largest score is {score} ({kind}, layer {layer} head {head}); a head is named when one of its scores reaches {threshold}.',
  someSpecialise: 'A head is named by its largest score once it reaches {threshold}; the others do not specialise.',
  scoresChart: 'The largest score of each kind over the heads, by step (dashed: {threshold})',
  scoresLabel: 'Head scores by step: previous line {pl}, previous character {pc}, line end {le}',
  finished:
    'The run’s {steps} steps are done: validation loss {val}, {kept} of {total} sampled poems keep the form. Training is paused; Play goes on at the smallest learning rate.',
  lookInside: 'Look inside: open this model in “Write a poem”',
  lookInsideNote: 'Write a poem opens the weights of step {steps}; training goes on here.',
  loading: 'Loading the poems (2.3 MB) and building the model…',
}

export type TrainPoemsKey = keyof typeof en

const zh: Messages<TrainPoemsKey> = {
  intro:
    '任务“唐诗”：一个小型 GPT 在你的浏览器里从零开始学习写五言唐诗。在每个位置，它根据前面的字预测下一个字；' +
    '因果掩码让它看不到答案（课程里说的“防止偷看答案”，这里用在一个真实的任务上）。字与字之间是本页逐一展示的部分：' +
    '词嵌入和位置、多个头的因果自注意力，以及每次注意力之后只在各个位置上单独计算的 MLP；所有参数都通过反向传播学习（AdamW）。' +
    '课程讲到一次注意力为止：完整的语言模型超出课程内容。',
  explain:
    '请看三件事。验证集损失（在从未训练过的诗上，每个字的损失，单位 nat）从约 ln 2,401 = 7.8（均匀猜测的值）开始下降。' +
    '示例诗逐渐有了格式：四行或八行，每行五个字，每两行以“，”和“。”结束。使用可学习的位置表时，格式来自位置表' +
    '（第 l 行第 k 个字在位置 6·l + k）；使用旋转位置编码 RoPE 时，模型必须自己数数，于是会出现看前一个字或看上一行行尾的头' +
    '（只有当某个分数达到 0.4 时才给这个头命名）。',
  shape:
    '模型：{layers} 层 × {heads} 个头 × d_model {dModel}（每个头 {headSize} 维），MLP {mlp} · 词表 {vocab} 个字 · ' +
    '上下文 {context} · 批次 {batch} 个窗口 · {positions} · {parameters} 个参数 · AdamW，学习率峰值 {lr}，' +
    '预热 {warmup} 步，余弦衰减到第 {decay} 步的 {minLr}',
  posLearned: '可学习的位置表',
  posRope: '旋转位置编码 RoPE',
  runSteps: '步数（这次训练的长度）',
  status:
    '第 {steps} 步 · 训练损失 {loss} · 验证集损失 {val}（第 {valAt} 步）· 采样的 {total} 首诗中 {kept} 首符合格式 · 当前学习率 {lr}',
  curves: '损失（每个字，单位 nat）与符合格式的诗',
  trainLoss: '训练损失',
  valLoss: '验证集损失',
  formShare: '符合格式的诗',
  curvesLabel: '损失与格式：训练损失 {loss}，验证集损失 {val}，采样的诗中 {form} 符合格式',
  sample: '第 {steps} 步写的一首诗（温度 0.8，第一个字“{first}”取自一首验证集的诗）',
  sampleNone: '还没有诗。',
  keeps: '符合格式：{lines} 行，每行五个字。',
  breaks: '还不符合格式。',
  noEnd: '（上下文用完之前没有写出诗的结尾）',
  earlier: '同样的开头和随机种子，之前写的：',
  earlierStep: '第 {steps} 步',
  heads: '各个头（第 {steps} 步，在 {poems} 首验证集的诗上的分数）',
  headsNone: '还没有头的分数。',
  colHead: '头',
  colPreviousLine: '上一行的同一位置',
  colPreviousChar: '前一个字',
  colLineEnd: '上一行的行尾',
  colRole: '命名',
  headsKey:
    '每个分数是这个头落在某个位置上的平均注意力权重：上一行，上一行的同一位置；前一个字，紧挨着的前一个字；行尾，结束上一行的标点。',
  legPreviousLine: '上一行',
  legPreviousChar: '前一个字',
  legLineEnd: '行尾',
  headName: '第 {layer} 层第 {head} 个头',
  roleNone: '–',
  noneSpecialise:
    '还没有专门化的头：最大的分数是 {score}（{kind}，第 {layer} 层第 {head} 个头）；某个分数达到 {threshold} 时才给这个头命名。',
  someSpecialise: '一个头的最大分数达到 {threshold} 时，用它来命名这个头；其余的头没有专门化。',
  scoresChart: '每种分数在所有头中的最大值，随训练步数变化（虚线：{threshold}）',
  scoresLabel: '头的分数随步数变化：上一行 {pl}，前一个字 {pc}，行尾 {le}',
  finished:
    '这次训练的 {steps} 步已完成：验证集损失 {val}，采样的 {total} 首诗中 {kept} 首符合格式。训练已暂停；按“开始”会以最小的学习率继续。',
  lookInside: '看看内部：在“写诗”中打开这个模型',
  lookInsideNote: '“写诗”打开的是第 {steps} 步的权重；这里的训练继续。',
  loading: '正在加载诗（2.3 MB）并建立模型…',
}

export const TRAIN_POEMS: Table<TrainPoemsKey> = { en, zh }
