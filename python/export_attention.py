"""Write a model's attention into one safetensors file for the Attention Playground (thin entry).

    from export_attention import export
    export(model, inputs, "attention.safetensors", tokens=["this", "is", "my", "cat"])

The exporter lives in the package attention_playground (attention_playground/exporter.py, beside this file);
this module keeps the old import working from a clone or the npm package, without installing anything.
"""

import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
if _here not in sys.path:
    sys.path.insert(0, _here)

from attention_playground.exporter import FORMAT, __all__, export, write_safetensors  # noqa: E402,F401
