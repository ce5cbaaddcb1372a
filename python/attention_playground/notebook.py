"""The widget in a notebook: objects whose _repr_html_() is the playground, self-contained (no server, no network).

Each output carries the widget's JS and the engine's wasm (gzip, base64; the build writes them to assets/), and a
small loader that imports the widget once per page. What the caller passes (tokens, text, options, the file) reaches
the page as JSON inside <script type="application/json"> and is set as attributes from script: never as HTML.
"""

import base64
import html
import json
import os
import tempfile
import uuid

from .reader import AttentionFileError, read_attention_file

__all__ = ["Playground", "show", "show_file", "show_run", "attributes"]

_HERE = os.path.dirname(os.path.abspath(__file__))
_ASSETS = os.path.join(_HERE, "assets")
_cache = {}
#: The largest file show() and show_file() embed: the widget's download limit for its src (a blob: URL here).
SHOW_BYTES = 64 * 1024 * 1024

FALLBACK = ("Attention Playground: loading… If this stays, the output's scripts did not run: trust the notebook "
            "(File → Trust Notebook) or run the cell again. / 注意力演练场：加载中…若一直如此，说明输出中的脚本未运行："
            "请信任此笔记本（File → Trust Notebook）或重新运行该单元格。")


def _asset(name):
    if name not in _cache:
        path = os.path.join(_ASSETS, name)
        try:
            with open(path, "rb") as f:
                _cache[name] = f.read()
        except FileNotFoundError:
            raise FileNotFoundError(
                f"attention_playground: {path} is missing; it is built with the widget (run `npm run build` in a clone "
                "of the project, then `pip install ./python`), and the npm package ships it") from None
    return _cache[name]


def attributes():
    """The widget's attribute names (its observedAttributes, as the build read them from the widget)."""
    return tuple(json.loads(_asset("attributes.json").decode("utf-8")))


def _attr_value(name, v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return ",".join(str(x) for x in v)
    if isinstance(v, (str, int, float)):
        return str(v)
    raise TypeError(f"{name}: expected a string, number, bool or list, got {type(v).__name__}")


def _attrs(options):
    known = attributes()
    out = {}
    for k, v in options.items():
        if k not in known:
            raise TypeError(f"{k}: not an attribute of the widget; expected one of {', '.join(known)}")
        if v is not None:
            out[k] = _attr_value(k, v)
    return out


def _script_json(value):
    # JSON is also valid inside <script>: only "<", ">" and "&" could end it or start a comment, so they are escaped.
    text = json.dumps(value, ensure_ascii=False)
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


class Playground:
    """The widget as a notebook output. `attributes`: the element's attributes (str -> str); `file`: the bytes of an
    attention file shown in the model view, or None. Jupyter (Notebook, Lab, VS Code, nbconvert) shows it through
    _repr_html_(); html() is the same markup."""

    def __init__(self, attributes=None, file=None):
        self.attributes = dict(attributes or {})
        self.file = file

    def html(self):
        uid = "ap-" + uuid.uuid4().hex
        config = {"attributes": self.attributes,
                  "file": base64.b64encode(self.file).decode("ascii") if self.file is not None else None}
        loader = _asset_text("loader.js")
        return (
            f'<div class="attention-playground-output" id="{uid}">'
            f'<p class="ap-fallback">{html.escape(FALLBACK)}</p>'
            f'<script type="application/json" class="ap-config">{_script_json(config)}</script>'
            f'<script type="application/octet-stream" class="ap-widget-js">{_b64_asset("widget.js.gz")}</script>'
            f'<script type="application/octet-stream" class="ap-engine-wasm">{_b64_asset("attention.wasm.gz")}</script>'
            f"<script>{loader}({json.dumps(uid)})</script>"
            "</div>"
        )

    def _repr_html_(self):
        return self.html()

    def __repr__(self):
        file = f", file=<{len(self.file)} bytes>" if self.file is not None else ""
        return f"Playground({self.attributes!r}{file})"


def _asset_text(name):
    if name not in _cache:
        with open(os.path.join(_HERE, name), "r", encoding="utf-8") as f:
            _cache[name] = f.read()
    return _cache[name]


def _b64_asset(name):
    key = name + ".b64"
    if key not in _cache:
        _cache[key] = base64.b64encode(_asset(name)).decode("ascii")
    return _cache[key]


def show_run(text=None, **options):
    """The playground itself: `text` and the widget's attributes as keyword arguments (docs/embedding.md), e.g.
    show_run("我爱中国", tokenizer="char", lang="zh", mask="causal", steps=["scores", "weights"])."""
    if text is not None:
        options["text"] = text
    return Playground(_attrs(options))


def show_file(path, **options):
    """An attention file (safetensors, written by export()) in the widget's model view. The file is read and
    checked here first: a bad file raises AttentionFileError (a ValueError) naming what is wrong."""
    _check_size(os.path.getsize(path))  # before reading it
    with open(path, "rb") as f:
        data = f.read()
    return _show_bytes(data, options)


def _check_size(n):
    if n > SHOW_BYTES:
        raise AttentionFileError(f"file: {n:,} bytes, over the limit of {SHOW_BYTES:,} bytes (64 MiB) that a notebook "
                                 "output hands to the widget (its src download limit); export fewer layers or a shorter "
                                 "input, or open the file in the page (up to 512 MiB)")


def _show_bytes(data, options):
    _check_size(len(data))
    read_attention_file(data)
    if "src" in options:
        raise TypeError("src: the widget shows the file given; pass no src")
    return Playground(_attrs(options), file=bytes(data))


def show(model, inputs, tokens=None, dtype="F32", **options):
    """Runs `model` once on `inputs` (as export() does: every torch.nn.MultiheadAttention, or a Hugging Face model's
    output_attentions) and shows its attention in the widget's model view. Needs torch."""
    from .exporter import export

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "attention.safetensors")
        export(model, inputs, path, tokens=tokens, dtype=dtype)
        with open(path, "rb") as f:
            data = f.read()
    return _show_bytes(data, options)

