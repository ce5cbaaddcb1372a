#!/usr/bin/python3
"""Induction heads in PyTorch: the reference for the trainer's `induction` task (issue 26).

A 2-layer attention-only model of the trainer's shape (token embedding at --emb-scale (default 0.1) of
nn.Embedding's N(0, 1), learned positions at --pos-scale (default 1) of it, per layer Q/K/V projections
without bias, heads, causal softmax, ·V, Wo + bo, residual; a linear task head), trained with causal
next-token cross-entropy on every position, batch 32, Adam 1e-2 (constant). Every --every steps: accuracy on
the copyable tokens (the second copy after its first token) and on the rest, each head's previous-token,
induction and duplicate-token scores, and (with --log) layer 1's mean attention at offsets 0..3, on --held
held-out sequences. Prints the step at which copy accuracy first reaches 90 %.

The data is the trainer's distribution (src/core/train_tasks.cpp, make_induction), drawn here with
Python's random: SEQ tokens from a vocabulary of VOCAB; a segment of L in [4, 8] distinct tokens appears
twice, the second copy right after the first, after a prefix of random length in [1, SEQ - 2L]; the
prefix avoids the segment's tokens (so the copy is unambiguous), the rest is uniform. Variants for
experiments: --data random (the prefix drawn from the whole vocabulary, --seg-in-prefix q: each prefix token
from the segment with probability q), --seg-repeats (the segment drawn with replacement), --seq N.

Run by hand (about a minute per seed on one core):
  /usr/bin/python3 bench/induction_torch.py [--seeds 0,1,2,3,4] [--heads 2] [--steps 3000] [--log --every 100]

Measured with torch 1.13, one thread (copy accuracy >= 90 % at step; layer-1 previous-token and layer-2
induction scores there, the largest of each layer's heads). With --held 256 --every 100:
  defaults (words 0.1, positions 1), the trainer's since this table:
    seed 0 at 1,300: previous-token 0.55, induction 0.81     seed 1 at 1,300: 0.50, 0.82
    seed 2 at 1,300: 0.47, 0.82                              seed 3 at 1,100: 0.67, 0.86
    seed 4 at 1,900: 0.09, 0.85 (layer 1 is a duplicate-token head, 0.72; also with --emb-scale 0.05: 1,800)
  --pos-scale 2 (words 0.1): seed 4 copy 0.04 at 1,100 (stopped).
  --emb-scale 1 --pos-scale 0.1 (the defaults before, the other tasks' init) and --data random: seed 0 copy
    0.886 at 3,000 (not reached), previous-token <= 0.12, induction 0.63; layer 1's heads spread over earlier
    positions. With --seg-repeats as well: copy 0.74 at 3,000, previous-token <= 0.10.
With --held 512 --every 50, --emb-scale 1 (the defaults before):
  --pos-scale 0.1, --heads 2: seed 0 at 1,800, induction 0.68.
  --heads 1: seed 0 at 900, 0.81; seed 1 at 2,050, 0.70.   --heads 4: seed 0 at 2,350, 0.77.
  --pos-scale 1: heads 2, seed 0 at 800, 0.78; seed 1 at 1,500, 0.83; heads 1, seed 0 at 450, 0.80.
  In none of these runs is a layer-1 head a previous-token head (its score stays at or below 0.11): layer 1
  is a duplicate-token head (each word of the second copy attends to its earlier copy: 0.77 for heads 1,
  seed 0) and layer 2 attends to the position after it.
The C++ trainer with the same defaults (wasm, `node bench/train_bench.mjs --induction-only`; its own fixed data
set and batches): 90 % copy at 1,150 / 1,500 / 1,500 / 1,050 / 1,700 steps for seeds 0-4; layer-1 previous-token
0.56 / 0.50 / 0.07 / 0.53 / 0.08 (seed 2: duplicate-token 0.63); layer-2 induction 0.83 / 0.82 / 0.82 / 0.79 / 0.68.
So the start decides the route: words at 1 (positions at 0.1 or 1) give a duplicate-token head in layer 1
for every seed tried; words at 0.1 and positions at 1 give the previous-token head for seeds 0-3 of 0-4.
"""
import argparse
import math
import random

import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB, SEQ, LMIN, LMAX = 32, 24, 4, 8
DATA = 'unique'  # unique: the prefix avoids the segment's tokens; random: prefix drawn from the whole vocabulary
SEG_IN_PREFIX = 0.0  # random: probability that a prefix token is drawn from the segment's tokens
SEG_REPEATS = False  # the segment's tokens drawn with replacement (a token may occur twice in it)


def sequence(rng):
    L = rng.randint(LMIN, LMAX)
    p = rng.randint(1, SEQ - 2 * L)
    seg = [rng.randrange(VOCAB) for _ in range(L)] if SEG_REPEATS else rng.sample(range(VOCAB), L)
    if DATA == 'unique':
        others = [t for t in range(VOCAB) if t not in seg]
        ids = [rng.choice(others) for _ in range(p)]
    else:
        ids = [rng.choice(seg) if rng.random() < SEG_IN_PREFIX else rng.randrange(VOCAB) for _ in range(p)]
    ids += seg + seg
    ids += [rng.randrange(VOCAB) for _ in range(SEQ - len(ids))]
    return ids, p, L


def batch(rng, n):
    rows = [sequence(rng) for _ in range(n)]
    ids = torch.tensor([r[0] for r in rows])
    copy = torch.zeros(n, SEQ, dtype=torch.bool)  # target position t is copyable
    for b, (_, p, L) in enumerate(rows):
        copy[b, p + L + 1 : p + 2 * L] = True
    return ids, copy, rows


class Model(nn.Module):
    def __init__(self, d, heads, layers, pos_scale=1.0, emb_scale=0.1):
        super().__init__()
        self.h = heads
        self.E = nn.Embedding(VOCAB, d)
        if emb_scale != 1.0:
            self.E.weight.data *= emb_scale
        self.P = nn.Parameter(nn.Embedding(SEQ, d).weight.detach() * pos_scale)
        self.layers = nn.ModuleList()
        for _ in range(layers):
            m = nn.Module()
            m.q, m.k, m.v = (nn.Linear(d, d, bias=False) for _ in range(3))
            m.o = nn.Linear(d, d)
            self.layers.append(m)
        self.head = nn.Linear(d, VOCAB)

    def forward(self, ids):
        B, n = ids.shape
        x = self.E(ids) + self.P[:n]
        mask = torch.triu(torch.ones(n, n, dtype=torch.bool), 1)
        weights = []
        for m in self.layers:
            def split(t):
                return t.view(B, n, self.h, -1).transpose(1, 2)

            q, k, v = split(m.q(x)), split(m.k(x)), split(m.v(x))
            s = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
            w = s.masked_fill(mask, float('-inf')).softmax(-1)
            weights.append(w)
            x = x + m.o((w @ v).transpose(1, 2).reshape(B, n, -1))
        return self.head(x), weights


def head_scores(weights, rows):
    """[layers][heads] previous-token, induction and duplicate-token scores, averaged as the trainer does."""
    prev, ind, dup = [], [], []
    for w in weights:  # [B, H, n, n]
        n = w.shape[-1]
        i = torch.arange(1, n)
        prev.append(w[:, :, i, i - 1].mean(dim=(0, 2)).tolist())
        acc, acd = torch.zeros(w.shape[1]), torch.zeros(w.shape[1])
        cnt = 0
        for b, (_, p, L) in enumerate(rows):
            for t in range(p + L, p + 2 * L):  # a token of the second copy ...
                acc += w[b, :, t, t - L + 1]  # ... to the token after its earlier occurrence
                acd += w[b, :, t, t - L]  # ... to its earlier occurrence
                cnt += 1
        ind.append((acc / cnt).tolist())
        dup.append((acd / cnt).tolist())
    return prev, ind, dup


def r2(rows):
    return [[round(x, 2) for x in r] for r in rows]


def run(seed, heads, steps, d, log, pos_scale=1.0, emb_scale=0.1, lr=1e-2, wd=0.0, bs=32, held_n=512,
        every=50, warmup=0, after=0):
    torch.manual_seed(seed)
    model = Model(d, heads, 2, pos_scale, emb_scale)
    if wd:
        opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=wd)
    else:
        opt = torch.optim.Adam(model.parameters(), lr=lr)
    rng, held = random.Random(1000 + seed), random.Random(7)
    test_ids, test_copy, test_rows = batch(held, held_n)
    reached = None
    for s in range(1, steps + 1):
        if warmup:
            for g in opt.param_groups:
                g['lr'] = lr * min(1.0, s / warmup)
        ids, _, _ = batch(rng, bs)
        logits, _ = model(ids)
        loss = F.cross_entropy(logits[:, :-1].reshape(-1, VOCAB), ids[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if s % every == 0:
            with torch.no_grad():
                logits, w = model(test_ids)
                right = logits[:, :-1].argmax(-1) == test_ids[:, 1:]
                cp = test_copy[:, 1:]
                copy_acc = right[cp].float().mean().item()
                rest_acc = right[~cp].float().mean().item()
                prev, ind, dup = head_scores(w, test_rows)
                # layer 1's mean attention at offsets 0..3 (from i to i - k, rows i >= 3)
                off = [[w[0][:, h, torch.arange(3, SEQ), torch.arange(3, SEQ) - k].mean().item() for k in range(4)]
                       for h in range(w[0].shape[1])]
            if log:
                print(f'  step {s:5d} loss {loss.item():.3f} copy {copy_acc:.3f} rest {rest_acc:.3f} '
                      f'prev {r2(prev)} ind {r2(ind)} dup {r2(dup)} L1off {r2(off)}', flush=True)
            if copy_acc >= 0.9 and reached is None:
                reached = (s, copy_acc, prev, ind, dup)
            if reached is not None and s >= reached[0] + after:
                break
    return reached


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--seeds', default='0,1,2,3,4')
    ap.add_argument('--heads', type=int, default=2)
    ap.add_argument('--dmodel', type=int, default=32)
    ap.add_argument('--steps', type=int, default=3000)
    ap.add_argument('--log', action='store_true')
    ap.add_argument('--pos-scale', type=float, default=1.0)
    ap.add_argument('--emb-scale', type=float, default=0.1)
    ap.add_argument('--lr', type=float, default=1e-2)
    ap.add_argument('--wd', type=float, default=0.0, help='AdamW weight decay (0: Adam)')
    ap.add_argument('--batch', type=int, default=32)
    ap.add_argument('--seq', type=int, default=24)
    ap.add_argument('--data', choices=['unique', 'random'], default='unique')
    ap.add_argument('--seg-in-prefix', type=float, default=0.0)
    ap.add_argument('--seg-repeats', action='store_true')
    ap.add_argument('--held', type=int, default=512)
    ap.add_argument('--every', type=int, default=50)
    ap.add_argument('--warmup', type=int, default=0)
    ap.add_argument('--after', type=int, default=0, help='steps to keep training after reaching 90 %')
    a = ap.parse_args()
    global SEQ, DATA, SEG_IN_PREFIX, SEG_REPEATS
    SEQ, DATA, SEG_IN_PREFIX, SEG_REPEATS = a.seq, a.data, a.seg_in_prefix, a.seg_repeats
    torch.set_num_threads(1)
    for seed in map(int, a.seeds.split(',')):
        r = run(seed, a.heads, a.steps, a.dmodel, a.log, a.pos_scale, a.emb_scale, a.lr, a.wd, a.batch, a.held,
                a.every, a.warmup, a.after)
        if r is None:
            print(f'seed {seed}: copy accuracy < 0.9 after {a.steps} steps')
        else:
            s, acc, prev, ind, dup = r
            best = max(max(row) for row in ind[1:])
            print(f'seed {seed}: copy accuracy {acc:.3f} at step {s}; layer-2 induction score max {best:.2f}; '
                  f'previous-token {r2(prev)} induction {r2(ind)} duplicate-token {r2(dup)}')


if __name__ == '__main__':
    main()
