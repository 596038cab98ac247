"""dpo-pairs' held-out metrics, as the drill's evaluate phase.

Exported by agentlab from drill {{DRILL}} (preset {{PRESET}}, seed {{SEED}}).
On the run's {{TEST_SIZE}} held-out problems (data/heldout.jsonl): the pass rate of
{{EVAL_SAMPLES}} answers each sampled at temperature {{TEMPERATURE}}, and of the greedy
answer (right = exactly the sum, least significant digit first). With a reference
(--ref, default sft/): the held-out pairs' (data/test.jsonl) implicit-reward accuracy
at beta {{BETA}}: the share of pairs where log pi/pi_ref is higher for the chosen answer.

    python eval.py sft out/dpo out/sft-on-chosen
"""

import argparse
import json
import os

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

HERE = os.path.dirname(os.path.abspath(__file__))
MAX_NEW = {{MAX_NEW}}  # the answer's digits and its end token


def load(path):
    return AutoTokenizer.from_pretrained(path), AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32).eval()


def answers(tok, model, prompts, sample):
    ids = torch.tensor([tok(p)["input_ids"] for p in prompts])  # same length: no padding
    with torch.no_grad():
        how = dict(do_sample=True, temperature={{TEMPERATURE}}, top_k=0) if sample else dict(do_sample=False)
        out = model.generate(ids, max_new_tokens=MAX_NEW, eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id, **how)
    return [tok.decode(o, skip_special_tokens=True) for o in out[:, ids.shape[1]:].tolist()]


def logps(tok, model, rows, key):
    total = []
    for r in rows:
        p, a = tok(r["prompt"])["input_ids"], tok(r[key])["input_ids"] + [tok.eos_token_id]
        ids = torch.tensor([p + a])
        with torch.no_grad():
            lp = model(ids).logits[0, :-1].log_softmax(-1).gather(1, ids[0, 1:, None])[:, 0]
        total.append(lp[len(p) - 1:].sum().item())
    return torch.tensor(total)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("models", nargs="+")
    ap.add_argument("--ref", default=os.path.join(HERE, "sft"))
    a = ap.parse_args()
    torch.manual_seed({{SEED}})
    probs = [json.loads(l) for l in open(os.path.join(HERE, "data/heldout.jsonl"))]
    pairs = [json.loads(l) for l in open(os.path.join(HERE, "data/test.jsonl"))]
    rtok, ref = load(a.ref)
    rc, rr = logps(rtok, ref, pairs, "chosen"), logps(rtok, ref, pairs, "rejected")
    for path in a.models:
        tok, model = load(path)
        prompts = [q["prompt"] for q in probs for _ in range({{EVAL_SAMPLES}})]
        golds = [q["answer"] for q in probs for _ in range({{EVAL_SAMPLES}})]
        sampled = sum(x == g for x, g in zip(answers(tok, model, prompts, True), golds)) / len(golds)
        greedy = sum(x == q["answer"] for x, q in zip(answers(tok, model, [q["prompt"] for q in probs], False), probs)) / len(probs)
        margin = (logps(tok, model, pairs, "chosen") - rc) - (logps(tok, model, pairs, "rejected") - rr)
        print(f"{path}: pass rate {sampled:.3f} (sampled), {greedy:.3f} (greedy); held-out reward accuracy {(margin > 0).float().mean().item():.3f} on {len(pairs)} pairs")
