// The guided tour of the pipeline (five steps) and its tries.
// zh uses docs/glossary.md's terms. How to add a string: docs/design.md, "Adding a string".

import type { Messages, Table } from './core'

const en = {
  guidedStart: 'Guided tour (5 steps)',
  guidedExit: 'Leave the tour',
  prev: 'Prev',
  next: 'Next',
  stepCounter: 'Step {n} of {total}',
  tryScale: 'Try it: switch √d_k scaling on / off',
  tryCausal: 'Try it: causal mask on / off',
  tryTemperature: 'Try it: temperature 1 ↔ 3',
  guided1Title: 'Step 1 · Match: Q·Kᵀ',
  guided1Body:
    'Every query row is compared with every key row by a dot product. The result is a table of attention scores: row i, column j says how well token i’s question fits token j’s label.',
  guided2Title: 'Step 2 · Scale (optional)',
  guided2Body:
    'Dot products grow with the dimension d_k. Dividing by √d_k keeps them in a range where softmax still gives useful gradients instead of near one-hot rows. In the course’s example the scores are huge even scaled (torch.rand weights), so the rows stay nearly one-hot: the note under ② says why and shows a case where the scale matters.',
  guided3Title: 'Step 3 · Mask (optional)',
  guided3Body:
    'A mask hides keys a query must not see: future tokens when generating (causal — no peeking at the answer, like forecasting 10 o’clock load only from readings up to 9), or padding. Hidden cells become −∞. Cross attention takes no causal mask: every target position may see the whole source.',
  guided4Title: 'Step 4 · Softmax',
  guided4Body:
    'Softmax turns each row of scores into weights between 0 and 1 that sum to 1. −∞ becomes exactly 0. The temperature slider (under “More options”) makes the rows sharper or flatter.',
  guided5Title: 'Step 5 · Weighted sum with V',
  guided5Body:
    'Each output row mixes the value rows, using that row’s weights. The token’s new representation now carries information from the tokens it attended to. Note what is missing: word order. With no mask, shuffle the words and each output row stays the same vector, only moved (a causal mask looks at positions: row i sees only the words before it, so under it the rows change); the view “Positions” (beyond the lessons) shows how models add order.',
}

export type TourKey = keyof typeof en

const zh: Messages<TourKey> = {
  guidedStart: '引导模式（5 步）',
  guidedExit: '退出引导',
  prev: '上一步',
  next: '下一步',
  stepCounter: '第 {n} 步，共 {total} 步',
  tryScale: '试一试：开关 √d_k 缩放',
  tryCausal: '试一试：开关因果掩码',
  tryTemperature: '试一试：温度 1 ↔ 3',
  guided1Title: '第 1 步 · 匹配：Q·Kᵀ',
  guided1Body:
    '每一行查询都与每一行键做点积，得到一张注意力分数表（《注意力机制 - 参数解释》一课称为“匹配分”）：第 i 行第 j 列表示词元 i 的“问题”与词元 j 的“标签”有多契合。',
  guided2Title: '第 2 步 · 缩放（可选）',
  guided2Body:
    '点积会随维度 d_k 变大。除以 √d_k 把分数拉回合适的范围，softmax 才不会变成几乎独热、梯度消失。课程的例子里即使缩放后分数也很大（torch.rand 权重），所以各行仍几乎独热：② 下方的说明解释了原因，并给出一个缩放起作用的例子。',
  guided3Title: '第 3 步 · 掩码（可选）',
  guided3Body:
    '掩码把查询不该看到的键盖住：生成时后面的词元（因果掩码——防止偷看答案，就像预测 10 点的负荷只能用 9 点及以前的数据），或填充位置。被盖住的单元格变为 −∞。交叉注意力不加因果掩码：目标句的每个位置都可以看整个源句。',
  guided4Title: '第 4 步 · softmax',
  guided4Body:
    'softmax 把每一行分数变成 0 到 1 之间、和为 1 的权重，−∞ 恰好变成 0。温度滑块（在“更多选项”里）可以让分布更尖锐或更平坦。',
  guided5Title: '第 5 步 · 与 V 加权求和',
  guided5Body:
    '每一行输出按该行的权重把各行 V 混合起来。于是词元的新表示携带了它所关注的词元的信息。注意这里缺了什么：词序。不加掩码时打乱词的顺序，每一行输出仍是同一个向量，只是换了位置（因果掩码要看位置：第 i 行只看到它前面的词，所以加上它各行就会改变）；“位置编码”视图（超出课程内容）展示模型如何加入词序。',
}

export const TOUR: Table<TourKey> = { en, zh }
