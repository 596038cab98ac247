#!/usr/bin/env python3
"""The agentlab bench configs in PyTorch (CPU eager), for side-by-side numbers.

Run by hand, never by the tests:

    python3 bench/pytorch_bench.py --config S --threads 2 [--seconds 8] [--json]
    python3 bench/pytorch_bench.py --config S --generate
    python3 bench/pytorch_bench.py --config L --device cuda [--generate]   # on a GPU (scripts/gpu-check.sh)

Same model as src/ml/gpt.rs (learned positions, pre-norm LayerNorm eps 1e-5,
fused QKV with bias, exact GELU MLP 4d, tied LM head, GPT-2 init), same data
shapes (random tokens, every position a target), same AdamW (lr 1e-3,
betas 0.9/0.95, eps 1e-8, weight decay 0.01 on matrices only).

With --model PATH.gguf it runs a real model instead: SmolLM2-135M-Instruct
(llama architecture; every tensor dequantized to f32 with the `gguf` package;
extra packages: gguf, tokenizers, numpy):

    python3 bench/pytorch_bench.py --model M.gguf --check               # Paris + logits
    python3 bench/pytorch_bench.py --model M.gguf --threads 2 [--seconds 8] [--json]
    python3 bench/pytorch_bench.py --model M.gguf --generate [--batch 1|8] [--json]

Model: everything from the GGUF metadata (30 blocks, d 576, 9 query heads,
3 KV heads, head dim 64, SwiGLU FFN 1536, RMSNorm eps
llama.attention.layer_norm_rms_epsilon, RoPE base llama.rope.freq_base, LM
head tied to token_embd). The GGUF stores attn_q/attn_k rows permuted for
the interleaved RoPE convention; they are un-permuted back to the Hugging
Face layout and RoPE is rotate-half (as src/ml/llama.rs does). Attention is
explicit matmul + masked softmax (no SDPA), K/V heads repeated for GQA.

Shapes, the same as `agentlab bench --model`:
* --check: the ChatML prompt (system "You are a helpful AI assistant named
  SmolLM, trained by Hugging Face", user "What is the capital of France?",
  then "<|im_start|>assistant\n"), tokenized with a byte-level BPE built from
  the GGUF vocabulary/merges; prints the prompt ids, the first 5 logits at the
  last position and the greedy answer (up to <|im_end|> or 64 tokens).
* training (config "smollm2-lora"): batch 4 x 64 random token ids (seeded;
  4 x 65 drawn, inputs [:, :-1], targets [:, 1:], every position a target,
  mean cross-entropy), f32, base frozen, LoRA rank 8 alpha 16 on q_proj and
  v_proj of all 30 layers (y += (alpha/r) * x A^T B^T, A [r, in] ~ normal with
  std 1/sqrt(r), i.e. variance 1/r, B [out, r] = 0), AdamW on the adapters
  only (lr 1e-4, betas 0.9/0.95, eps 1e-8, weight decay 0). 2 warm-up steps,
  then steps for --seconds (at least 5); tokens_per_s = 4*64 / median step
  time (step_ms_min too, a hint when the machine was busy); peak_rss_mb is
  the process's max RSS (loading and dequantizing included).
* generation (configs "smollm2-gen-b1", "smollm2-gen-b8"): greedy, a prompt of
  32 random token ids (seeded), 64 new tokens, batch 1 and 8, eager loop with
  a per-layer K/V cache grown by torch.cat; one warm-up run, then runs for two
  seconds (at least 3), cached_tokens_per_s = batch*64 / median run time
  (prefill included). No uncached number for the real model. One JSON object
  per line, one line per batch size.
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
    # The GPU-only config of `agentlab bench` (src/bench.rs, config_l).
    "L": dict(vocab=64, d=512, layers=8, heads=8, ctx=256, batch=32),
}
DEVICE = torch.device("cpu")


def _sync():
    if DEVICE.type == "cuda":
        torch.cuda.synchronize()


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
        mask = torch.ones(t, s, dtype=torch.bool, device=x.device).tril(diagonal=s - t)
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
        x = self.wte(idx) + self.wpe(torch.arange(start, start + t, device=idx.device))
        for i, blk in enumerate(self.blocks):
            x = blk(x, None if caches is None else caches[i])
        return self.ln_f(x) @ self.wte.weight.t()


def train(cfg, seconds):
    torch.manual_seed(1)
    m = Gpt(cfg["vocab"], cfg["d"], cfg["layers"], cfg["heads"], cfg["ctx"]).to(DEVICE)
    decay = [p for p in m.parameters() if p.dim() >= 2]
    rest = [p for p in m.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01}, {"params": rest, "weight_decay": 0.0}], lr=1e-3, betas=(0.9, 0.95), eps=1e-8)
    b, t = cfg["batch"], cfg["ctx"]
    data = torch.randint(0, cfg["vocab"], (b, t + 1)).to(DEVICE)
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
    return dict(config=cfg_name, device=str(DEVICE), params=params, tokens_per_step=b * t, steps=len(times), step_ms_median=statistics.median(times) * 1e3,
                tokens_per_s=b * t * len(times) / sum(times), peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


@torch.no_grad()
def generate(cfg):
    torch.manual_seed(1)
    m = Gpt(cfg["vocab"], cfg["d"], cfg["layers"], cfg["heads"], cfg["ctx"]).to(DEVICE).eval()
    batch, prompt = 8, 16
    new = min(cfg["ctx"] - prompt, 48)
    idx = torch.randint(0, cfg["vocab"], (batch, prompt)).to(DEVICE)

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
        _sync()
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
    return dict(config=cfg_name, device=str(DEVICE), batch=batch, prompt=prompt, new_tokens=new, cached_tokens_per_s=rates["cached"], uncached_tokens_per_s=rates["uncached"])


# ---- SmolLM2-135M from a GGUF (--model) ----------------------------------

LORA_RANK, LORA_ALPHA = 8, 16.0
FRANCE_PROMPT = ("<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n"
                 "<|im_start|>user\nWhat is the capital of France?<|im_end|>\n<|im_start|>assistant\n")


def _field(reader, key):
    return reader.fields[key].contents()


def _unpermute(w, heads):
    # llama.cpp's converter: w.reshape(heads, 2, hd/2, in).swapaxes(1, 2); undo it.
    out, inp = w.shape
    return w.reshape(heads, out // heads // 2, 2, inp).transpose(1, 2).reshape(out, inp)


class Llama:
    """Plain-tensor llama forward; LoRA adapters on q and v when given."""

    def __init__(self, path):
        import gguf

        r = gguf.GGUFReader(path)
        arch = _field(r, "general.architecture")
        g = lambda k: _field(r, f"{arch}.{k}")
        self.layers, self.d = int(g("block_count")), int(g("embedding_length"))
        self.heads, self.kv_heads = int(g("attention.head_count")), int(g("attention.head_count_kv"))
        self.hd = self.d // self.heads
        self.eps = float(g("attention.layer_norm_rms_epsilon"))
        self.theta = float(g("rope.freq_base"))
        self.reader = r
        w = {}
        for t in r.tensors:
            a = gguf.quants.dequantize(t.data, t.tensor_type).astype("float32")
            w[t.name] = torch.from_numpy(a.reshape([int(x) for x in reversed(t.shape)]).copy())
        for i in range(self.layers):
            w[f"blk.{i}.attn_q.weight"] = _unpermute(w[f"blk.{i}.attn_q.weight"], self.heads).contiguous()
            w[f"blk.{i}.attn_k.weight"] = _unpermute(w[f"blk.{i}.attn_k.weight"], self.kv_heads).contiguous()
        self.w = w
        self.emb = w["token_embd.weight"]
        self.head = w.get("output.weight", self.emb)
        self.vocab = self.emb.shape[0]
        self.params = sum(v.numel() for k, v in w.items() if k != "output.weight" or self.head is not self.emb)
        self.lora = None
        self.inv_freq = 1.0 / self.theta ** (torch.arange(0, self.hd, 2, dtype=torch.float64) / self.hd)

    def add_lora(self, gen):
        self.lora = []
        for i in range(self.layers):
            lay = {}
            for name in ("attn_q", "attn_v"):
                out, inp = self.w[f"blk.{i}.{name}.weight"].shape
                a = (torch.randn(LORA_RANK, inp, generator=gen) / math.sqrt(LORA_RANK)).requires_grad_()
                b = torch.zeros(out, LORA_RANK, requires_grad=True)
                lay[name] = (a, b)
            self.lora.append(lay)
        return [p for lay in self.lora for ab in lay.values() for p in ab]

    def _norm(self, x, wt):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * wt

    def _proj(self, x, i, name):
        y = x @ self.w[f"blk.{i}.{name}.weight"].t()
        if self.lora is not None and name in self.lora[i]:
            a, b = self.lora[i][name]
            y = y + (LORA_ALPHA / LORA_RANK) * ((x @ a.t()) @ b.t())
        return y

    def _rope(self, x, cos, sin):
        x1, x2 = x[..., : self.hd // 2], x[..., self.hd // 2:]
        return x * cos + torch.cat([-x2, x1], -1) * sin

    def forward(self, idx, caches=None, start=0):
        bsz, t = idx.shape
        ang = torch.arange(start, start + t, dtype=torch.float64)[:, None] * self.inv_freq[None]
        ang = torch.cat([ang, ang], -1)
        cos, sin = ang.cos().float(), ang.sin().float()
        x = self.emb[idx]
        rep = self.heads // self.kv_heads
        for i in range(self.layers):
            h = self._norm(x, self.w[f"blk.{i}.attn_norm.weight"])
            q = self._proj(h, i, "attn_q").view(bsz, t, self.heads, self.hd).transpose(1, 2)
            k = self._proj(h, i, "attn_k").view(bsz, t, self.kv_heads, self.hd).transpose(1, 2)
            v = self._proj(h, i, "attn_v").view(bsz, t, self.kv_heads, self.hd).transpose(1, 2)
            q, k = self._rope(q, cos, sin), self._rope(k, cos, sin)
            if caches is not None:
                c = caches[i]
                if c[0] is not None:
                    k = torch.cat([c[0], k], 2)
                    v = torch.cat([c[1], v], 2)
                c[0], c[1] = k, v
            s = k.shape[2]
            k, v = k.repeat_interleave(rep, 1), v.repeat_interleave(rep, 1)
            att = (q @ k.transpose(-2, -1)) / math.sqrt(self.hd)
            if t > 1:
                mask = torch.ones(t, s, dtype=torch.bool, device=x.device).tril(diagonal=s - t)
                att = att.masked_fill(~mask, float("-inf"))
            y = (att.softmax(-1) @ v).transpose(1, 2).reshape(bsz, t, self.d)
            x = x + self._proj(y, i, "attn_output")
            h = self._norm(x, self.w[f"blk.{i}.ffn_norm.weight"])
            ff = F.silu(self._proj(h, i, "ffn_gate")) * self._proj(h, i, "ffn_up")
            x = x + self._proj(ff, i, "ffn_down")
        return self._norm(x, self.w["output_norm.weight"]) @ self.head.t()

    def greedy(self, idx, new, stop=None):
        caches = [[None, None] for _ in range(self.layers)]
        logits = self.forward(idx, caches, 0)
        out, pos = [], idx.shape[1]
        for _ in range(new):
            nxt = logits[:, -1].argmax(-1, keepdim=True)
            out.append(nxt)
            if stop is not None and idx.shape[0] == 1 and nxt.item() == stop:
                break
            logits = self.forward(nxt, caches, pos)
            pos += 1
        return torch.cat(out, 1)


def gguf_tokenizer(reader):
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers

    tokens = [str(x) for x in _field(reader, "tokenizer.ggml.tokens")]
    merges = [tuple(str(m).split(" ", 1)) for m in _field(reader, "tokenizer.ggml.merges")]
    types = list(_field(reader, "tokenizer.ggml.token_type"))
    tok = Tokenizer(models.BPE(vocab={t: i for i, t in enumerate(tokens)}, merges=merges))
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Digits(individual_digits=True),
                                                 pre_tokenizers.ByteLevel(add_prefix_space=False)])
    tok.decoder = decoders.ByteLevel()
    tok.add_special_tokens([AddedToken(t, special=True, normalized=False) for t, ty in zip(tokens, types) if int(ty) == 3])
    return tok


@torch.no_grad()
def model_check(path):
    m = Llama(path)
    tok = gguf_tokenizer(m.reader)
    ids = tok.encode(FRANCE_PROMPT).ids
    idx = torch.tensor([ids])
    last = m.forward(idx)[0, -1]
    eos = tok.token_to_id("<|im_end|>")
    ans = m.greedy(idx, 64, stop=eos)[0].tolist()
    return dict(config="smollm2-check", prompt_ids=ids, last_logits_first5=[round(v, 5) for v in last[:5].tolist()],
                last_argmax=int(last.argmax()), answer_ids=ans, answer=tok.decode(ans, skip_special_tokens=False))


def model_train(path, seconds):
    m = Llama(path)
    gen = torch.Generator().manual_seed(1)
    adapters = m.add_lora(gen)
    opt = torch.optim.AdamW(adapters, lr=1e-4, betas=(0.9, 0.95), eps=1e-8, weight_decay=0.0)
    b, t = 4, 64
    data = torch.randint(0, m.vocab, (b, t + 1), generator=gen)
    x, y = data[:, :-1], data[:, 1:]

    def step():
        logits = m.forward(x)
        loss = F.cross_entropy(logits.reshape(-1, m.vocab), y.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        return loss.item()

    first = step()
    step()
    times = []
    start = time.perf_counter()
    while time.perf_counter() - start < seconds or len(times) < 5:
        s = time.perf_counter()
        last = step()
        times.append(time.perf_counter() - s)
    med = statistics.median(times)
    return dict(config="smollm2-lora", params=m.params, trainable_params=sum(p.numel() for p in adapters), tokens_per_step=b * t,
                steps=len(times), step_ms_median=med * 1e3, step_ms_min=min(times) * 1e3, tokens_per_s=b * t / med, first_loss=first, last_loss=last,
                peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


@torch.no_grad()
def model_generate(path, batches):
    m = Llama(path)
    prompt, new = 32, 64
    rows = []
    for batch in batches:
        idx = torch.randint(0, m.vocab, (batch, prompt), generator=torch.Generator().manual_seed(1))
        m.greedy(idx, new)
        ts = []
        start = time.perf_counter()
        while time.perf_counter() - start < 2.0 or len(ts) < 3:
            s = time.perf_counter()
            m.greedy(idx, new)
            ts.append(time.perf_counter() - s)
        rows.append(dict(config=f"smollm2-gen-b{batch}", batch=batch, prompt=prompt, new_tokens=new, runs=len(ts),
                         cached_tokens_per_s=batch * new / statistics.median(ts),
                         peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))
    return rows


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="S", choices=sorted(CONFIGS))
    ap.add_argument("--model", help="a SmolLM2 (llama) GGUF: bench it instead of --config")
    ap.add_argument("--check", action="store_true", help="with --model: France prompt, first logits, greedy answer")
    ap.add_argument("--batch", type=int, choices=(1, 8), help="with --model --generate: only this batch size")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=8.0)
    ap.add_argument("--generate", action="store_true")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--device", default="cpu", choices=("cpu", "cuda"), help="the tiny configs only")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    DEVICE = torch.device(a.device)
    if a.model:
        if a.check:
            rs = [model_check(a.model)]
        elif a.generate:
            rs = model_generate(a.model, [a.batch] if a.batch else [1, 8])
        else:
            rs = [model_train(a.model, a.seconds)]
        for r in rs:
            print(json.dumps(r) if a.json else r)
    else:
        cfg_name = a.config
        r = generate(CONFIGS[a.config]) if a.generate else train(CONFIGS[a.config], a.seconds)
        print(json.dumps(r) if a.json else r)
