#!/usr/bin/python3
"""Trains the poems language model (issue 37 item 4) in torch and measures it; writes the page's sample.

Deterministic: torch.manual_seed(seed) before the weights are drawn, the batches from a torch.Generator seeded
with seed + 1, torch.set_num_threads(1) (the same bits on the same machine and torch build; another CPU's
kernels may round differently). The model is tests/fixtures/gpt_torch.py's (nanoGPT's layout, docs/lm-spec.md),
trained with its configure_optimizers (AdamW, betas 0.9/0.95, decay on 2-D weights) and get_lr (linear
warm-up, cosine decay to lr/10 at the last step).

Data: public/poems/{train,validation}.txt and vocab.json (scripts/poems-corpus.mjs). A training window is
context + 1 ids of the stream of train poems (each poem followed by "\\n" = id 0) starting at a poem's first
character, drawn uniformly over the poems that have context + 1 ids from their start on; inputs are its first
context ids, targets the next ones, the loss is the mean over every position (docs/lm-spec.md).

Measured at every --eval-every steps and at the end (all on the validation poems, each read alone from
position 0, so place k of line l is at position 6·l + k):
  val_loss     mean cross-entropy (nats) of every character after the first, the closing "\\n" included
  form         the share of sampled poems that keep the five-character form: prompt = the first character of
               validation poem i (i < --samples), temperature --temperature, mulberry32(--sample-seed + i) one
               draw per token, gpt_torch.sample (the generate sampler of docs/lm-spec.md), up to context characters,
               the poem = the text before the first "\\n" (none: not kept); the form as scripts/poem-form.mjs
  heads        previousLine / previousChar / lineEnd of every head (gpt_torch.head_scores over the validation
               poems' causal weights) and its label (largest score when >= 0.4)

Speed: Debian's torch 1.13 calls the system's libblas.so.3, the reference BLAS unless another is selected
(1.57 s of CPU a step of the default shape); with OpenBLAS (the .deb of libopenblas0-serial unpacked anywhere, no
install needed: apt-get download libopenblas0-serial && dpkg-deb -x libopenblas0-serial_*.deb DIR) 0.21 s:
  LD_LIBRARY_PATH=DIR/usr/lib/x86_64-linux-gnu/openblas-serial /usr/bin/python3 scripts/poems_torch.py ...
The sample was trained that way (the JSON names the BLAS loaded); the reference BLAS rounds differently.

  /usr/bin/python3 scripts/poems_torch.py --steps 1000 --json bench/results/poems-run.json
  /usr/bin/python3 scripts/poems_torch.py --sample     # the committed sample: public/samples/poems.safetensors
"""
import argparse
import json
import math
import os
import re
import sys
import tempfile
import time

import numpy as np
import torch
import torch.nn.functional as F

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "fixtures"))
sys.path.insert(0, os.path.join(ROOT, "python"))
from gpt_torch import GPT, GPTConfig, configure_optimizers, get_lr, head_scores, mulberry32, sample  # noqa: E402
from attention_playground.exporter import write_safetensors  # noqa: E402

SCRIPT = "scripts/poems_torch.py"
POEMS = os.path.join(ROOT, "public", "poems")
SAMPLE_OUT = os.path.join(ROOT, "public", "samples", "poems.safetensors")
SAMPLE_JSON = os.path.join(ROOT, "public", "samples", "poems.json")
ROLES = ("previousLine", "previousChar", "lineEnd")
SAMPLE_ARGS = dict(layers=2, heads=4, d=64, context=64, batch=32, steps=1000, lr=3e-3, warmup=100, weight_decay=0.1,
                   seed=0, positions="learned", eval_every=200, samples=250, temperature=0.8, sample_seed=1,
                   dtype="F16")

# scripts/poem-form.mjs's form: 4 or 8 lines of five Han characters (or □), "，" and "。" alternating.
_CHAR = r"[\u2e80-\u2fdf\u3005\u3007\u3021-\u3029\u3038-\u303b\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003ffff□]"
_COUPLET = f"{_CHAR}{{5}}，{_CHAR}{{5}}。"
FORM = re.compile(f"^(?:(?:{_COUPLET}){{2}}|(?:{_COUPLET}){{4}})$")


def keeps_form(text):
    return FORM.match(text) is not None


def load_corpus():
    with open(os.path.join(POEMS, "vocab.json"), encoding="utf-8") as f:
        vocab = json.load(f)
    index = {c: i for i, c in enumerate(vocab)}

    def poems(name):
        with open(os.path.join(POEMS, name), encoding="utf-8") as f:
            lines = f.read().split("\n")
        assert lines[-1] == "", f"{name} does not end with a newline"
        return [[index[c] for c in line] + [0] for line in lines[:-1]]

    return vocab, poems("train.txt"), poems("validation.txt")


class Windows:
    """Aligned training windows: the stream of train poems cut at poem starts."""

    def __init__(self, poems, context, seed):
        stream, starts = [], []
        for p in poems:
            starts.append(len(stream))
            stream.extend(p)
        self.stream = torch.tensor(stream, dtype=torch.long)
        self.starts = torch.tensor([s for s in starts if s + context + 1 <= len(stream)], dtype=torch.long)
        self.context = context
        self.gen = torch.Generator().manual_seed(seed)

    def batch(self, n):
        pick = self.starts[torch.randint(len(self.starts), (n,), generator=self.gen)]
        idx = pick[:, None] + torch.arange(self.context + 1)[None, :]
        w = self.stream[idx]
        return w[:, :-1].contiguous(), w[:, 1:].contiguous()


def by_length(poems):
    groups = {}
    for i, p in enumerate(poems):
        groups.setdefault(len(p), []).append(i)
    return groups


def score_sums(W):
    """gpt_torch.head_score_terms for a batch of weights W [B, H, T, T] at once: per head, the sums over the poems
    and queries of previousLine A[i, i-6] (i >= 6), previousChar A[i, i-1] (i >= 1), lineEnd A[i, 6*(i//6) - 1]
    (i >= 6), and the counts of terms."""
    B, H, T, _ = W.shape
    i = torch.arange(6, T)
    sums = {
        "previousLine": torch.diagonal(W, offset=-6, dim1=2, dim2=3).sum(dim=(0, 2)),
        "previousChar": torch.diagonal(W, offset=-1, dim1=2, dim2=3).sum(dim=(0, 2)),
        "lineEnd": W[:, :, i, 6 * (i // 6) - 1].sum(dim=(0, 2)),
    }
    counts = {"previousLine": B * max(T - 6, 0), "previousChar": B * (T - 1), "lineEnd": B * max(T - 6, 0)}
    return {r: sums[r].double() for r in ROLES}, counts


@torch.no_grad()
def validation(model, poems, chunk=128, check=True):
    """The validation loss (mean cross-entropy of every character after the first, "\n" included) and the head
    scores [layer][head] = {scores, label}, over the validation poems, each alone from position 0. With check,
    the first chunk's scores are also computed by gpt_torch.head_scores (the one definition) and must agree."""
    total, count = 0.0, 0
    cfg = model.config
    tot = [{r: torch.zeros(cfg.n_head, dtype=torch.float64) for r in ROLES} for _ in range(cfg.n_layer)]
    cnt = [{r: 0 for r in ROLES} for _ in range(cfg.n_layer)]
    for n, idx in sorted(by_length(poems).items()):
        for c in range(0, len(idx), chunk):
            ids = torch.tensor([poems[i] for i in idx[c : c + chunk]], dtype=torch.long)
            trace = []
            logits, _ = model(ids[:, :-1], trace=trace)
            loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), ids[:, 1:].reshape(-1), reduction="sum")
            total += float(loss)
            count += ids[:, 1:].numel()
            for layer, t in enumerate(trace):
                s, k = score_sums(t["weights"])
                if check:
                    for h in range(cfg.n_head):
                        ref, _ = head_scores([A.tolist() for A in t["weights"][:, h]])
                        for r in ROLES:
                            assert abs(ref[r] - float(s[r][h]) / k[r]) < 1e-5, (layer, h, r, ref[r])
                for r in ROLES:
                    tot[layer][r] += s[r]
                    cnt[layer][r] += k[r]
            check = False
    out = []
    for layer in range(cfg.n_layer):
        row = []
        for h in range(cfg.n_head):
            sc = {r: float(tot[layer][r][h]) / cnt[layer][r] for r in ROLES}
            best = max(ROLES, key=lambda r: sc[r])
            row.append({"scores": {r: round(sc[r], 4) for r in ROLES}, "label": best if sc[best] >= 0.4 else None})
        out.append(row)
    return total / count, out


def fast_sample(row, temperature, u):
    """gpt_torch.sample for temperature > 0 without top-k / top-p, over a numpy row: softmax(row / temperature)
    in float64, sorted by probability (ties to the lower id), the first id whose cumulative probability > u."""
    z = (row.astype(np.float64) - row.max()) / temperature
    e = np.exp(z)
    order = np.lexsort((np.arange(len(e)), -e))
    c = np.cumsum(e[order] / e.sum())
    j = int(np.searchsorted(c, u, side="right"))
    return int(order[min(j, len(order) - 1)])


@torch.no_grad()
def last_logits(model, ids):
    """GPT.forward's logits at the last position only (the unembedding of one row, not of every position)."""
    tr = model.transformer
    x = tr.wte(ids)
    if model.config.positions == "learned":
        x = x + tr.wpe(torch.arange(ids.shape[1]))
    for block in tr.h:
        x = block(x)
    return model.lm_head(tr.ln_f(x[:, -1, :]))


@torch.no_grad()
def sample_poems(model, vocab, prompts, temperature, seed, top_k=0, top_p=1.0):
    """Each prompt (a list of ids) continued to the context's length in lockstep (the whole prefix again every
    step), one mulberry32(seed + i) draw per generated token; a poem stops at its first "\\n"."""
    T = model.config.block_size
    seqs = [list(p) for p in prompts]
    rngs = [mulberry32(seed + i) for i in range(len(prompts))]
    done = [False] * len(prompts)
    checks = [200]
    while not all(done) and max(len(s) for s in seqs) < T:
        live = [i for i in range(len(seqs)) if not done[i]]
        n = len(seqs[live[0]])
        ids = torch.tensor([seqs[i] for i in live], dtype=torch.long)
        last = last_logits(model, ids)
        if n == len(prompts[live[0]]):  # the shortcut against the whole forward, once
            assert torch.allclose(last, model(ids)[0][:, -1, :], atol=1e-5), "last_logits != GPT.forward"
        rows = last.numpy()
        for i, row in zip(live, rows):
            u = rngs[i]()
            if top_k == 0 and top_p >= 1 and temperature > 0:
                tok = fast_sample(row, temperature, u)
                if checks[0] > 0:  # the one definition, on the first draws
                    checks[0] -= 1
                    assert tok == sample(row.tolist(), temperature, top_k, top_p, u), "fast_sample != gpt_torch.sample"
            else:
                tok = sample(row.tolist(), temperature, top_k, top_p, u)
            seqs[i].append(tok)
            if tok == 0:
                done[i] = True
    return ["".join(vocab[t] for t in s) for s in seqs]


def form_share(texts):
    kept = 0
    for t in texts:
        end = t.find("\n")
        if end >= 0 and keeps_form(t[:end]):
            kept += 1
    return kept / len(texts)


def evaluate(model, vocab, val, args):
    model.eval()
    t0 = time.time()
    prompts = [p[:1] for p in val[: args.samples]]
    texts = sample_poems(model, vocab, prompts, args.temperature, args.sample_seed)
    loss, heads = validation(model, val)
    out = {
        "val_loss": round(loss, 4),
        "form": round(form_share(texts), 4),
        "heads": heads,
        "poems": texts[:6],
    }
    out["eval_seconds"] = round(time.time() - t0, 1)
    model.train()
    return out, texts


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--d", type=int, default=64, help="dModel (n_embd)")
    ap.add_argument("--context", type=int, default=64)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--warmup", type=int, default=100)
    ap.add_argument("--weight-decay", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--positions", default="learned", choices=["learned", "rope"])
    ap.add_argument("--eval-every", type=int, default=250)
    ap.add_argument("--samples", type=int, default=250, help="sampled poems at every evaluation (>= 200)")
    ap.add_argument("--temperature", type=float, default=0.8)
    ap.add_argument("--sample-seed", type=int, default=1)
    ap.add_argument("--json", help="write the measurements here")
    ap.add_argument("--out", help="write the trained model here (safetensors, nanoGPT layout)")
    ap.add_argument("--dtype", default="F16", choices=["F32", "F16"], help="the model file's dtype")
    ap.add_argument("--from", dest="start", help="load this torch state dict (the .pt this script saved in the temp folder) "
                    "instead of training, then evaluate and write --out / --json")
    ap.add_argument("--sample", action="store_true", help="the committed sample: its shape and steps, written to "
                    "public/samples/poems.safetensors and poems.json")
    ap.add_argument("--check", metavar="FILE", help="measure a model file this script wrote (--samples poems) and "
                    "print the measurements as JSON")
    ap.add_argument("--collect", nargs="+", metavar="RUN.json", help="write --json from these runs' JSON files "
                    "(bench/results/poems-torch.json: every run's checkpoints, the file's measurements without its "
                    "poems beyond the first 6) and exit")
    ap.add_argument("--note", default="", help="with --collect: the machine and its load, said in the file")
    args = ap.parse_args()
    if args.collect:
        return collect(args.collect, args.json, args.note)
    if args.check:
        torch.set_num_threads(1)
        return check(args.check, args)
    if args.sample:  # the committed sample: the default shape (issue 38's in-browser default), 1000 steps
        for k, v in SAMPLE_ARGS.items():
            setattr(args, k, v)
        args.out, args.json = SAMPLE_OUT, SAMPLE_JSON

    torch.set_num_threads(1)
    vocab, train, val = load_corpus()
    torch.manual_seed(args.seed)
    cfg = GPTConfig(block_size=args.context, vocab_size=len(vocab), n_layer=args.layers, n_head=args.heads,
                    n_embd=args.d, positions=args.positions)
    model = GPT(cfg)
    opt = configure_optimizers(model, args.weight_decay, args.lr)
    windows = Windows(train, args.context, args.seed + 1)
    shape = dict(layers=args.layers, heads=args.heads, dModel=args.d, context=args.context, batch=args.batch,
                 vocabSize=len(vocab), positions=args.positions, lr=args.lr, warmup=args.warmup,
                 weightDecay=args.weight_decay, steps=args.steps, seed=args.seed)
    print(json.dumps(shape), flush=True)
    checkpoints, losses, t_train = [], [], 0.0
    if args.start:
        model.load_state_dict(torch.load(args.start))
        with open(args.json) as f:
            checkpoints = json.load(f)["checkpoints"]
    for step in range(1, 0 if args.start else args.steps + 1):
        t0 = time.time()
        lr = get_lr(step - 1, args.lr, args.warmup, args.steps)
        for g in opt.param_groups:
            g["lr"] = lr
        x, y = windows.batch(args.batch)
        _, loss = model(x, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        losses.append(float(loss))
        t_train += time.time() - t0
        if step % args.eval_every == 0 or step == args.steps:
            ev, _ = evaluate(model, vocab, val, args)
            recent = losses[-args.eval_every :]
            ck = {"step": step, "train_loss": round(sum(recent) / len(recent), 4), **ev,
                  "seconds_per_step": round(t_train / step, 3)}
            checkpoints.append(ck)
            best = [max(h["scores"].values()) for layer in ev["heads"] for h in layer]
            labels = [h["label"] for layer in ev["heads"] for h in layer]
            print(f"step {step}: train {ck['train_loss']:.3f} val {ev['val_loss']:.3f} form {ev['form']:.3f} "
                  f"heads best {max(best):.2f} labels {labels} ({ck['seconds_per_step']} s/step, eval "
                  f"{ev['eval_seconds']} s)", flush=True)
            print("  " + " | ".join(p.replace("\n", "⏎") for p in ev["poems"][:3]), flush=True)
            if args.json:  # the run so far, in case it is stopped
                write_json(args.json, shape, checkpoints, None)

    final = None
    if args.out and not args.start:
        pt = os.path.join(tempfile.gettempdir(), os.path.basename(args.out) + ".pt")
        torch.save(model.state_dict(), pt)  # to write the file again with --from
        print(f"saved the trained state to {pt}", flush=True)
    if args.out:
        sd = gpt_file_dict(model, args.dtype)
        # the loss and the form of the weights as stored (F16 rounds them)
        ev, texts = evaluate(model_of(cfg, {k: v.float() for k, v in sd.items()}), vocab, val, args)
        final = {"dtype": args.dtype, "val_loss": ev["val_loss"], "form": ev["form"], "heads": ev["heads"],
                 "poems": texts}
        meta = {"vocab": json.dumps(vocab, ensure_ascii=False), "n_head": str(args.heads), "positions": args.positions,
                "context": str(args.context), "val_loss": f"{ev['val_loss']:.4f}", "steps": str(args.steps), "seed": str(args.seed),
                "script": SCRIPT, "shape": json.dumps(shape)}
        os.makedirs(os.path.dirname(args.out), exist_ok=True)
        write_safetensors(args.out, sd, meta)
        print(f"wrote {args.out}: {os.path.getsize(args.out)} bytes, {args.dtype}, val loss {ev['val_loss']:.4f}, "
              f"form {ev['form']:.3f}", flush=True)
    if args.json:
        write_json(args.json, shape, checkpoints, final)


def model_of(cfg, tensors):
    """A GPT of cfg holding `tensors` (the file's names, float32; lm_head absent when tied)."""
    m = GPT(cfg)
    missing, unexpected = m.load_state_dict(tensors, strict=False)
    assert not unexpected, unexpected
    assert all(k.endswith(".attn.bias") or k == "lm_head.weight" for k in missing), missing
    m.lm_head.weight = m.transformer.wte.weight
    return m


def check(path, args):
    """Reads a model file this script wrote (python/attention_playground/reader.py) and measures it again."""
    from attention_playground.reader import read_safetensors

    with open(path, "rb") as f:
        meta, tensors = read_safetensors(f.read())
    shape = json.loads(meta["shape"])
    vocab, _, val = load_corpus()
    assert json.loads(meta["vocab"]) == vocab, "the file's vocabulary is not public/poems/vocab.json"
    cfg = GPTConfig(block_size=shape["context"], vocab_size=len(vocab), n_layer=shape["layers"],
                    n_head=int(meta["n_head"]), n_embd=shape["dModel"], positions=meta["positions"])
    t = {k: torch.tensor(list(v["data"]), dtype=torch.float32).view(v["shape"]) for k, v in tensors.items()}
    ev, texts = evaluate(model_of(cfg, t), vocab, val, args)
    print(json.dumps({"val_loss": ev["val_loss"], "form": ev["form"], "heads": ev["heads"], "poems": texts},
                     ensure_ascii=False))


def gpt_file_dict(model, dtype):
    """gpt_torch's state dict for the file (no mask buffers, no lm_head when tied), in the file's dtype, in the
    order of the state dict."""
    from gpt_torch import state_dict_for_file

    t = {"F32": torch.float32, "F16": torch.float16}[dtype]
    return {k: v.to(t) for k, v in state_dict_for_file(model).items()}


def collect(paths, out, note):
    runs = []
    for p in paths:
        with open(p, encoding="utf-8") as f:
            r = json.load(f)
        if "file" in r:
            r["file"]["poems"] = r["file"]["poems"][:6]
        r["name"] = os.path.splitext(os.path.basename(p))[0]
        runs.append(r)
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"script": SCRIPT, "date": time.strftime("%Y-%m-%d"), "note": note, "runs": runs}, f,
                  ensure_ascii=False, indent=1)
        f.write("\n")


def blas():
    """The BLAS library this process loaded (torch 1.13 of Debian calls libblas.so.3: the reference BLAS, or
    OpenBLAS when LD_LIBRARY_PATH points at it); the bits of a run depend on it."""
    with open("/proc/self/maps") as f:
        libs = {line.split()[-1] for line in f if "blas" in line.split()[-1]}
    return sorted(os.path.basename(os.path.dirname(p)) + "/" + os.path.basename(p) for p in libs)


def write_json(path, shape, checkpoints, final):
    out = {"script": SCRIPT, "torch": torch.__version__, "blas": blas(), "shape": shape, "checkpoints": checkpoints}
    if final is not None:
        out["file"] = final
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
