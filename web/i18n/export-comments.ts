// The exported program's comments in Chinese, for the Chinese page (web/export/comments-zh.ts puts them in): each
// English comment the exporter writes, by its whole text, or by a pattern with its parts ($1 …). Not a `{ en, zh }`
// table: the English is the exporter's own text in web/export/pytorch.ts. zh uses docs/glossary.md's terms.

export const EXPORT_COMMENTS_ZH: Readonly<Record<string, string>> = {
  'Attention Playground: this program reproduces the numbers on screen with PyTorch.':
    '注意力机制演练场：本程序用 PyTorch 重现页面上的数值。',
  'Run: python3 attention.py        (--json: strict JSON, masked scores as the string "-inf"; --help)':
    '运行：python3 attention.py        （--json：严格的 JSON，被遮盖的分数写成字符串 "-inf"；--help 查看帮助）',
  "The random draws follow PyTorch's CPU generator in the same order as the playground:":
    '随机数按与演练场相同的顺序取自 PyTorch 的 CPU 生成器：',
  "embedding table, W_q, W_k, W_v, then the scoring rule's parameters per head.":
    '依次是嵌入表、W_q、W_k、W_v，然后是每个头的计算规则参数。',
  'normal_(0, 1) draws': '按 normal_(0, 1) 抽取',
  'one score per value row from [q_i; k_i]': '由 [q_i; k_i] 为每个值行算出一个分数',
  'dot products have no parameters': '点积没有参数',
  'P[m, 2i] = sin(m / 10000^(2i/d)), P[m, 2i+1] = cos(same)   (Vaswani et al. 2017)':
    'P[m, 2i] = sin(m / 10000^(2i/d))，P[m, 2i+1] = cos(同一角度)   （Vaswani 等，2017）',
  'as transformers: dimension i pairs with i + d/2': '与 transformers 相同：第 i 维与第 i + d/2 维配对',
  'as LLaMA: position m turns pair i by m * base^(-2i/d)': '与 LLaMA 相同：位置 m 把第 i 对分量转过 m * base^(-2i/d)',
  "as BLOOM's build_alibi_tensor (also for a head count that is not a power of two)":
    '与 BLOOM 的 build_alibi_tensor 相同（头数不是 2 的幂时也一样）',
  'learned positions, drawn right after the embeddings': '可学习的位置编码，紧接在词嵌入之后抽取',
  'fixed positions': '固定的位置编码',
  'positions added before the projections': '在投影之前加上位置编码',
  'RoPE: each head turned by position': 'RoPE：每个头按位置旋转',
  'ALiBi: -m_h |i - j|, before the mask': 'ALiBi：-m_h |i - j|，在掩码之前加上',
  'decoder side: queries': '解码器一侧：查询',
  'encoder side: keys and values': '编码器一侧：键和值',
  'causal: query i sees keys j <= i': '因果掩码：查询 i 只看键 j <= i',
  'key padding: these key positions are masked for every query': '键填充：这些位置的键对所有查询都被遮盖',
  'cells masked by hand (1 = masked)': '手动遮盖的单元格（1 = 遮盖）',
  'no mask': '无掩码',
  "trained weights: x is the last layer's input (token + position embeddings, then the layers below), not E(ids)":
    '训练后的权重：x 是最后一层的输入（词嵌入 + 位置嵌入，再经过下面各层），不是 E(ids)',
  '÷√d_k (per head)': '÷√d_k（每个头）',
  'needs nq == nk': '要求 nq == nk',
  'a query whose keys are all masked gets zero weights':
    '所有键都被遮盖的查询得到 0 权重（PyTorch 的 softmax 在这里给出 NaN）',
  'json.dumps would write -Infinity, which is not JSON: non-finite floats become strings.':
    'json.dumps 会写出 -Infinity，但那不是 JSON：非有限的浮点数改写成字符串。',
}

export const EXPORT_COMMENT_PATTERNS_ZH: ReadonlyArray<readonly [RegExp, string]> = [
  [
    /^Tokenization \((.+)\) done by the playground and written out here, so this program needs no tokenizer\.$/,
    '分词（$1）由演练场完成，结果直接写在这里，所以本程序不需要分词器。',
  ],
  [
    /^(\S+): trained, layer (\d+) of (\d+) of the Train tab's coreference model \(written out whole\):$/,
    '$1：训练后的权重，取自“训练”页指代模型的第 $2 层（共 $3 层），整个写出：',
  ],
  [/^(\S+) as edited in the playground \(cells (.*)\):$/, '$1 按演练场中的修改（单元格 $2）：'],
]
