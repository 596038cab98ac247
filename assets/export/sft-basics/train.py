"""sft-basics as a TRL experiment: a tiny GPT-2 learns two-digit addition by SFT.

Exported by agentlab from drill {{DRILL}} (preset {{PRESET}}, seed {{SEED}}).
Every hyperparameter is the drill's; the comment on each line names the drill
parameter (drills/sft-basics/drill.toml) it comes from. Where TRL differs the
README says so.

    python train.py                  # start/ -> out/sft (SFTTrainer on data/train.jsonl)
    python eval.py out/sft           # exact match on the held-out pairs (data/test.jsonl)

--steps N shortens the run (a smoke test).
"""

import argparse
import os

import torch
from datasets import load_dataset
from transformers import AutoTokenizer
from trl import SFTConfig, SFTTrainer

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = {{SEED}}  # the run's seed (the split of data/ and the starting weights in start/ came from it)


def config(out, steps=None, cpu=True):
    return SFTConfig(
        output_dir=out,
        seed=SEED,  # the run's seed
        max_steps=steps or {{STEPS}},  # drill parameter `steps`
        per_device_train_batch_size={{BATCH}},  # drill parameter `batch` (sequences per step)
        learning_rate={{LR}},  # drill parameter `lr` (peak)
        lr_scheduler_type="cosine_with_min_lr",  # the drill's schedule: cosine decay ...
        lr_scheduler_kwargs={"min_lr_rate": 0.1},  # ... to a tenth of the peak
        warmup_steps={{WARMUP}},  # drill parameter `warmup` (linear)
        adam_beta1=0.9,  # AdamW as src/ml/optim.rs has it
        adam_beta2=0.95,
        adam_epsilon=1e-8,
        weight_decay=0.0,  # the drill's AdamW has no weight decay
        max_grad_norm=1.0,  # the drill clips the global gradient norm at 1
        completion_only_loss={{MASK_PROMPT}},  # drill parameter `mask_prompt`: the loss on the answer and its end token only
        # drill parameter `reverse_answer` = {{REVERSE}}: already in data/ (the sum written least significant digit first)
        # drill parameters `d_model`, `n_layers`, `n_heads`: the shape of start/ (config.json)
        bf16=False,  # the drill computes in f32 (TRL defaults to bf16 autocast where the device has it)
        use_cpu=cpu,
        logging_steps=20,
        save_strategy="no",
        report_to="none",
    )


def trainer(model, args, dataset=None):
    tok = AutoTokenizer.from_pretrained(os.path.join(HERE, "start"))
    data = dataset or load_dataset("json", data_files=os.path.join(HERE, "data/train.jsonl"), split="train")
    return SFTTrainer(model=model, args=args, train_dataset=data, processing_class=tok), tok


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(HERE, "out"))
    ap.add_argument("--steps", type=int, help="fewer steps than the drill's (a smoke test)")
    ap.add_argument("--cpu", action="store_true", default=not torch.cuda.is_available(), help="train on the CPU")
    args = ap.parse_args()
    torch.manual_seed(SEED)
    out = os.path.join(args.out, "sft")
    t, tok = trainer(os.path.join(HERE, "start"), config(out, args.steps, args.cpu))
    t.train()
    t.model.save_pretrained(out)
    tok.save_pretrained(out)
    print(f"saved in {out}")
