"""dpo-pairs as a TRL experiment: DPO from the run's SFT model on verifier-labelled pairs.

Exported by agentlab from drill {{DRILL}} (preset {{PRESET}}, seed {{SEED}}).
Every hyperparameter is the drill's; the comment on each line names the drill
parameter (drills/dpo-pairs/drill.toml) it comes from. Where TRL differs the README
says so. Each arm starts from sft/ (the run's SFT model, also DPO's reference):

    python train.py --arm dpo                # beta = `beta`         -> out/dpo
    python train.py --arm dpo-beta-compare   # beta = `beta_compare` -> out/dpo-beta-compare
    python train.py --arm sft-on-chosen      # SFT on the chosen answers only -> out/sft-on-chosen
    python eval.py sft out/dpo out/dpo-beta-compare out/sft-on-chosen

--steps N shortens a run (a smoke test).
"""

import argparse
import os

import torch
from datasets import load_dataset
from transformers import AutoModelForCausalLM, AutoTokenizer

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = {{SEED}}  # the run's seed
BETA = {"dpo": {{BETA}}, "dpo-beta-compare": {{BETA_COMPARE}}}  # drill parameters `beta` and `beta_compare`


def schedule(out, steps, cpu):
    """What every arm shares: the drill's TrainConfig::cosine."""
    return dict(
        output_dir=out,
        seed=SEED,  # the run's seed
        max_steps=steps or {{STEPS}},  # drill parameter `steps`
        per_device_train_batch_size={{BATCH}},  # drill parameter `batch` (pairs per step)
        learning_rate={{LR}},  # drill parameter `lr` (peak)
        lr_scheduler_type="cosine_with_min_lr",  # TrainConfig::cosine: cosine decay ...
        lr_scheduler_kwargs={"min_lr_rate": 0.1},  # ... to a tenth of the peak
        warmup_steps={{WARMUP}},  # a tenth of `steps`, at most 50 (pipeline::warmup)
        adam_beta1=0.9,  # AdamW as src/ml/optim.rs has it
        adam_beta2=0.95,
        adam_epsilon=1e-8,
        weight_decay=0.0,  # TrainConfig::cosine: no weight decay
        max_grad_norm=1.0,  # TrainConfig::cosine: clip the global norm at 1
        bf16=False,  # the drill computes in f32 (TRL defaults to bf16 autocast where the device has it)
        use_cpu=cpu,
        logging_steps=10,
        save_strategy="no",
        report_to="none",
    )


def dpo_config(out, beta, steps=None, cpu=True):
    from trl import DPOConfig

    return DPOConfig(
        beta=beta,  # drill parameter `beta` (or `beta_compare`)
        loss_type=[{{LOSS}}],  # drill parameter `loss` (sigmoid: DPO; ipo: see the README)
        # drill parameter `swap_labels` = {{SWAP}}: already applied to data/train.jsonl
        **schedule(out, steps, cpu),
    )


def pairs(name="train"):
    return load_dataset("json", data_files=os.path.join(HERE, f"data/{name}.jsonl"), split="train")


def dpo_trainer(policy, reference, args, dataset=None):
    from trl import DPOTrainer

    tok = AutoTokenizer.from_pretrained(os.path.join(HERE, "sft"))
    model = AutoModelForCausalLM.from_pretrained(policy, dtype=torch.float32)
    ref = AutoModelForCausalLM.from_pretrained(reference, dtype=torch.float32)  # the drill's frozen reference
    return DPOTrainer(model=model, ref_model=ref, args=args, train_dataset=dataset or pairs(), processing_class=tok), tok


def sft_on_chosen(out, steps, cpu):
    """The drill's baseline: plain SFT on the chosen answers of the same pairs, same steps."""
    from trl import SFTConfig, SFTTrainer

    data = pairs().map(lambda r: {"prompt": r["prompt"], "completion": r["chosen"]}, remove_columns=["chosen", "rejected"])
    args = SFTConfig(completion_only_loss=True, **schedule(out, steps, cpu))  # the answer and its end token in the loss
    tok = AutoTokenizer.from_pretrained(os.path.join(HERE, "sft"))
    return SFTTrainer(model=os.path.join(HERE, "sft"), args=args, train_dataset=data, processing_class=tok), tok


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--arm", choices=["dpo", "dpo-beta-compare", "sft-on-chosen"], default="dpo")
    ap.add_argument("--out", default=os.path.join(HERE, "out"))
    ap.add_argument("--steps", type=int, help="fewer steps than the drill's (a smoke test)")
    ap.add_argument("--cpu", action="store_true", default=not torch.cuda.is_available(), help="train on the CPU")
    args = ap.parse_args()
    torch.manual_seed(SEED)
    out = os.path.join(args.out, args.arm)
    sft = os.path.join(HERE, "sft")
    if args.arm == "sft-on-chosen":
        t, tok = sft_on_chosen(out, args.steps, args.cpu)
    else:
        t, tok = dpo_trainer(sft, sft, dpo_config(out, BETA[args.arm], args.steps, args.cpu))
    t.train()
    t.model.save_pretrained(out)
    tok.save_pretrained(out)
    print(f"{args.arm} saved in {out}")
