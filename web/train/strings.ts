// The Train panel's own zh / en strings (the page's i18n.ts is the page engineer's; this keeps the
// panel self-contained so the widget can mount it too).

export type TrainLang = 'zh' | 'en'

const en = {
  title: 'Train attention',
  intro:
    'With random weights attention points anywhere. Here W_q, W_k, W_v and the embeddings learn by backpropagation, ' +
    'in your browser: watch "it" learn to look at "animal" when the animal was tired, and at "street" when the street was wide.',
  task: 'Task',
  taskCoreference: 'coreference ("it" → its noun)',
  taskReverse: 'reverse 6 digits',
  taskNextChar: 'next character of a text',
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
  lr: 'Learning rate (peak: warm-up, then cosine decay)',
  seed: 'Seed',
  text: 'Text to learn (paste your own)',
  reset: 'New model',
  play: 'Play',
  pause: 'Pause',
  step: 'Step ×10',
  sentence: 'Sentence to watch',
  curves: 'Loss and accuracy',
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
}

type Key = keyof typeof en

const zh: Record<Key, string> = {
  title: '训练注意力',
  intro:
    '权重随机时，注意力指向哪里都有可能。这里 W_q、W_k、W_v 和词向量在浏览器里通过反向传播学习：' +
    '看 “it” 如何学会在动物累了时看向 “animal”，在街道太宽时看向 “street”。',
  task: '任务',
  taskCoreference: '指代（“it” → 它指的名词）',
  taskReverse: '倒序 6 个数字',
  taskNextChar: '预测文本的下一个字符',
  score: '打分规则',
  ruleScaledDot: '缩放点积',
  ruleDot: '点积',
  ruleBilinear: '双线性',
  ruleAdditive: '加性',
  ruleConcat: '拼接',
  optAdam: '自适应矩估计',
  optSgd: '随机梯度下降',
  heads: '头数',
  optimizer: '优化器',
  lr: '学习率（峰值：先预热，再余弦衰减）',
  seed: '随机种子',
  text: '要学习的文本（可粘贴自己的）',
  reset: '新模型',
  play: '开始',
  pause: '暂停',
  step: '前进 10 步',
  sentence: '观察的句子',
  curves: '损失与准确率',
  trainLoss: '训练损失',
  trainAcc: '训练准确率',
  testAcc: '留出集准确率',
  attention: '最后一层的注意力（行：查询，列：键）',
  pca: '词向量的二维 PCA',
  starting: '正在加载引擎…',
  status: '第 {steps} 步 · 损失 {loss} · 训练准确率 {train} · 留出集准确率 {test} · 当前学习率 {lr}',
  heldOutNote: '{test} 个留出句子使用训练中从未出现过的词语组合。',
  workerFailed: '训练已停止：',
}

export type TrainKey = Key

export function trainText(lang: TrainLang): (key: Key, vars?: Record<string, string | number>) => string {
  const dict = lang === 'zh' ? zh : en
  return (key, vars) => {
    let s = dict[key] ?? en[key]
    if (vars) for (const [k, v] of Object.entries(vars)) s = s.split(`{${k}}`).join(String(v))
    return s
  }
}
