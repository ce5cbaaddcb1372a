// The model-file view ("Your model").
// zh uses docs/glossary.md's terms. How to add a string: docs/design.md, "Adding a string".

import type { Messages, Table } from './core'

const en = {
  modelTitle: "Your model's attention",
  modelHelp:
    'Open a .safetensors file written by python/export_attention.py — export(model, inputs, "attention.safetensors", tokens=…) — to see a real model\'s attention: every layer and head, one head large, and its Q, K, V recomputed step by step.',
  modelOpen: 'Open a file…',
  modelDrop: 'or drop a .safetensors file here',
  modelLoading: 'Loading',
  modelLoadFailed: 'Could not open',
  modelNone: 'No file open yet.',
  modelDownloading: 'Downloading',
  modelBytesOf: 'of',
  modelCancel: 'Cancel download',
  modelCancelled: 'Download cancelled:',
  modelDownloadLimit: 'stopped at the download limit:',
  modelSampleNote:
    'A sample to start with: a small nn.TransformerEncoder (2 layers, 2 heads, causal mask, learned positions) trained ' +
    "in PyTorch on the Train tab's induction task — random words in which a segment repeats — by " +
    'tests/fixtures/gen_induction_sample.py, its attention exported with python/export_attention.py on a sentence whose ' +
    'segment "kite lamp sun owl tree fish" appears twice. Look at layer 2 (heads and layers are counted from 1, as on every tab): its heads are induction heads — the rows of ' +
    'the second copy light up one column to the right of the first copy (the second "kite" looks at the first "lamp"), ' +
    'so the model can predict the rest of the segment. Layer 1, head 2 makes that possible: each word of the second ' +
    'copy looks back at its earlier copy (a duplicate-token head) and passes on where it was. Open your own file above.',
  modelLayers: 'layers',
  modelHeads: 'heads',
  modelTokens: 'tokens',
  modelSourceTokens: 'source tokens',
  modelGrid: 'Every layer × head (rows: layers; click one to show it below)',
  modelGridTouch: 'Every layer × head (rows: layers; tap one to show it below)',
  modelLayer: 'layer',
  modelSelf: 'self-attention',
  modelCross: 'cross attention',
  modelQueries: 'queries',
  modelKeys: 'keys',
  modelPipeline: "Step by step on this head's Q, K and V from the file",
  modelPipelineHelp:
    "Our engine recomputes the head from the file's Q, K and V: Q·Kᵀ, the scale, the mask, softmax and ·V. Its attention weights should equal the model's (float32 rounding: about 1e-7).",
  modelNoQkv: "The file has this layer's attention weights only (no Q, K, V), so there is nothing to recompute.",
  modelPipelineTooBig:
    'This head has over 4 million query × key cells: its pipeline is not recomputed (the long view above shows its rows).',
  modelDiff: 'largest |engine − file| difference in the attention weights:',
  modelScores: 'Q·Kᵀ (attention scores)',
  modelScaled: '× scale',
  modelMasked: 'after the mask',
  modelEngineWeights: 'softmax: attention weights (engine)',
  modelOutput: 'attention weights · V',
}

export type ModelKey = keyof typeof en

const zh: Messages<ModelKey> = {
  modelTitle: '你的模型的注意力',
  modelHelp:
    '打开由 python/export_attention.py 导出的 .safetensors 文件——export(model, inputs, "attention.safetensors", tokens=…)——查看真实模型的注意力：所有层和头、放大的单个头，以及用它的 Q、K、V 逐步重新计算的过程。',
  modelOpen: '打开文件…',
  modelDrop: '或把 .safetensors 文件拖放到这里',
  modelLoading: '正在加载',
  modelLoadFailed: '无法打开',
  modelNone: '尚未打开文件。',
  modelDownloading: '正在下载',
  modelBytesOf: '/',
  modelCancel: '取消下载',
  modelCancelled: '已取消下载：',
  modelDownloadLimit: '下载超过了 64 MiB 的上限，已停止；请先保存文件，再从磁盘打开（上限 512 MiB）：',
  modelSampleNote:
    '先看一个示例：一个小型 nn.TransformerEncoder（2 层、每层 2 个头、因果掩码、可学习的位置编码），' +
    '由 tests/fixtures/gen_induction_sample.py 在 PyTorch 中用“训练”页的归纳任务（随机词中有一段重复出现）训练，' +
    '再用 python/export_attention.py 导出它在一个句子上的注意力，句中片段 “kite lamp sun owl tree fish” 出现两次。' +
    '请看第 2 层（头和层都从 1 开始数，各页相同）：它的头是归纳头——第二份副本的各行在第一份副本右边一列处变亮（第二个 “kite” 看向第一个 “lamp”），' +
    '于是模型能预测片段的其余部分。让这一点成为可能的是第 1 层的头 2：第二份副本的每个词回看它的上一次出现（重复词头），' +
    '并把那个位置传下去。也可以在上方打开你自己的文件。',
  modelLayers: '层',
  modelHeads: '个头',
  modelTokens: '个词元',
  modelSourceTokens: '个源序列词元',
  modelGrid: '所有层 × 头（每行一层；点击一个，在下方放大显示）',
  modelGridTouch: '所有层 × 头（每行一层；点一下一个，在下方放大显示）',
  modelLayer: '层',
  modelSelf: '自注意力',
  modelCross: '交叉注意力',
  modelQueries: '查询',
  modelKeys: '键',
  modelPipeline: '用文件中该头的 Q、K、V 逐步计算',
  modelPipelineHelp:
    '本页引擎用文件中的 Q、K、V 重新计算这个头：Q·Kᵀ、缩放、掩码、softmax、·V。得到的注意力权重应与模型的一致（float32 舍入误差约 1e-7）。',
  modelNoQkv: '文件中这一层只有注意力权重（没有 Q、K、V），无法重新计算。',
  modelPipelineTooBig: '这个头的查询 × 键超过 400 万个格子：不再逐步重新计算（上方的长文本视图按行显示）。',
  modelDiff: '注意力权重的最大差值 |引擎 − 文件|：',
  modelScores: 'Q·Kᵀ（注意力分数）',
  modelScaled: '× 缩放因子',
  modelMasked: '掩码后',
  modelEngineWeights: 'softmax：注意力权重（引擎）',
  modelOutput: '注意力权重 · V',
}

export const MODEL: Table<ModelKey> = { en, zh }
