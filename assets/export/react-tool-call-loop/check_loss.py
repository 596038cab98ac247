"""The masked SFT loss in transformers equals agentlab's (loss_parity.json).

Exported by agentlab from drill {{DRILL}} (preset {{PRESET}}, seed {{SEED}}).
The drill's first batch of the agent's fit goes through TRL's own pipeline (the
pre-tokenized rows, the completion mask turned into labels, the collator's padding),
and each exported model's loss on it is computed by transformers. It must equal
agentlab's `masked_cross_entropy` within 1e-4 relative, and the tokens TRL trains
on must be the drill's: the agent's lines, never a tool's observation.

    python check_loss.py
"""

import json
import os
import sys
import tempfile

import torch
from tokenizers import Tokenizer
from transformers import AutoModelForCausalLM

import train

HERE = os.path.dirname(os.path.abspath(__file__))

p = json.load(open(os.path.join(HERE, "loss_parity.json")))
every = train.rows()
arm = "masked" if p["mask_observations"] else "unmasked"
data = train.dataset(arm, [every[i] for i in p["rows"]])
trainer, tok = train.trainer(os.path.join(HERE, "start"), train.config(tempfile.mkdtemp(), 1), data)
batch = trainer.data_collator([trainer.train_dataset[i] for i in range(len(p["rows"]))])
width = batch["input_ids"].shape[1]
ours = torch.tensor([t + [tok.pad_token_id] * (width - len(t)) for t in p["tokens"]])
in_loss = torch.tensor([m + [False] * (width - len(m)) for m in p["in_loss"]])
ours_labels = ours.masked_fill(~in_loss, -100)
same = batch["input_ids"].shape == ours.shape and torch.equal(batch["input_ids"], ours)
# Position 0 predicts nothing: compare the labels from position 1 on.
same = same and torch.equal(batch["labels"][:, 1:], ours_labels[:, 1:])
print(f"TRL's tokens and labels are the drill's: {same}")

# Every trajectory, the masked arm as TRL prepares it: no prompt, observation or slip token
# is a target, every agent token and the end token are.
bpe = Tokenizer.from_file(os.path.join(HERE, "start", "tokenizer.json"))
whole, _ = train.trainer(os.path.join(HERE, "start"), train.config(tempfile.mkdtemp(), 1), train.dataset("masked"))
counts = {"env": 0, "prompt": 0, "agent": 0, "slip": 0}
spans_ok = True
for i, r in enumerate(every):
    labels, pos = whole.train_dataset[i]["labels"], 1
    for seg in r["segments"]:
        n = len(bpe.encode(seg["text"], add_special_tokens=False).ids)
        kind = "slip" if seg["slip"] else seg["role"]
        want = r["input_ids"][pos : pos + n] if kind == "agent" else [-100] * n
        spans_ok = spans_ok and labels[pos : pos + n] == want
        counts[kind] += n
        pos += n
    spans_ok = spans_ok and pos == len(r["input_ids"]) - 1 and labels[pos] == r["input_ids"][pos]
print(
    f"{len(every)} trajectories through TRL: {counts['env']} observation, {counts['prompt']} prompt and {counts['slip']} slip tokens "
    f"never in the loss, {counts['agent']} agent tokens and every end token in it: {spans_ok}"
)
same = same and spans_ok
worst = 0.0
for m in p["models"]:
    model = AutoModelForCausalLM.from_pretrained(os.path.join(HERE, m["dir"]), dtype=torch.float32).eval()
    with torch.no_grad():
        out = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"], labels=batch["labels"])
    loss = out.loss.item()
    rel = abs(loss - m["loss"]) / abs(m["loss"])
    worst = max(worst, rel)
    print(f"{m['dir']}: transformers {loss:.6f}, agentlab {m['loss']:.6f} (every token but slips: {m['loss_unmasked']:.6f}), relative difference {rel:.1e}")
print(f"largest relative loss difference {worst:.1e} over {len(p['models'])} models, {len(p['rows'])} trajectories")
sys.exit(0 if same and worst < 1e-4 else 1)
