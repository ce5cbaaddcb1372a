// Writes the attention graph as ONNX protobuf bytes, by hand: the few message types needed are
// small, and this keeps the benchmark free of a protobuf/onnx dependency.
// Graph: O = Softmax(Mul(MatMul(Q, Transpose(K)), scale) [+ mask]) · V, with symbolic n.
// Field numbers are those of onnx.proto (ModelProto, GraphProto, NodeProto, ...).

function varint(n) {
  const out = []
  let v = BigInt(n)
  if (v < 0n) v += 1n << 64n // int64 two's complement, as protobuf encodes negatives
  do {
    let b = Number(v & 0x7fn)
    v >>= 7n
    if (v) b |= 0x80
    out.push(b)
  } while (v)
  return out
}
const concat = (parts) => parts.flat()
const key = (field, wire) => varint((field << 3) | wire)
const intField = (field, n) => [...key(field, 0), ...varint(n)]
const bytesField = (field, bytes) => [...key(field, 2), ...varint(bytes.length), ...bytes]
const strField = (field, s) => bytesField(field, [...new TextEncoder().encode(s)])
const msgField = (field, parts) => bytesField(field, concat(parts))

function attr(name, i) {
  // AttributeProto: name = 1, i = 3, type = 20 (INT = 2)
  return [strField(1, name), intField(3, i), intField(20, 2)]
}
function node(op, inputs, outputs, attrs = []) {
  // NodeProto: input = 1, output = 2, name = 3, op_type = 4, attribute = 5
  return [
    ...inputs.map((x) => strField(1, x)),
    ...outputs.map((x) => strField(2, x)),
    strField(3, `${op}_${outputs[0]}`),
    strField(4, op),
    ...attrs.map((a) => msgField(5, a)),
  ]
}
function tensorValue(name, dims) {
  // ValueInfoProto{name=1, type=2: TypeProto{tensor_type=1: {elem_type=1 (FLOAT=1), shape=2:
  // TensorShapeProto{dim=1: Dimension{dim_value=1 | dim_param=2}}}}}
  const dimMsgs = dims.map((d) => msgField(1, [typeof d === 'number' ? intField(1, d) : strField(2, d)]))
  return [strField(1, name), msgField(2, [msgField(1, [intField(1, 1), msgField(2, dimMsgs)])])]
}
function scalarInit(name, value) {
  // TensorProto: dims = 1 (none: a scalar), data_type = 2 (FLOAT = 1), float_data = 4, name = 8
  const f = new Uint8Array(new Float32Array([value]).buffer)
  return [intField(2, 1), bytesField(4, [...f]), strField(8, name)]
}

/** ONNX bytes of attention over Q, K, V [n, d] (n symbolic); causal adds an input `mask` [n, n]. */
export function attentionModel(d, scale, causal) {
  const nodes = [
    // Transpose without perm reverses the axes: the 2-D transpose.
    node('Transpose', ['K'], ['Kt']),
    node('MatMul', ['Q', 'Kt'], ['S']),
    node('Mul', ['S', 'scale'], ['Ss']),
  ]
  let logits = 'Ss'
  if (causal) {
    nodes.push(node('Add', ['Ss', 'mask'], ['Sm']))
    logits = 'Sm'
  }
  nodes.push(node('Softmax', [logits], ['W'], [attr('axis', 1)]))
  nodes.push(node('MatMul', ['W', 'V'], ['O']))
  const inputs = [tensorValue('Q', ['n', d]), tensorValue('K', ['n', d]), tensorValue('V', ['n', d])]
  if (causal) inputs.push(tensorValue('mask', ['n', 'n']))
  const graph = [
    ...nodes.map((n) => msgField(1, n)),
    strField(2, 'attention'),
    msgField(5, scalarInit('scale', scale)),
    ...inputs.map((v) => msgField(11, v)),
    msgField(12, tensorValue('O', ['n', d])),
  ]
  const model = [
    intField(1, 8), // ir_version
    strField(2, 'attention-playground-bench'), // producer_name
    msgField(7, graph), // graph
    msgField(8, [strField(1, ''), intField(2, 17)]), // opset_import: default domain, opset 17
  ]
  return new Uint8Array(concat(model))
}
