"""The DPO loss in PyTorch and in TRL equals agentlab's (loss_parity.json).

Exported by agentlab from drill {{DRILL}} (preset {{PRESET}}, seed {{SEED}}).
For the first training pairs, with the run's DPO policy (dpo/) and its reference
(sft/): the tokens TRL trains on are the drill's; the loss written out in plain
PyTorch (summed log-probs of each answer and its end token, then the drill's loss)
and the loss TRL's DPOTrainer computes on the same batch both equal agentlab's
`rl::dpo::dpo_loss` within 1e-4 relative.

    python check_loss.py
"""

import json
import os
import sys
import tempfile

import torch
import torch.nn.functional as F
from datasets import Dataset
from transformers import AutoModelForCausalLM, AutoTokenizer

import train

HERE = os.path.dirname(os.path.abspath(__file__))
p = json.load(open(os.path.join(HERE, "loss_parity.json")))
beta, kind = p["beta"], p["loss_type"]
tok = AutoTokenizer.from_pretrained(os.path.join(HERE, "sft"))
policy, ref = (AutoModelForCausalLM.from_pretrained(os.path.join(HERE, d), dtype=torch.float32).eval() for d in ("dpo", "sft"))


def seq_logp(model, prompt, answer):
    ids = torch.tensor([prompt + answer])
    with torch.no_grad():
        lp = model(ids).logits[0, :-1].log_softmax(-1).gather(1, ids[0, 1:, None])[:, 0]
    return lp[len(prompt) - 1:].sum()


same, lp = True, {k: [] for k in ("pc", "pr", "rc", "rr")}
for row, t in zip(p["pairs"], p["tokens"]):
    prompt = tok(row["prompt"])["input_ids"]
    chosen = tok(row["chosen"])["input_ids"] + [tok.eos_token_id]
    rejected = tok(row["rejected"])["input_ids"] + [tok.eos_token_id]
    same = same and (prompt, chosen, rejected) == (t["prompt"], t["chosen"], t["rejected"])
    for key, model, answer in (("pc", policy, chosen), ("pr", policy, rejected), ("rc", ref, chosen), ("rr", ref, rejected)):
        lp[key].append(seq_logp(model, prompt, answer))
pc, pr, rc, rr = (torch.stack(lp[k]) for k in ("pc", "pr", "rc", "rr"))
h = (pc - rc) - (pr - rr)
plain = (-F.logsigmoid(beta * h) if kind == "sigmoid" else (h - 1 / (2 * beta)) ** 2).mean().item()
print(f"the tokens are the drill's: {same}")

# TRL's own loss on the same pairs (its tokenization, collator and DPO loss).
trainer, _ = train.dpo_trainer(os.path.join(HERE, "dpo"), os.path.join(HERE, "sft"),
                               train.dpo_config(tempfile.mkdtemp(), beta, 1), Dataset.from_list(p["pairs"]))
trainer.model.eval()
batch = trainer.data_collator([trainer.train_dataset[i] for i in range(len(p["pairs"]))])
with torch.no_grad():
    trl_loss = trainer.compute_loss(trainer.model, trainer._prepare_inputs(batch)).item()

rel = lambda x: abs(x - p["loss"]) / abs(p["loss"])
print(f"{kind} DPO loss, beta {beta}, {len(p['pairs'])} pairs: agentlab {p['loss']:.6f}, PyTorch {plain:.6f}, TRL {trl_loss:.6f}")
worst = max(rel(plain), rel(trl_loss) if kind == "sigmoid" else 0.0)
if kind != "sigmoid":
    print("TRL's IPO divides each log-ratio by the answer's length (the drill's does not): its value is not compared")
print(f"largest relative loss difference {worst:.1e} (the policy as its own reference: {p['loss_at_reference']:.6f})")
sys.exit(0 if same and worst < 1e-4 else 1)
