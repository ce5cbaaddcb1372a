#!/usr/bin/python3
"""Induction heads in PyTorch: the reference for the trainer's `induction` task (issue 26).

A 2-layer attention-only model of the trainer's shape (token embedding + learned positions at 0.1 of
nn.Embedding's scale, per layer Q/K/V projections without bias, heads, causal softmax, ·V, Wo + bo,
residual; a linear task head), trained with causal next-token cross-entropy on every position,
batch 32, Adam 1e-2 (constant). Every 50 steps: accuracy on the copyable tokens (the second copy after
its first token) and on the rest, and each head's previous-token and induction scores, on 512 held-out
sequences. Prints the step at which copy accuracy first reaches 90 %.

The data is the trainer's distribution (src/core/train_tasks.cpp, make_induction), drawn here with
Python's random: SEQ tokens from a vocabulary of VOCAB; a segment of L in [4, 8] distinct tokens appears
twice, the second copy right after the first, after a prefix of random length in [1, SEQ - 2L]; the
prefix avoids the segment's tokens (so the copy is unambiguous), the rest is uniform.

Run by hand (about a minute per seed on one core):
  /usr/bin/python3 bench/induction_torch.py [--seeds 0,1,2,3,4] [--heads 2] [--steps 3000] [--pos-scale 0.1]

Measured with torch 1.13 (copy accuracy >= 90 % at step; largest layer-2 induction score there):
  --heads 2 (the trainer's default): seed 0 at 1,800, 0.68.
  --heads 1: seed 0 at 900, 0.81; seed 1 at 2,050, 0.70.   --heads 4: seed 0 at 2,350, 0.77.
  --pos-scale 1: heads 2, seed 0 at 800, 0.78; seed 1 at 1,500, 0.83; heads 1, seed 0 at 450, 0.80.
In none of these runs is a layer-1 head a previous-token head (its score stays at or below 0.11): the model
takes the other route to an induction head. With one head a layer (or --pos-scale 1) layer 1 is a
duplicate-token head (each word of the second copy attends to its earlier copy: 0.77 for heads 1, seed 0)
and layer 2 attends to the position after it. The C++ trainer (bench/train_bench.mjs) learns the same way.
"""
import argparse
import math
import random

import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB, SEQ, LMIN, LMAX = 32, 24, 4, 8


def sequence(rng):
    L = rng.randint(LMIN, LMAX)
    p = rng.randint(1, SEQ - 2 * L)
    seg = rng.sample(range(VOCAB), L)
    others = [t for t in range(VOCAB) if t not in seg]
    ids = [rng.choice(others) for _ in range(p)] + seg + seg
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
    def __init__(self, d, heads, layers, pos_scale=0.1):
        super().__init__()
        self.h = heads
        self.E = nn.Embedding(VOCAB, d)
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


def run(seed, heads, steps, d, log, pos_scale=0.1):
    torch.manual_seed(seed)
    model = Model(d, heads, 2, pos_scale)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    rng, held = random.Random(1000 + seed), random.Random(7)
    test_ids, test_copy, test_rows = batch(held, 512)
    reached = None
    for s in range(1, steps + 1):
        ids, _, _ = batch(rng, 32)
        logits, _ = model(ids)
        loss = F.cross_entropy(logits[:, :-1].reshape(-1, VOCAB), ids[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if s % 50 == 0:
            with torch.no_grad():
                logits, w = model(test_ids)
                right = logits[:, :-1].argmax(-1) == test_ids[:, 1:]
                cp = test_copy[:, 1:]
                copy_acc = right[cp].float().mean().item()
                rest_acc = right[~cp].float().mean().item()
                prev, ind, dup = head_scores(w, test_rows)
            if log:
                print(f'  step {s:5d} loss {loss.item():.3f} copy {copy_acc:.3f} rest {rest_acc:.3f} '
                      f'prev {r2(prev)} ind {r2(ind)} dup {r2(dup)}')
            if copy_acc >= 0.9 and reached is None:
                reached = (s, copy_acc, prev, ind, dup)
                break
    return reached


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--seeds', default='0,1,2,3,4')
    ap.add_argument('--heads', type=int, default=2)
    ap.add_argument('--dmodel', type=int, default=32)
    ap.add_argument('--steps', type=int, default=3000)
    ap.add_argument('--log', action='store_true')
    ap.add_argument('--pos-scale', type=float, default=0.1)
    a = ap.parse_args()
    torch.set_num_threads(1)
    for seed in map(int, a.seeds.split(',')):
        r = run(seed, a.heads, a.steps, a.dmodel, a.log, a.pos_scale)
        if r is None:
            print(f'seed {seed}: copy accuracy < 0.9 after {a.steps} steps')
        else:
            s, acc, prev, ind, dup = r
            best = max(max(row) for row in ind[1:])
            print(f'seed {seed}: copy accuracy {acc:.3f} at step {s}; layer-2 induction score max {best:.2f}; '
                  f'previous-token {r2(prev)} induction {r2(ind)} duplicate-token {r2(dup)}')


if __name__ == '__main__':
    main()
