"""The poems model in native torch for bench/lm_bench.mjs (issue 38 item 1): tests/fixtures/gpt_torch.py's GPT from
the initial weights our trainer exported (safetensors), AdamW with nanoGPT's groups at the bench's constant learning
rate, on the same windows, one thread. A line protocol on stdin/stdout (JSON), so that its steps take turns with the
browser's, round by round:
  {"cmd": "setup", "init": path, "windows": path, "lr": .., "weight_decay": ..}  -> torch version, BLAS, threads
  {"cmd": "agree", "steps": K}    K optimizer steps on windows 0..K-1 from the initial weights: the loss of each
  {"cmd": "step", "index": i}     one more step (on windows[4 + i % (len - 4)], as the worker picks them): its ms
Run with /usr/bin/python3 (Debian's torch 1.13)."""

import json
import os
import sys
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path[:0] = [os.path.join(ROOT, "tests", "fixtures"), os.path.join(ROOT, "scripts"), os.path.join(ROOT, "python")]

import torch  # noqa: E402

from attention_playground.reader import read_safetensors  # noqa: E402
from gpt_torch import GPTConfig, configure_optimizers  # noqa: E402
from poems_torch import blas, model_of  # noqa: E402

torch.set_num_threads(1)


class Run:
    def __init__(self, init, windows, lr, weight_decay):
        with open(init, "rb") as f:
            meta, tensors = read_safetensors(f.read())
        shape = json.loads(meta["shape"])
        self.cfg = GPTConfig(block_size=shape["context"], vocab_size=shape["vocabSize"], n_layer=shape["layers"],
                             n_head=int(meta["n_head"]), n_embd=shape["dModel"], positions=meta["positions"])
        self.tensors = {k: torch.tensor(list(v["data"]), dtype=torch.float32).view(v["shape"])
                        for k, v in tensors.items()}
        with open(windows, encoding="utf-8") as f:
            self.windows = [torch.tensor(b, dtype=torch.long) for b in json.load(f)]
        self.lr, self.weight_decay = lr, weight_decay
        self.fresh()

    def fresh(self):
        self.model = model_of(self.cfg, self.tensors)
        self.opt = configure_optimizers(self.model, self.weight_decay, self.lr)

    def step(self, batch):
        x, y = batch[:, :-1].contiguous(), batch[:, 1:].contiguous()
        _, loss = self.model(x, y)
        self.opt.zero_grad(set_to_none=True)
        loss.backward()
        self.opt.step()
        return loss.item()


def main():
    run = None
    for line in sys.stdin:
        req = json.loads(line)
        if req["cmd"] == "setup":
            run = Run(req["init"], req["windows"], req["lr"], req["weight_decay"])
            out = {"torch": torch.__version__, "blas": blas(), "threads": torch.get_num_threads(),
                   "config": torch.__config__.show().strip().splitlines()[:12]}
        elif req["cmd"] == "agree":
            run.fresh()
            out = {"losses": [run.step(run.windows[s]) for s in range(req["steps"])]}
        elif req["cmd"] == "step":
            batch = run.windows[req["index"] % (len(run.windows) - 4) + 4]
            t0 = time.perf_counter()
            loss = run.step(batch)
            out = {"ms": (time.perf_counter() - t0) * 1000, "loss": loss}
        else:
            out = {"error": f"unknown command {req['cmd']}"}
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
