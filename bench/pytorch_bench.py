#!/usr/bin/env python3
"""The agentlab bench configs in PyTorch (CPU eager), for side-by-side numbers.

Run by hand, never by the tests:

    python3 bench/pytorch_bench.py --config S --threads 2 [--seconds 8] [--json]
    python3 bench/pytorch_bench.py --config S --generate

Same model as src/ml/gpt.rs (learned positions, pre-norm LayerNorm eps 1e-5,
fused QKV with bias, exact GELU MLP 4d, tied LM head, GPT-2 init), same data
shapes (random tokens, every position a target), same AdamW (lr 1e-3,
betas 0.9/0.95, eps 1e-8, weight decay 0.01 on matrices only).
"""
import argparse
import json
import math
import resource
import statistics
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

CONFIGS = {
    "S": dict(vocab=64, d=128, layers=2, heads=4, ctx=64, batch=32),
    "M": dict(vocab=64, d=256, layers=4, heads=8, ctx=128, batch=16),
}


class Block(nn.Module):
    def __init__(self, d, heads, layers):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d, eps=1e-5)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d, eps=1e-5)
        self.fc = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)
        for lin, std in [(self.qkv, 0.02), (self.proj, 0.02 / math.sqrt(2 * layers)), (self.fc, 0.02), (self.fc2, 0.02 / math.sqrt(2 * layers))]:
            nn.init.normal_(lin.weight, std=std)
            nn.init.zeros_(lin.bias)

    def attn(self, x, cache=None):
        b, t, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=2)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        if cache is not None:
            if cache[0] is not None:
                k = torch.cat([cache[0], k], 2)
                v = torch.cat([cache[1], v], 2)
            cache[0], cache[1] = k, v
        s = k.shape[2]
        att = (q @ k.transpose(-2, -1)) / math.sqrt(d // self.heads)
        mask = torch.ones(t, s, dtype=torch.bool).tril(diagonal=s - t)
        att = att.masked_fill(~mask, float("-inf")).softmax(-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, d)
        return self.proj(y)

    def forward(self, x, cache=None):
        x = x + self.attn(self.ln1(x), cache)
        return x + self.fc2(F.gelu(self.fc(self.ln2(x))))


class Gpt(nn.Module):
    def __init__(self, vocab, d, layers, heads, ctx):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(ctx, d)
        nn.init.normal_(self.wte.weight, std=0.02)
        nn.init.normal_(self.wpe.weight, std=0.02)
        self.blocks = nn.ModuleList(Block(d, heads, layers) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d, eps=1e-5)

    def forward(self, idx, caches=None, start=0):
        t = idx.shape[1]
        x = self.wte(idx) + self.wpe(torch.arange(start, start + t))
        for i, blk in enumerate(self.blocks):
            x = blk(x, None if caches is None else caches[i])
        return self.ln_f(x) @ self.wte.weight.t()


def train(cfg, seconds):
    torch.manual_seed(1)
    m = Gpt(cfg["vocab"], cfg["d"], cfg["layers"], cfg["heads"], cfg["ctx"])
    decay = [p for p in m.parameters() if p.dim() >= 2]
    rest = [p for p in m.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01}, {"params": rest, "weight_decay": 0.0}], lr=1e-3, betas=(0.9, 0.95), eps=1e-8)
    b, t = cfg["batch"], cfg["ctx"]
    data = torch.randint(0, cfg["vocab"], (b, t + 1))
    x, y = data[:, :-1], data[:, 1:]

    def step():
        logits = m(x)
        loss = F.cross_entropy(logits.reshape(-1, cfg["vocab"]), y.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        return loss.item()

    for _ in range(3):
        step()
    times = []
    start = time.perf_counter()
    while time.perf_counter() - start < seconds or len(times) < 5:
        s = time.perf_counter()
        step()
        times.append(time.perf_counter() - s)
    params = sum(p.numel() for p in m.parameters())
    return dict(config=cfg_name, params=params, tokens_per_step=b * t, steps=len(times), step_ms_median=statistics.median(times) * 1e3,
                tokens_per_s=b * t * len(times) / sum(times), peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


@torch.no_grad()
def generate(cfg):
    torch.manual_seed(1)
    m = Gpt(cfg["vocab"], cfg["d"], cfg["layers"], cfg["heads"], cfg["ctx"]).eval()
    batch, prompt = 8, 16
    new = min(cfg["ctx"] - prompt, 48)
    idx = torch.randint(0, cfg["vocab"], (batch, prompt))

    def run(use_cache):
        if use_cache:
            caches = [[None, None] for _ in m.blocks]
            logits = m(idx, caches, 0)
            out = idx
            for i in range(new):
                nxt = logits[:, -1].argmax(-1, keepdim=True)
                out = torch.cat([out, nxt], 1)
                logits = m(nxt, caches, prompt + i)
        else:
            out = idx
            for _ in range(new):
                nxt = m(out)[:, -1].argmax(-1, keepdim=True)
                out = torch.cat([out, nxt], 1)
        return out

    rates = {}
    for use_cache in (True, False):
        run(use_cache)
        # Runs are short: repeat for two seconds (at least five) and take the median.
        ts = []
        start = time.perf_counter()
        while time.perf_counter() - start < 2.0 or len(ts) < 5:
            s = time.perf_counter()
            run(use_cache)
            ts.append(time.perf_counter() - s)
        rates["cached" if use_cache else "uncached"] = batch * new / statistics.median(ts)
    return dict(config=cfg_name, batch=batch, prompt=prompt, new_tokens=new, cached_tokens_per_s=rates["cached"], uncached_tokens_per_s=rates["uncached"])


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="S", choices=sorted(CONFIGS))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=8.0)
    ap.add_argument("--generate", action="store_true")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    cfg_name = a.config
    r = generate(CONFIGS[a.config]) if a.generate else train(CONFIGS[a.config], a.seconds)
    print(json.dumps(r) if a.json else r)
