"""Convert a nanoGPT checkpoint (ckpt.pt, as nanoGPT's train.py saves it) into the safetensors file the
Attention Playground's language model opens (ap.loadLanguageModel, the page's generate view).

    python -m attention_playground.nanogpt out/ckpt.pt --meta data/shakespeare_char/meta.pkl -o model.safetensors
    # or, from Python:
    from attention_playground.nanogpt import convert
    convert("out/ckpt.pt", "model.safetensors", meta="data/shakespeare_char/meta.pkl")

What it writes: the model's state dict under nanoGPT's names (transformer.wte.weight, transformer.h.N.…,
lm_head.weight), float32, with
  - torch.compile's `_orig_mod.` prefix removed,
  - the causal-mask buffers `transformer.h.N.attn.bias` ([1, 1, T, T], saved by torch < 2) dropped: the engine
    masks by itself (the package also accepts a file that keeps them, and checks that they are causal masks),
  - lm_head.weight dropped when it equals transformer.wte.weight (nanoGPT ties them),
and `__metadata__` vocab (a JSON array of strings, one per id: meta.pkl's itos, or `vocab=` given), n_head
(model_args), context (model_args' block_size).

Needs torch only. The checkpoint is read with torch.load(weights_only=True) first; torch 1.13's weights-only
reader refuses the floats nanoGPT's checkpoints carry (best_val_loss, config), and then the full torch.load reads it,
as nanoGPT itself does. meta.pkl is a plain pickle. So: convert only files you trust (your own).
"""

import argparse
import json
import pickle

import torch

from .exporter import write_safetensors

__all__ = ["convert", "state_dict_for_file", "vocab_from_meta"]

_PREFIX = "_orig_mod."


def _load(path):
    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except (TypeError, pickle.UnpicklingError):
        # A torch without weights_only, or one whose weights-only reader stops at plain values nanoGPT saves (torch
        # 1.13's has no BINFLOAT: best_val_loss, config's learning_rate): the full reader, for files you trust.
        return torch.load(path, map_location="cpu")


def vocab_from_meta(path):
    """The vocabulary of nanoGPT's meta.pkl (its `itos`, id -> string), as a list in id order."""
    with open(path, "rb") as f:
        meta = pickle.load(f)
    itos = meta.get("itos")
    if isinstance(itos, dict):
        n = meta.get("vocab_size", len(itos))
        missing = [i for i in range(n) if i not in itos]
        if missing:
            raise ValueError(f"{path}: itos has no string for id {missing[0]} (vocab_size {n})")
        return [str(itos[i]) for i in range(n)]
    if isinstance(itos, (list, tuple)):
        return [str(s) for s in itos]
    raise ValueError(f"{path}: no itos (id -> string) in this meta.pkl; pass vocab= instead")


def state_dict_for_file(state_dict):
    """nanoGPT's state dict as the file holds it: float32, prefix removed, mask buffers dropped, a tied lm_head
    dropped. Returns (tensors, notes)."""
    out, notes = {}, []
    for k, v in state_dict.items():
        name = k[len(_PREFIX):] if k.startswith(_PREFIX) else k
        if name.startswith("transformer.h.") and name.endswith(".attn.bias"):
            continue
        if name in out:
            raise ValueError(f"{name}: appears twice (with and without the {_PREFIX} prefix)")
        out[name] = v.detach().to(torch.float32).contiguous()
    if len(out) != len(state_dict):
        notes.append("dropped the causal-mask buffers attn.bias")
    wte, head = out.get("transformer.wte.weight"), out.get("lm_head.weight")
    if wte is not None and head is not None and head.shape == wte.shape and torch.equal(head, wte):
        del out["lm_head.weight"]
        notes.append("lm_head.weight equals transformer.wte.weight (tied): written once")
    return out, notes


def convert(ckpt, out, meta=None, vocab=None, n_head=None):
    """Writes `out` from the checkpoint `ckpt` (a path, or the dict torch.load gave). The vocabulary comes from
    `meta` (a meta.pkl path) or `vocab` (a list of strings); n_head from model_args unless given. Returns the
    metadata written."""
    ck = _load(ckpt) if isinstance(ckpt, str) else ckpt
    sd = ck["model"] if isinstance(ck, dict) and "model" in ck else ck
    args = ck.get("model_args", {}) if isinstance(ck, dict) else {}
    if vocab is None:
        if meta is None:
            raise ValueError("give meta= (nanoGPT's meta.pkl) or vocab= (one string per token id)")
        vocab = vocab_from_meta(meta)
    heads = n_head if n_head is not None else args.get("n_head")
    if heads is None:
        raise ValueError("the checkpoint has no model_args['n_head']: pass n_head=")
    tensors, notes = state_dict_for_file(sd)
    wte = tensors.get("transformer.wte.weight")
    if wte is None:
        raise ValueError("no transformer.wte.weight in the checkpoint: not a nanoGPT model")
    if wte.shape[0] != len(vocab):
        raise ValueError(
            f"the vocabulary has {len(vocab)} strings but transformer.wte.weight has {wte.shape[0]} rows"
            " (nanoGPT pads vocab_size for GPT-2; give one string per row)"
        )
    metadata = {"vocab": json.dumps(list(vocab), ensure_ascii=False), "n_head": str(int(heads))}
    if "block_size" in args:
        metadata["context"] = str(int(args["block_size"]))
    write_safetensors(out, tensors, metadata)
    return {"metadata": metadata, "notes": notes, "tensors": sorted(tensors)}


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m attention_playground.nanogpt", description=__doc__.split("\n\n")[0])
    p.add_argument("ckpt", help="nanoGPT's ckpt.pt")
    p.add_argument("--meta", help="the data set's meta.pkl (its itos gives the vocabulary)")
    p.add_argument("--vocab", help="or: a JSON file holding the vocabulary, a list of strings")
    p.add_argument("--n-head", type=int, help="heads, when the checkpoint has no model_args")
    p.add_argument("-o", "--out", required=True, help="the .safetensors file to write")
    a = p.parse_args(argv)
    vocab = None
    if a.vocab:
        with open(a.vocab, encoding="utf-8") as f:
            vocab = json.load(f)
    r = convert(a.ckpt, a.out, meta=a.meta, vocab=vocab, n_head=a.n_head)
    print(json.dumps({"out": a.out, **r}, ensure_ascii=False))


if __name__ == "__main__":
    main()
