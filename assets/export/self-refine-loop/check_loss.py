"""The STaR round's SFT loss in transformers equals agentlab's (loss_parity.json).

Exported by agentlab from drill {{DRILL}} (preset {{PRESET}}, seed {{SEED}}).
The round's first batch (the run's own draws) goes through TRL's own SFT pipeline (the
tokenization of prompt + completion + end token, the completion mask, the collator's
labels and padding), and each exported model's loss on it is computed by transformers.
It must equal agentlab's `masked_cross_entropy` within 1e-4 relative, and the tokens
TRL trains on must be the drill's: a draft's answer, a trace's critique and revision,
and the end token.

    python check_loss.py
"""

import json
import os
import sys
import tempfile

import torch
from datasets import Dataset
from transformers import AutoModelForCausalLM

import train

HERE = os.path.dirname(os.path.abspath(__file__))

p = json.load(open(os.path.join(HERE, "loss_parity.json")))
trainer, tok = train.trainer(os.path.join(HERE, "sft"), train.config(tempfile.mkdtemp(), 1), Dataset.from_list(p["rows"]))
batch = trainer.data_collator([trainer.train_dataset[i] for i in range(len(p["rows"]))])
width = batch["input_ids"].shape[1]
ours = torch.tensor([t + [tok.pad_token_id] * (width - len(t)) for t in p["tokens"]])
in_loss = torch.tensor([m + [False] * (width - len(m)) for m in p["in_loss"]])
ours_labels = ours.masked_fill(~in_loss, -100)
same = batch["input_ids"].shape == ours.shape and torch.equal(batch["input_ids"], ours)
# Position 0 predicts nothing: compare the labels from position 1 on.
same = same and torch.equal(batch["labels"][:, 1:], ours_labels[:, 1:])
kinds = [r["kind"] for r in p["rows"]]
print(f"TRL's tokens and labels are the drill's: {same} ({kinds.count('draft')} drafts, {kinds.count('refinement')} refinement traces)")
worst = 0.0
for m in p["models"]:
    model = AutoModelForCausalLM.from_pretrained(os.path.join(HERE, m["dir"]), dtype=torch.float32).eval()
    with torch.no_grad():
        loss = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"], labels=batch["labels"]).loss.item()
    rel = abs(loss - m["loss"]) / abs(m["loss"])
    worst = max(worst, rel)
    print(f"{m['dir']}: transformers {loss:.6f}, agentlab {m['loss']:.6f} (every token: {m['loss_every_token']:.6f}), relative difference {rel:.1e}")
print(f"largest relative loss difference {worst:.1e} over {len(p['models'])} models, {len(p['rows'])} sequences")
sys.exit(0 if same and worst < 1e-4 else 1)
