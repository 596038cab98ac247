"""grpo-rlvr's held-out metric on the run's own held-out problems (data/test.jsonl).

Exported by agentlab from drill {{DRILL}} (preset {{PRESET}}, seed {{SEED}}).
As the drill's evaluate phase: 2 samples per problem at the drill's `temperature`
({{TEMPERATURE}}), at most `max_new` ({{MAX_NEW}}) new tokens, each scored by both
verifiers. Prints, per checkpoint: exact (true) accuracy, lenient reward, the gap
(lenient - exact, the hacking detector), the hedged share, the mean length in
characters, and exact accuracy among completions that commit to one answer.

    python eval.py out/warm-start out/sound out/proxy
"""

import json
import os
import sys

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

import rewards

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLES, MAX_NEW, TEMPERATURE = 2, {{MAX_NEW}}, {{TEMPERATURE}}


def evaluate(path, rows, seed={{SEED}}):
    tok = AutoTokenizer.from_pretrained(path)
    model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32).eval()
    torch.manual_seed(seed)
    texts, verdicts = [], []
    for r in rows:
        if isinstance(r["prompt"], list):
            ids = tok.apply_chat_template(r["prompt"], add_generation_prompt=True, return_dict=True, return_tensors="pt")["input_ids"]
        else:
            ids = tok(r["prompt"], return_tensors="pt")["input_ids"]
        with torch.no_grad():
            out = model.generate(
                ids, do_sample=True, temperature=TEMPERATURE, top_k=0, top_p=1.0, max_new_tokens=MAX_NEW,
                num_return_sequences=SAMPLES, pad_token_id=tok.pad_token_id, eos_token_id=tok.eos_token_id,
            )
        for o in out:
            text = rewards.read(tok.decode(o[ids.shape[1]:], skip_special_tokens=True))
            texts.append(text)
            verdicts.append(rewards.judge(text, r["ground_truth"]))
    n = max(len(texts), 1)
    share = lambda k: sum(v[k] for v in verdicts) / n
    committed = [v for v in verdicts if not v["hedged"]]
    return {
        "exact": share("exact"),
        "lenient": share("lenient"),
        "gap": share("lenient") - share("exact"),
        "hedged": share("hedged"),
        "length": sum(len(t) for t in texts) / n,
        "committed": sum(v["exact"] for v in committed) / max(len(committed), 1),
        "samples": len(texts),
    }


if __name__ == "__main__":
    with open(os.path.join(HERE, "data/test.jsonl"), encoding="utf-8") as f:
        rows = [json.loads(l) for l in f]
    for path in sys.argv[1:] or [os.path.join(HERE, "out", a) for a in ("warm-start", "sound", "proxy")]:
        print(path, json.dumps(evaluate(path, rows)))
