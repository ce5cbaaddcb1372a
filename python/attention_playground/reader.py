"""Reads and checks an attention file (safetensors, as attention_playground.exporter writes it) without torch.

The same checks, limits and messages as the package's reader (src/js/safetensors.ts, src/js/attentionFile.ts), so a
file refused here would be refused by the widget too. Files come from anywhere: every number in the header is
checked against the bytes actually there before anything is decoded, so a bad file ends in AttentionFileError
(a ValueError) naming the tensor, never another exception, a huge allocation or a hang.
"""

import json
import re
import math
import struct
import sys
from array import array

__all__ = ["AttentionFileError", "read_attention_file", "read_safetensors", "LIMITS"]

LIMITS = {
    "header_bytes": 16 * 1024 * 1024,  # the JSON header
    "elements": 2 ** 28,  # per tensor
    "rank": 8,
    "tokens": 16384,  # per side
    "layers": 1024,
    "heads": 256,
    "file_bytes": 512 * 1024 * 1024,  # the widget's limit (web/views/model-file.ts)
}
_WEIGHTS = re.compile(r"attention\.([0-9]+)\.weights\Z")
_ITEM = {"F32": 4, "F16": 2, "BF16": 2}


class AttentionFileError(ValueError):
    """A file that is not a readable attention file; the message names the tensor or field and what is wrong."""


def _label(name):
    """A name from the file as messages quote it: at most 60 characters (a file may name a tensor with megabytes)."""
    return name if len(name) <= 60 else name[:57] + "..."


def _short(v, n=60):
    """A value from the file as messages quote it: at most n characters of its JSON, never an exception."""
    try:
        s = json.dumps(v, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return "(a value nested too deep to quote)"
    return s if len(s) <= n else s[:n] + "..."


def _header_length(b):
    if len(b) < 8:
        raise AttentionFileError(f"file: {len(b)} bytes, too short for a safetensors file (it starts with an 8-byte "
                                 "header length); the file is truncated or not safetensors")
    (n,) = struct.unpack("<Q", bytes(b[:8]))
    if n > LIMITS["header_bytes"]:
        raise AttentionFileError(f"file: the header declares {n:,} bytes, over the limit of "
                                 f"{LIMITS['header_bytes']:,} (16 MiB); not read")
    if n < 2:
        raise AttentionFileError(f"file: the header declares {n} bytes, too short for its JSON")
    if 8 + n > len(b):
        raise AttentionFileError(f"file: the header declares {n:,} bytes but the file has {len(b):,} in all; "
                                 "the file is truncated")
    return n


def _int(x):
    """A JSON size or offset as an int (JSON has one number type: 4.0 is 4), or None."""
    if isinstance(x, bool):
        return None
    if isinstance(x, int):
        return x if 0 <= x <= 2 ** 53 - 1 else None
    if isinstance(x, float) and math.isfinite(x) and x.is_integer() and 0 <= x <= 2 ** 53 - 1:
        return int(x)
    return None


def _shape(name, shape):
    if not isinstance(shape, list) or len(shape) > LIMITS["rank"]:
        raise AttentionFileError(f"{name}: shape must be a list of at most {LIMITS['rank']} sizes, got {_short(shape)}")
    out, count = [], 1
    for d in shape:
        v = _int(d)
        if v is None:
            raise AttentionFileError(f"{name}: shape sizes must be integers ≥ 0, got {_short(shape)}")
        out.append(v)
        count *= v
    if count > LIMITS["elements"]:
        raise AttentionFileError(f"{name}: shape {out} has {count} elements, over the limit of 2^28")
    return out


def _decode(dtype, raw):
    """The values as floats (an array('f') for F32 and BF16, a tuple for F16)."""
    if dtype == "F16":
        return struct.unpack(f"<{len(raw) // 2}e", raw)
    if dtype == "BF16":
        # bfloat16 is the upper half of a float32: interleave two zero bytes below each value's two.
        wide = bytearray(2 * len(raw))
        wide[2::4] = raw[0::2]
        wide[3::4] = raw[1::2]
        raw = bytes(wide)
    a = array("f")
    a.frombytes(raw)
    if sys.byteorder == "big":
        a.byteswap()
    return a


def _no_constants(c):
    raise ValueError(f"{c} is not JSON")


def read_safetensors(data):
    """(metadata: dict of str, tensors: dict name -> {"dtype", "shape", "data"}) from a safetensors file's bytes
    (F32, F16, BF16 only). Raises AttentionFileError for anything inconsistent."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise AttentionFileError(f"file: expected bytes, got {type(data).__name__}")
    b = memoryview(data).cast("B")
    n = _header_length(b)
    try:
        header = json.loads(bytes(b[8:8 + n]).decode("utf-8"), parse_constant=_no_constants)
    except (ValueError, RecursionError) as e:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise AttentionFileError(f"file: the header is not valid UTF-8 JSON ({str(e)[:120]})") from None
    if not isinstance(header, dict):
        raise AttentionFileError("file: the header must be a JSON object of tensors")
    data_len = len(b) - 8 - n
    metadata, entries = {}, []
    for name, e in header.items():
        if name == "__metadata__":
            if not isinstance(e, dict):
                raise AttentionFileError("__metadata__: must be an object of strings")
            for k, v in e.items():
                if not isinstance(v, str):
                    raise AttentionFileError(f"__metadata__.{_label(k)}: must be a string, got {type(v).__name__}")
                metadata[k] = v
            continue
        key, name = name, _label(name)
        if not isinstance(e, dict):
            raise AttentionFileError(f"{name}: expected {{ dtype, shape, data_offsets }}")
        dtype = e.get("dtype")
        if not isinstance(dtype, str) or dtype not in _ITEM:
            raise AttentionFileError(f"{name}: dtype {_short(dtype, 20)} is not supported; expected F32, F16 or BF16")
        shape = _shape(name, e.get("shape"))
        off = e.get("data_offsets")
        offs = [_int(x) for x in off] if isinstance(off, list) and len(off) == 2 else None
        if offs is None or None in offs or offs[0] > offs[1]:
            raise AttentionFileError(f"{name}: data_offsets must be [begin, end] with 0 ≤ begin ≤ end, got {_short(off)}")
        begin, end = offs
        if end > data_len:
            raise AttentionFileError(f"{name}: data_offsets [{begin}, {end}] run past the end of the data "
                                     f"({data_len:,} bytes); the file is truncated or its header is wrong")
        need = math.prod(shape) * _ITEM[dtype]
        if end - begin != need:
            raise AttentionFileError(f"{name}: data_offsets [{begin}, {end}] hold {end - begin} bytes but {dtype} "
                                     f"{shape} needs {need}")
        entries.append((begin, end, key, dtype, shape))
    entries.sort(key=lambda x: (x[0], x[1]))
    for a, c in zip(entries, entries[1:]):
        if c[0] < a[1]:
            raise AttentionFileError(f"{_label(c[2])}: data_offsets [{c[0]}, {c[1]}] overlap those of {_label(a[2])} "
                                     f"[{a[0]}, {a[1]}]")
    base = 8 + n
    tensors = {}
    for begin, end, name, dtype, shape in entries:
        tensors[name] = {"dtype": dtype, "shape": shape, "data": _decode(dtype, bytes(b[base + begin:base + end]))}
    return metadata, tensors


def _json_meta(meta, key):
    if key not in meta:
        return None
    try:
        return json.loads(meta[key], parse_constant=_no_constants)
    except (ValueError, RecursionError):
        raise AttentionFileError(f"__metadata__.{key}: is not valid JSON") from None


def _token_list(meta, key):
    v = _json_meta(meta, key)
    if v is None and key not in meta:
        return None
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise AttentionFileError(f"__metadata__.{key}: must be a JSON list of strings")
    if not 1 <= len(v) <= LIMITS["tokens"]:
        raise AttentionFileError(f"__metadata__.{key}: {len(v)} tokens; expected 1 to {LIMITS['tokens']}")
    return v


def _check_finite(name, t):
    d = t["data"]
    # fsum of float32 values cannot overflow, so it is finite exactly when every value is (C speed).
    if math.isfinite(math.fsum(d)):
        return
    for i, x in enumerate(d):
        if not math.isfinite(x):
            at, r = [], i
            for k in reversed(t["shape"]):
                at.insert(0, r % k)
                r //= k
            what = "NaN" if math.isnan(x) else "Infinity" if x > 0 else "-Infinity"
            raise AttentionFileError(f"{name}: {what} at {at}; the file's values must be finite")


def _layer_list(meta, tensors):
    lst = _json_meta(meta, "layers")
    if "layers" not in meta:
        last = max((int(mt.group(1)) for mt in map(_WEIGHTS.match, tensors) if mt), default=-1)
        if last >= LIMITS["layers"]:
            raise AttentionFileError(f"attention.{last}.weights: layer {last} is over the limit of {LIMITS['layers']} "
                                     f"layers (0 to {LIMITS['layers'] - 1})")
        lst = [{} for _ in range(last + 1)]
    if not isinstance(lst, list) or not all(isinstance(x, dict) for x in lst):
        raise AttentionFileError("__metadata__.layers: must be a JSON list of objects")
    if not lst:
        raise AttentionFileError("file: no attention layers (no attention.<i>.weights tensor and no layers in the metadata)")
    if len(lst) > LIMITS["layers"]:
        raise AttentionFileError(f"__metadata__.layers: {len(lst)} layers, the limit is {LIMITS['layers']}")
    return lst


def _named(n):
    return [str(i) for i in range(n)]


def _check_sizes(p, shape):
    """The weights' heads and sides within the limits (before a missing token list is filled in from them)."""
    heads, nq, nk = shape
    if not 1 <= heads <= LIMITS["heads"]:
        raise AttentionFileError(f"{p}.weights: {heads} heads, expected 1 to {LIMITS['heads']}")
    for n, what in ((nq, "queries"), (nk, "keys")):
        if not 1 <= n <= LIMITS["tokens"]:
            raise AttentionFileError(f"{p}.weights: {n} {what} in shape {shape}; expected 1 to {LIMITS['tokens']} "
                                     "tokens a side")


def _read_layer(i, m, count, tensors, sides):
    p = f"attention.{i}"
    w = tensors.get(f"{p}.weights")
    if w is None:
        raise AttentionFileError(f"{p}.weights: missing (the metadata lists {count} layers)")
    s = w["shape"]
    if len(s) != 3:
        raise AttentionFileError(f"{p}.weights: expected [heads, queries, keys], got {s}")
    _check_sizes(p, s)
    q_side = "source_tokens" if m.get("queries") == "source_tokens" else "tokens"
    keys = m.get("keys")
    k_side = keys if keys in ("tokens", "source_tokens") else "source_tokens" if m.get("kind") == "cross" else q_side
    if sides["tokens"] is None:
        sides["tokens"] = _named(s[1]) if q_side == "tokens" else _named(s[2]) if k_side == "tokens" else None
    if k_side == "source_tokens":
        sides["source_tokens"] = sides["source_tokens"] or _named(s[2])
    elif q_side == "source_tokens":
        sides["source_tokens"] = sides["source_tokens"] or _named(s[1])
    qt, kt = sides[q_side], sides[k_side]
    heads = s[0]
    if s[1] != len(qt) or s[2] != len(kt):
        def side(x):
            return "tokens" if x == "tokens" else "source tokens"
        raise AttentionFileError(f"{p}.weights: shape {s} does not match the tokens: expected [heads, {len(qt)}, "
                                 f"{len(kt)}] ({len(qt)} {side(q_side)} × {len(kt)} {side(k_side)})")
    if "heads" in m and m["heads"] != heads:
        raise AttentionFileError(f"{p}.weights: {heads} heads, but the metadata says {_short(m['heads'], 20)}")
    _check_finite(f"{p}.weights", w)
    names = m.get("head_names")
    layer = {
        "index": i,
        "name": m["name"] if isinstance(m.get("name"), str) else p,
        "kind": "cross" if m.get("kind") == "cross" or ("kind" not in m and q_side != k_side) else "self",
        "heads": heads,
        "head_names": list(names) if isinstance(names, list) and len(names) == heads
        and all(isinstance(x, str) for x in names) else _named(heads),
        "query_tokens": qt,
        "key_tokens": kt,
        "weights": w,
    }
    _read_qkv(p, m, tensors, layer)
    mask = tensors.get(f"{p}.mask")
    if mask is not None:
        if mask["shape"] != [len(qt), len(kt)]:
            raise AttentionFileError(f"{p}.mask: shape {mask['shape']} does not match the tokens: expected "
                                     f"[{len(qt)}, {len(kt)}]")
        _check_finite(f"{p}.mask", mask)
        layer["mask"] = mask
    return layer


def _read_qkv(p, m, tensors, layer):
    q, k, v = (tensors.get(f"{p}.{x}") for x in "qkv")
    if q is None and k is None and v is None:
        return
    if q is None or k is None or v is None:
        missing = "q" if q is None else "k" if k is None else "v"
        raise AttentionFileError(f"{p}.{missing}: missing (a layer has all of q, k and v, or none)")
    heads = layer["heads"]
    d = q["shape"][2] if len(q["shape"]) == 3 else None
    for n, t, rows, last in (("q", q, len(layer["query_tokens"]), "d"), ("k", k, len(layer["key_tokens"]), str(d)),
                             ("v", v, len(layer["key_tokens"]), "dv")):
        s = t["shape"]
        want = [heads, rows, d if n == "k" else (s[2] if len(s) == 3 else None)]
        if len(s) != 3 or s != want or not s[2] >= 1:
            raise AttentionFileError(f"{p}.{n}: shape {s} does not match the tokens: expected [{heads}, {rows}, {last}]")
        _check_finite(f"{p}.{n}", t)
    layer["q"], layer["k"], layer["v"] = q, k, v
    scale = m.get("scale", 1 / math.sqrt(d))
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not math.isfinite(scale) or scale <= 0:
        raise AttentionFileError(f"{p}: scale must be a finite number > 0, got {_short(scale, 30)}")
    layer["scale"] = float(scale)


def read_attention_file(data):
    """Reads and checks an attention file from its bytes: {"format", "tokens", "source_tokens" (or None), "layers",
    "metadata"}; each layer {"name", "kind", "heads", "head_names", "query_tokens", "key_tokens", "weights" and,
    when present, "q", "k", "v", "mask", "scale"}, tensors as {"dtype", "shape", "data"} (flat, row-major).
    Raises AttentionFileError (a ValueError) naming what is wrong."""
    if isinstance(data, (bytes, bytearray, memoryview)) and len(data) > LIMITS["file_bytes"]:
        raise AttentionFileError(f"file: {len(data):,} bytes, over the limit of {LIMITS['file_bytes']:,} (512 MiB)")
    meta, tensors = read_safetensors(data)
    fmt = meta.get("format", "")
    if fmt and not fmt.startswith("attention-playground/"):
        raise AttentionFileError(f"__metadata__.format: '{fmt[:40]}' is not an attention file (expected "
                                 "attention-playground/1, from python/export_attention.py)")
    lst = _layer_list(meta, tensors)
    sides = {"tokens": _token_list(meta, "tokens"), "source_tokens": _token_list(meta, "source_tokens")}
    layers = [_read_layer(i, m, len(lst), tensors, sides) for i, m in enumerate(lst)]
    return {"format": fmt or "attention-playground/1", "tokens": sides["tokens"],
            "source_tokens": sides["source_tokens"], "layers": layers, "metadata": meta}
