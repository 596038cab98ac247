"""self-refine-loop's STaR metric: the first-draft pass rate on the held-out problems.

Exported by agentlab from drill {{DRILL}} (preset {{PRESET}}, seed {{SEED}}).
As the drill measures it around its STaR rounds: each of the {{TEST_SIZE}} held-out problems
of data/test.jsonl (never in a training batch), a greedy draft of at most {{MAX_NEW}} tokens
ended by the end token; it passes when it is exactly the sum, least significant digit first.

    python eval.py out/star sft after-star
    python eval.py --check      # sft/ and after-star/ write every draft as agentlab did
"""

import argparse
import json
import os
import sys

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

HERE = os.path.dirname(os.path.abspath(__file__))
MAX_NEW = {{MAX_NEW}}  # the answer's digits and its end token


def drafts(path, rows):
    tok = AutoTokenizer.from_pretrained(path)
    model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32).eval()
    ids = torch.tensor([tok(r["prompt"])["input_ids"] for r in rows])  # same length: no padding
    with torch.no_grad():
        out = model.generate(ids, do_sample=False, max_new_tokens=MAX_NEW, eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id)
    return [tok.decode(o, skip_special_tokens=True) for o in out[:, ids.shape[1] :].tolist()]


def pass_rate(texts, rows):
    return sum(t == r["answer"] for t, r in zip(texts, rows)) / len(rows)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("models", nargs="*")
    ap.add_argument("--check", action="store_true", help="compare the exported models' drafts with eval_parity.json")
    args = ap.parse_args()
    rows = [json.loads(l) for l in open(os.path.join(HERE, "data/test.jsonl"))]
    if not args.check:
        for path in args.models or [os.path.join(HERE, "out/star")]:
            print(f"{path}: first-draft pass rate {pass_rate(drafts(path, rows), rows):.3f} on {len(rows)} held-out problems")
        sys.exit(0)
    want = json.load(open(os.path.join(HERE, "eval_parity.json")))["models"]
    differ = 0
    for name, ours in want.items():
        texts = drafts(os.path.join(HERE, name), rows)
        same = sum(a == b for a, b in zip(texts, ours["drafts"]))
        differ += len(rows) - same
        print(f"{name}: first-draft pass rate {pass_rate(texts, rows):.3f} here, {ours['pass_rate']:.3f} in agentlab; {same}/{len(rows)} drafts identical")
    sys.exit(0 if differ == 0 else 1)
