#!/usr/bin/env python3
"""agentlab against PyTorch eager, in one alternating series.

Run by hand, never by the tests (needs `pip install torch numpy`):

    python3 bench/compare.py [--pairs 3] [--threads 2] [--seconds 8] [--bin target/release/agentlab]

For each config (S, M) it runs, `--pairs` times and alternating,

* `agentlab bench --only S --json` and `bench/pytorch_bench.py --config S --json`
  (training tokens/s: forward + backward + AdamW, same shapes and data sizes);
* `agentlab bench --only gen-S` and `bench/pytorch_bench.py --config S --generate`
  (greedy generation with the KV cache, 8 prompts of 16 tokens, 48 new tokens),

so that a machine that slows down or speeds up over the series moves both
sides alike. It prints every run, then per config the median of the
per-pair ratios (agentlab / PyTorch) and both sides' peak RSS, as a
Markdown table; `--json` prints the same as JSON.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def run_json(cmd, env):
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    # pytorch_bench.py prints one object per line for --generate; the tiny configs give one.
    return json.loads(out.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=8.0)
    ap.add_argument("--configs", default="S,M")
    ap.add_argument("--bin", default=os.path.join(HERE, "..", "target", "release", "agentlab"))
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    env = dict(os.environ, RAYON_NUM_THREADS=str(a.threads))
    rows = []
    for cfg in a.configs.split(","):
        for kind in ("train", "generate"):
            pairs = []
            for i in range(a.pairs):
                if kind == "train":
                    ours = run_json([a.bin, "bench", "--only", cfg, "--seconds", str(a.seconds)], env)
                    theirs = run_json([sys.executable, os.path.join(HERE, "pytorch_bench.py"), "--config", cfg,
                                       "--threads", str(a.threads), "--seconds", str(a.seconds), "--json"], env)
                    key = "tokens_per_s"
                else:
                    ours = run_json([a.bin, "bench", "--only", f"gen-{cfg}"], env)
                    theirs = run_json([sys.executable, os.path.join(HERE, "pytorch_bench.py"), "--config", cfg,
                                       "--threads", str(a.threads), "--generate", "--json"], env)
                    key = "cached_tokens_per_s"
                pair = dict(ours=ours[key], pytorch=theirs[key], ratio=ours[key] / theirs[key],
                            ours_rss=ours.get("peak_rss_mb"), pytorch_rss=theirs.get("peak_rss_mb"))
                pairs.append(pair)
                if not a.json:
                    print(f"{cfg} {kind} pair {i + 1}: agentlab {pair['ours']:.0f} · PyTorch {pair['pytorch']:.0f} tokens/s"
                          f" · ratio {pair['ratio']:.2f}", file=sys.stderr, flush=True)
            rows.append(dict(config=cfg, kind=kind, pairs=pairs,
                             median_ours=statistics.median(p["ours"] for p in pairs),
                             median_pytorch=statistics.median(p["pytorch"] for p in pairs),
                             median_ratio=statistics.median(p["ratio"] for p in pairs)))
    if a.json:
        print(json.dumps(dict(threads=a.threads, rows=rows), indent=2))
        return
    print(f"| config | what | agentlab tokens/s | PyTorch tokens/s | median ratio | peak RSS MB (agentlab / PyTorch) |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        rss = [(p["ours_rss"], p["pytorch_rss"]) for p in r["pairs"] if p["ours_rss"] is not None]
        rss_s = f"{max(o for o, _ in rss):.0f} / {max(t for _, t in rss):.0f}" if rss else "–"
        what = "training" if r["kind"] == "train" else "generation (KV cache)"
        print(f"| {r['config']} | {what} | {r['median_ours']:.0f} | {r['median_pytorch']:.0f} | {r['median_ratio']:.2f}× | {rss_s} |")


if __name__ == "__main__":
    main()
