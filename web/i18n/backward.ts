// The backward view ("Gradients"), a table of its own. Parts in `backticks` are formulas: the view shows them in a
// .formula span (language-neutral, never HTML). zh uses docs/glossary.md's terms. How to add a string:
// docs/design.md, "Adding a string".

import type { Messages, Table } from './core'

const en = {
  title: 'Gradients you can see: the backward pass',
  intro:
    'W_q, W_k and W_v are "learned": backpropagation (反向传播) sends the error of a loss back through every step of attention. Pick a goal, see `dL/d(each matrix)` with its numbers, and take a step of gradient descent.',
  goal: 'Goal',
  goalAttend: 'make token i attend to token j  (loss = −log A[i, j])',
  goalOutput: "make output row i equal token j's output row now  (loss = Σ (O[i] − target)²)",
  tokenI: 'token i (query row)',
  tokenJ: 'token j',
  loss: 'loss',
  steps: 'steps taken',
  lr: 'learning rate',
  step: 'Take one step',
  reset: 'Reset the weights',
  stepHelp: '`W ← W − lr · dL/dW` for W_q, W_k and W_v; the forward pass and the loss are computed again.',
  plotTitle: 'The loss after each step',
  chain: 'From the loss back to W_q, W_k, W_v, one step at a time',
  headNote: 'Several heads: the matrices below are head 1’s; the goal is on head 1 too.',
  dO: '`dL/dO` — the gradient at the output',
  dA: '`dL/dA` — at the attention weights',
  dV: '`dL/dV` — at the values',
  dS: '`dL/dS` — at the scores (softmax’s input)',
  dQ: '`dL/dQ` — at the queries',
  dK: '`dL/dK` — at the keys',
  dWq: '`dL/dW_q`',
  dWk: '`dL/dW_k`',
  dWv: '`dL/dW_v`',
  dOHelp: 'Output loss: `2 (O[i] − target)` in row i, 0 elsewhere. Attend loss: 0 (the loss reads A directly).',
  dAHelp:
    'Each output row is a mix of the value rows, so A[i, j] gets `dO` row i · V row j. Attend loss: `−1 / A[i, j]` more in cell (i, j).',
  dVHelp: 'Value row j is used by every query in proportion to its weight.',
  dSHelp:
    'softmax’s Jacobian applied to each row of `dA` (below). Masked cells get exactly 0: the mask stops the gradient as it stops the attention.',
  dQHelp: '`c = scale / temperature`; `S = c · Q·Kᵀ`.',
  dKHelp: 'The same scores, seen from the keys.',
  dWHelp: '`Q = E · W_q`, so `dW_q = Eᵀ · dQ` (and the same for K, V).',
  jacTitle: 'One row through softmax’s Jacobian',
  jacHelp:
    'For row i with weights a, `∂a/∂s = diag(a) − a·aᵀ`. Multiplied by this row of `dA` it gives this row of `dS`. When the row is saturated (one a ≈ 1) the Jacobian is ≈ 0, so a loss whose `dA` stays bounded (the output goal) sends almost nothing to Q and K; W_v still learns (`dV = Aᵀ·dO`). The attend goal keeps learning: its `−1 / A[i, j]` cancels the Jacobian, `dS` row i = `a − e_j`, ≈ `e_m − e_j` when the row is saturated on another key m. That is why softmax is paired with a log loss.',
  jacRow: 'row i',
  jacA: 'a (row i of A)',
  jacJ: '`diag(a) − a·aᵀ`',
  jacDA: '`dA` row i',
  jacDS: '= `dS` row i',
  sqrtTitle: 'Why ÷√d_k, told with gradients',
  sqrtHelp:
    'The lesson: dividing by √d_k keeps the dot products from growing so large that softmax’s gradient vanishes (梯度消失). The same sweep as the “Why ÷√d_k” view, now on `dS`: unit-variance q, k, 16 keys, random `dL/dO`.',
  sqrtRaw: 'scale off: mean `‖dS row‖`',
  sqrtScaled: '÷√d_k: mean `‖dS row‖`',
  sqrtMax: 'mean largest weight (off / ÷√d_k)',
  copy: 'Copy as PyTorch code',
  copied: 'Copied. The program calls `loss.backward()` and prints the same gradients.',
  copyFailed: 'Could not copy; the program is below.',
  program: 'The PyTorch program',
  notDot: 'The backward view shows dot and scaled-dot attention; pick one of them in the controls.',
}

export type BackwardKey = keyof typeof en

const zh: Messages<BackwardKey> = {
  title: '看得见的梯度：反向传播',
  intro:
    'W_q、W_k、W_v 是“学出来的”：反向传播把损失的误差沿着注意力的每一步传回去。选一个目标，看每个矩阵的梯度及其数值，再走一步梯度下降。',
  goal: '目标',
  goalAttend: '让词元 i 关注词元 j（损失：A[i, j] 的负对数）',
  goalOutput: '让输出第 i 行等于词元 j 现在的输出行（损失：平方误差之和）',
  tokenI: '词元 i（查询行）',
  tokenJ: '词元 j',
  loss: '损失',
  steps: '已走步数',
  lr: '学习率',
  step: '走一步',
  reset: '重置权重',
  stepHelp: '对 W_q、W_k、W_v 执行 `W ← W − lr · dL/dW`，然后重新计算前向过程和损失。',
  plotTitle: '每一步之后的损失',
  chain: '从损失一步步传回 W_q、W_k、W_v',
  headNote: '有多个头：下面的矩阵属于第 1 个头，目标也作用在第 1 个头上。',
  dO: '`dL/dO`——输出处的梯度',
  dA: '`dL/dA`——注意力权重处的梯度',
  dV: '`dL/dV`——V 处的梯度',
  dS: '`dL/dS`——注意力分数（softmax 的输入）处的梯度',
  dQ: '`dL/dQ`——Q 处的梯度',
  dK: '`dL/dK`——K 处的梯度',
  dWq: '`dL/dW_q`',
  dWk: '`dL/dW_k`',
  dWv: '`dL/dW_v`',
  dOHelp: '输出损失：第 i 行是 2 (O[i] − 目标)，其余为 0。关注损失：全为 0（损失直接读取 A）。',
  dAHelp:
    '每个输出行是 V 各行的加权和，所以 A[i, j] 得到 `dO` 第 i 行 · V 第 j 行。关注损失：在 (i, j) 处再加 `−1 / A[i, j]`。',
  dVHelp: 'V 的第 j 行按注意力权重被每个查询使用。',
  dSHelp:
    '把 softmax 的雅可比矩阵作用在 `dA` 的每一行上（见下）。被掩码的格子得到的恰好是 0：掩码挡住了注意力，也挡住了梯度。',
  dQHelp: '`c = 缩放系数 / 温度`；`S = c · Q·Kᵀ`。',
  dKHelp: '同样的注意力分数，从 K 的角度看。',
  dWHelp: '`Q = E · W_q`，所以 `dW_q = Eᵀ · dQ`（K、V 同理）。',
  jacTitle: '一行经过 softmax 的雅可比矩阵',
  jacHelp:
    '对权重为 a 的第 i 行，`∂a/∂s = diag(a) − a·aᵀ`。它乘以 `dA` 的这一行，就得到 `dS` 的这一行。当这一行饱和（某个 a ≈ 1）时雅可比矩阵 ≈ 0，所以 `dA` 有界的损失（输出目标）几乎传不到 Q 和 K；W_v 仍在学习（`dV = Aᵀ·dO`）。关注目标却仍在学习：它的 `−1 / A[i, j]` 抵消了雅可比矩阵，`dS` 第 i 行 = `a − e_j`，这一行饱和在另一个键 m 上时 ≈ `e_m − e_j`。这正是 softmax 总与对数损失搭配的原因。',
  jacRow: '第 i 行',
  jacA: 'a（A 的第 i 行）',
  jacJ: '`diag(a) − a·aᵀ`',
  jacDA: '`dA` 第 i 行',
  jacDS: '= `dS` 第 i 行',
  sqrtTitle: '用梯度解释为什么除以 √d_k',
  sqrtHelp:
    '课程里说：除以 √d_k，防止点积值过大导致 softmax 梯度消失。这里用和“为什么除以 √d_k”视图相同的扫描来看 `dS`：方差为 1 的 q、k，16 个键，随机的 `dL/dO`。',
  sqrtRaw: '不缩放：`dS` 每行范数的平均',
  sqrtScaled: '除以 √d_k：`dS` 每行范数的平均',
  sqrtMax: '每行最大权重的平均（不缩放 / 除以 √d_k）',
  copy: '复制为 PyTorch 代码',
  copied: '已复制。程序调用 `loss.backward()` 并打印同样的梯度。',
  copyFailed: '无法复制；程序在下面。',
  program: 'PyTorch 程序',
  notDot: '反向传播视图展示点积和缩放点积注意力；请在控制栏中选择其中之一。',
}

export const BACKWARD: Table<BackwardKey> = { en, zh }
