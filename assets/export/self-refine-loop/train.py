"""self-refine-loop's STaR round as a TRL experiment: the model fine-tuned on its own verified answers.

Exported by agentlab from drill {{DRILL}} (preset {{PRESET}}, seed {{SEED}}).
STaR (Zelikman et al., arXiv:2203.14465), rejection-sampling fine-tuning: the run's SFT
model (sft/) played the drill's loop (draft, critique, revise, keep the best) on
{{STAR_PROBLEMS}} fresh problems; the answers the verifier passed are data/train.jsonl, as
first drafts and as the refinement steps that produced them. This trains sft/ on them with
the round's hyperparameters; the comment on each line names the drill parameter
(drills/self-refine-loop/drill.toml) it comes from.

    python train.py                 # sft/ -> out/star (one STaR round)
    python eval.py out/star sft     # first-draft pass rate on the held-out problems

--steps N shortens the run (a smoke test).
"""

import argparse
import os

import torch
from datasets import load_dataset
from transformers import AutoTokenizer
from trl import SFTConfig, SFTTrainer

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = {{SEED}}  # the run's seed (its problems, its SFT model and the round's data came from it)


def config(out, steps=None, cpu=True):
    return SFTConfig(
        output_dir=out,
        seed=SEED,  # the run's seed
        max_steps=steps or {{STAR_STEPS}},  # drill parameter `star_steps` (one round)
        per_device_train_batch_size={{BATCH}},  # drill parameter `batch` (sequences per step)
        learning_rate={{STAR_LR}},  # drill parameter `star_lr` (peak)
        lr_scheduler_type="cosine_with_min_lr",  # the drill's schedule: cosine decay ...
        lr_scheduler_kwargs={"min_lr_rate": 0.1},  # ... to a tenth of the peak
        warmup_steps={{STAR_WARMUP}},  # a twentieth of `star_steps`, as the drill's STaR phase warms up
        adam_beta1=0.9,  # AdamW as src/ml/optim.rs has it
        adam_beta2=0.95,
        adam_epsilon=1e-8,
        weight_decay=0.0,  # the drill's AdamW has no weight decay
        max_grad_norm=1.0,  # the drill clips the global gradient norm at 1
        completion_only_loss=True,  # the drill's mask: the answer (or the critique and revision) and the end token
        # drill parameters `rounds` = {{ROUNDS}}, `critic` = {{CRITIC}}, `star_verified_only` = {{VERIFIED_ONLY}}, `star_problems`:
        # how data/train.jsonl was collected (already in it)
        bf16=False,  # the drill computes in f32 (TRL defaults to bf16 autocast where the device has it)
        use_cpu=cpu,
        logging_steps=20,
        save_strategy="no",
        report_to="none",
    )


def trainer(model, args, dataset=None):
    tok = AutoTokenizer.from_pretrained(os.path.join(HERE, "sft"))
    data = dataset or load_dataset("json", data_files=os.path.join(HERE, "data/train.jsonl"), split="train")
    data = data.remove_columns([c for c in data.column_names if c not in ("prompt", "completion")])
    return SFTTrainer(model=model, args=args, train_dataset=data, processing_class=tok), tok


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(HERE, "out"))
    ap.add_argument("--steps", type=int, help="fewer steps than the drill's (a smoke test)")
    ap.add_argument("--cpu", action="store_true", default=not torch.cuda.is_available(), help="train on the CPU")
    args = ap.parse_args()
    torch.manual_seed(SEED)
    out = os.path.join(args.out, "star")
    t, tok = trainer(os.path.join(HERE, "sft"), config(out, args.steps, args.cpu))
    t.train()
    t.model.save_pretrained(out)
    tok.save_pretrained(out)
    print(f"saved in {out}")
