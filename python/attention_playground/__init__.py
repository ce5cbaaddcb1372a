"""Attention Playground for Python: a model's attention as a file the page reads (export), and the playground in a
notebook (show, show_file, show_run), self-contained: the widget's JS and its engine (wasm) travel in each output.

    from attention_playground import show, show_file, show_run
    show(model, inputs, tokens=["the", "cat", "sat"])   # every nn.MultiheadAttention of a PyTorch model
    show_run("我爱中国", tokenizer="char", lang="zh")     # the playground itself

    convert_nanogpt("out/ckpt.pt", "model.safetensors", meta="data/…/meta.pkl")  # your nanoGPT, for ap.loadLanguageModel

torch is needed by export(), show() and convert_nanogpt() only (imported when they are called).
"""

from .notebook import Playground, attributes, show, show_file, show_run
from .reader import LIMITS, AttentionFileError, read_attention_file, read_safetensors

__version__ = "0.1.0"
FORMAT = "attention-playground/1"

__all__ = ["export", "write_safetensors", "convert_nanogpt", "FORMAT", "show", "show_file", "show_run", "Playground", "attributes",
           "AttentionFileError", "read_attention_file", "read_safetensors", "LIMITS", "__version__"]


def export(model, inputs, path, tokens=None, dtype="F32"):
    """Runs `model` once on `inputs` and writes its attention to `path` (safetensors); see exporter.export."""
    from .exporter import export as _export

    return _export(model, inputs, path, tokens=tokens, dtype=dtype)


def convert_nanogpt(ckpt, out, meta=None, vocab=None, n_head=None):
    """A nanoGPT checkpoint (ckpt.pt) as the safetensors file the page's language model opens; see nanogpt.convert."""
    from .nanogpt import convert

    return convert(ckpt, out, meta=meta, vocab=vocab, n_head=n_head)


def write_safetensors(path, tensors, metadata=None):
    """Writes torch tensors as safetensors; see exporter.write_safetensors."""
    from .exporter import write_safetensors as _write

    return _write(path, tensors, metadata)
