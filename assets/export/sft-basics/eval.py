"""sft-basics' held-out metric: exact match of greedy answers on the held-out pairs.

Exported by agentlab from drill {{DRILL}} (preset {{PRESET}}, seed {{SEED}}).
As the drill's evaluate phase: the {{HOLDOUT}} pairs of data/test.jsonl (never in a
training batch), greedy decoding of at most 4 tokens, right when the answer and its
end token are exactly the target.

    python eval.py out/sft [start]
"""

import json
import os
import sys

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

HERE = os.path.dirname(os.path.abspath(__file__))


def accuracy(path, rows):
    tok = AutoTokenizer.from_pretrained(path)
    model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32).eval()
    right = 0
    for i in range(0, len(rows), 256):
        chunk = rows[i : i + 256]
        # Every prompt is 6 characters: a batch needs no padding.
        ids = torch.tensor([tok(r["prompt"])["input_ids"] for r in chunk])
        with torch.no_grad():
            out = model.generate(ids, do_sample=False, max_new_tokens=4, eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id)
        for r, o in zip(chunk, out[:, ids.shape[1] :].tolist()):
            want = tok(r["completion"])["input_ids"] + [tok.eos_token_id]
            right += o[: len(want)] == want
    return right / len(rows)


if __name__ == "__main__":
    rows = [json.loads(l) for l in open(os.path.join(HERE, "data/test.jsonl"))]
    for path in sys.argv[1:] or [os.path.join(HERE, "out/sft")]:
        print(f"{path}: held-out exact match {accuracy(path, rows):.3f} on {len(rows)} pairs")
