"""Write a model's attention into one safetensors file for the Attention Playground.

    from attention_playground import export      # or, from a clone: from export_attention import export
    export(model, inputs, "attention.safetensors", tokens=["this", "is", "my", "cat"])
    # then open the file in the page (file picker, drag and drop, or ?src=URL), or show_file(path) in a notebook

Needs torch only. Every torch.nn.MultiheadAttention inside the model is hooked while the model runs
once: its attention weights per head, and Q, K and V per head (recomputed from its in_proj on the
inputs it received, exactly as it computes them). A Hugging Face model (anything whose config has
`output_attentions`) is run with output_attentions=True instead; it gives the weights only.

File layout (all tensors float32 unless dtype="F16"/"BF16" is asked for; batch item 0 only):
    attention.<i>.weights  [heads, nq, nk]   softmax weights as the model computed them
    attention.<i>.q        [heads, nq, d]    per head, when reachable (with .k, .v [heads, nk, d])
    attention.<i>.mask     [nq, nk]          1 = masked, when the layer had a mask
    __metadata__: format, tokens, source_tokens (JSON strings), layers (JSON list, one entry a layer:
    name, kind self/cross, heads, head_names, scale, queries/keys = "tokens" or "source_tokens").
"""

import json
import math
import struct

import torch

__all__ = ["export", "write_safetensors", "FORMAT"]

FORMAT = "attention-playground/1"
_DTYPES = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}


def write_safetensors(path, tensors, metadata=None):
    """Writes `tensors` (name -> torch.Tensor, F32/F16/BF16) as safetensors: an 8-byte little-endian
    header length, the JSON header (dtype, shape, data_offsets per tensor; __metadata__ a map of
    strings), padded with spaces to 8 bytes, then the raw little-endian data in header order."""
    names = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16"}
    header, blobs, offset = {}, [], 0
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    for name, t in tensors.items():
        t = t.detach().contiguous().cpu()
        if t.dtype not in names:
            raise TypeError(f"{name}: dtype {t.dtype} is not float32, float16 or bfloat16")
        # bfloat16 has no numpy twin: its bytes are the upper halves of float32's.
        if t.dtype == torch.bfloat16:
            raw = (t.float().view(torch.int32) >> 16).to(torch.int16).numpy().astype("<i2").tobytes()
        else:
            raw = t.numpy().astype(t.numpy().dtype.newbyteorder("<")).tobytes()
        header[name] = {"dtype": names[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    head = json.dumps(header, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    head += b" " * (-len(head) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(head)))
        f.write(head)
        for b in blobs:
            f.write(b)


def _mask_of(attn_mask, key_padding_mask, is_causal, nq, nk):
    """The layer's mask as booleans [nq, nk] (True = masked), or None when nothing is masked.
    Raises ValueError for an additive float mask with finite non-zero entries: that is a bias,
    not a mask, and the page could not recompute the weights from Q and K."""
    m = torch.zeros(nq, nk, dtype=torch.bool)
    if attn_mask is not None:
        am = attn_mask.detach()
        if am.dim() == 3:
            am = am[0]  # [batch * heads, nq, nk]: the first batch item's first head
        if am.dtype == torch.bool:
            m |= am
        else:
            finite = torch.isfinite(am)
            if bool((am[finite] != 0).any()):
                raise ValueError("additive attn_mask")
            m |= ~finite
    elif is_causal:
        m |= torch.triu(torch.ones(nq, nk, dtype=torch.bool), 1)
    if key_padding_mask is not None:
        kp = key_padding_mask.detach()[0]
        kp = kp if kp.dtype == torch.bool else ~torch.isfinite(kp) | (kp != 0)
        m |= kp.view(1, nk)
    return m if bool(m.any()) else None


def _qkv(mod, query, key, value):
    """Q, K, V per head [heads, n, d] for batch item 0, computed as MultiheadAttention computes them."""
    if mod.bias_k is not None or mod.add_zero_attn:
        return None  # extra key rows the tokens do not have
    e, h = mod.embed_dim, mod.num_heads
    if mod._qkv_same_embed_dim:
        wq, wk, wv = mod.in_proj_weight.chunk(3)
    else:
        wq, wk, wv = mod.q_proj_weight, mod.k_proj_weight, mod.v_proj_weight
    bq = bk = bv = None
    if mod.in_proj_bias is not None:
        bq, bk, bv = mod.in_proj_bias.chunk(3)

    def first(x):
        x = x.detach()
        if x.dim() == 2:
            return x
        return x[0] if mod.batch_first else x[:, 0]

    out = []
    for x, w, b in ((query, wq, bq), (key, wk, bk), (value, wv, bv)):
        y = torch.nn.functional.linear(first(x), w.detach(), None if b is None else b.detach())
        out.append(y.view(y.shape[0], h, e // h).transpose(0, 1).contiguous())
    return out


class _Recorder:
    """Wraps the forward of every nn.MultiheadAttention so it returns per-head weights even when its
    caller (nn.TransformerEncoderLayer, ...) asks for need_weights=False."""

    def __init__(self, model):
        self.records = []
        self.mods = [(n or "attention", m) for n, m in model.named_modules() if isinstance(m, torch.nn.MultiheadAttention)]

    def __enter__(self):
        for name, mod in self.mods:
            mod.forward = self._wrap(name, mod, mod.forward)
        return self

    def __exit__(self, *exc):
        for _, mod in self.mods:
            del mod.forward  # the class's forward again

    def _wrap(self, name, mod, orig):
        def forward(query, key, value, *args, **kwargs):
            names = ["key_padding_mask", "need_weights", "attn_mask", "average_attn_weights", "is_causal"]
            kw = dict(zip(names, args))
            kw.update(kwargs)
            wanted, avg = kw.get("need_weights", True), kw.get("average_attn_weights", True)
            kw["need_weights"], kw["average_attn_weights"] = True, False
            out, w = orig(query, key, value, **kw)
            w0 = w.detach()
            w0 = w0[0] if w0.dim() == 4 else w0  # [batch, heads, nq, nk] or unbatched [heads, nq, nk]
            self.records.append({
                "name": name, "mod": mod, "weights": w0, "self": query is key and key is value,
                "qkv": _qkv(mod, query, key, value), "kw": kw,
            })
            if not wanted:
                return out, None
            return out, (w.mean(dim=-3) if avg else w)

        return forward


def _is_hf(model):
    try:
        import transformers  # noqa: F401  (optional: only used when installed)

        if isinstance(model, transformers.PreTrainedModel):
            return True
    except ImportError:
        pass
    return hasattr(getattr(model, "config", None), "output_attentions")


def _hf_layers(output):
    """Per-layer weights from a Hugging Face output: (prefix, kind, tensor [batch, heads, nq, nk])."""
    get = output.get if isinstance(output, dict) else (lambda k: getattr(output, k, None))
    groups = [("attentions", "self"), ("encoder_attentions", "self"), ("decoder_attentions", "self"),
              ("cross_attentions", "cross")]
    out = []
    for key, kind in groups:
        for i, w in enumerate(get(key) or ()):
            if w is not None:
                out.append((f"{key}.{i}", kind, w.detach()[0]))
    if not out:
        raise ValueError("export: the model's output has no attentions (attentions, encoder_attentions, "
                         "decoder_attentions, cross_attentions); does it support output_attentions=True?")
    return out


def _call(model, inputs, **extra):
    if isinstance(inputs, dict):
        return model(**inputs, **extra)
    if isinstance(inputs, (tuple, list)):
        return model(*inputs, **extra)
    return model(inputs, **extra)


def _sides(tokens):
    if tokens is None:
        return None, None
    if isinstance(tokens, dict):
        unknown = set(tokens) - {"source", "target"}
        if unknown:
            raise ValueError(f"tokens: expected a list, or a dict with 'source' and 'target', got keys {sorted(unknown)}")
        return list(map(str, tokens.get("target") or [])) or None, list(map(str, tokens.get("source") or [])) or None
    return [str(t) for t in tokens], None


def export(model, inputs, path, tokens=None, dtype="F32"):
    """Runs `model` once on `inputs` (a tensor, a tuple of positional arguments, or a dict of keyword
    arguments) and writes its attention to `path` (safetensors). `tokens`: the tokens of the input, a
    list (one sequence), or {"source": [...], "target": [...]} for an encoder-decoder (cross attention:
    queries from the target, keys from the source). Without tokens they are named "0", "1", ...
    Returns the metadata written."""
    if dtype not in _DTYPES:
        raise ValueError(f"dtype: expected one of {sorted(_DTYPES)}, got {dtype!r}")
    target, source = _sides(tokens)
    was_training = getattr(model, "training", False)
    if hasattr(model, "eval"):
        model.eval()
    tensors, layers = {}, []
    try:
        if _is_hf(model):
            with torch.no_grad():
                out = _call(model, inputs, output_attentions=True)
            records = [{"name": n, "weights": w, "self": kind == "self", "qkv": None, "kw": {}, "mod": None}
                       for n, kind, w in _hf_layers(out)]
        else:
            # Grad mode on: PyTorch's fused inference paths (which never call our wrapped forward)
            # only run without autograd.
            with _Recorder(model) as rec, torch.enable_grad():
                _call(model, inputs)
            records = rec.records
            if not records:
                raise ValueError("export: the model ran but has no torch.nn.MultiheadAttention and no Hugging Face "
                                 "output_attentions; nothing to export")
    finally:
        if was_training and hasattr(model, "train"):
            model.train()

    has_cross = source is not None or any(not r["self"] for r in records)
    for i, r in enumerate(records):
        # A query row whose keys are all masked is NaN in PyTorch; the page (like our engine) shows it as
        # zeros and would otherwise refuse the file for its NaN.
        w = torch.nan_to_num(r["weights"], nan=0.0)
        heads, nq, nk = w.shape
        name = r["name"]
        kind = "self" if r["self"] else "cross"
        if r["self"]:
            # An encoder-decoder's encoder attends over the source; everything else over the tokens.
            side = "source_tokens" if has_cross and "encoder" in name and "decoder" not in name else "tokens"
            if source is not None and target is not None and len((target, source)[side == "source_tokens"]) != nq:
                side = "tokens" if len(target) == nq else "source_tokens" if len(source) == nq else side
            q_side = k_side = side
        else:
            q_side, k_side = "tokens", "source_tokens"
        prefix = f"attention.{i}"
        tensors[f"{prefix}.weights"] = w.float()
        entry = {"name": name, "kind": kind, "heads": heads, "head_names": [f"{name} head {h}" for h in range(heads)],
                 "queries": q_side, "keys": k_side, "qkv": False}
        mod = r["mod"]
        if mod is not None and r["qkv"] is not None:
            kw = r["kw"]
            try:
                mask = _mask_of(kw.get("attn_mask"), kw.get("key_padding_mask"), kw.get("is_causal", False), nq, nk)
                q, k, v = r["qkv"]
                tensors[f"{prefix}.q"], tensors[f"{prefix}.k"], tensors[f"{prefix}.v"] = q, k, v
                if mask is not None:
                    tensors[f"{prefix}.mask"] = mask.float()
                entry["qkv"] = True
                entry["scale"] = 1.0 / math.sqrt(q.shape[-1])
            except ValueError:
                pass  # a float bias mask: the weights only
        layers.append(entry)

    conv = _DTYPES[dtype]
    tensors = {k: (v.to(conv) if not k.endswith(".mask") else v) for k, v in tensors.items()}

    def count(side, axis):
        # Without tokens, positions are named 0, 1, ... from the first layer that shows that side.
        for j, l_ in enumerate(layers):
            if l_["queries" if axis == 1 else "keys"] == side:
                return [str(x) for x in range(tensors[f"attention.{j}.weights"].shape[axis])]
        return None

    target = target if target is not None else count("tokens", 1) or count("tokens", 2)
    if source is None and any(l_["keys"] == "source_tokens" for l_ in layers):
        source = count("source_tokens", 2)
    # The page checks every shape against the tokens; say it here, where the caller can fix it.
    for j, l_ in enumerate(layers):
        shape = tensors[f"attention.{j}.weights"].shape
        for axis, key in ((1, "queries"), (2, "keys")):
            want = target if l_[key] == "tokens" else source
            if want is not None and len(want) != shape[axis]:
                what = "tokens" if l_[key] == "tokens" else "source tokens"
                raise ValueError(f"tokens: {len(want)} {what}, but {l_['name']} has {shape[axis]} {key} "
                                 f"(weights {list(shape)}); pass one token per position of batch item 0")
    meta = {"format": FORMAT, "tokens": json.dumps(target, ensure_ascii=False),
            "layers": json.dumps(layers, ensure_ascii=False)}
    if source is not None:
        meta["source_tokens"] = json.dumps(source, ensure_ascii=False)
    write_safetensors(path, tensors, meta)
    return meta
