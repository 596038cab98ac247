"""react-tool-call-loop as a TRL experiment: the lab's tiny GPT learns to act in a ReAct loop by SFT.

Exported by agentlab from drill {{DRILL}} (preset {{PRESET}}, seed {{SEED}}).
Every hyperparameter is the drill's; the comment on each line names the drill
parameter (drills/react-tool-call-loop/drill.toml) it comes from. Where TRL differs
the README says so.

    python train.py                   # start/ -> out/{{ARM}} (the run's arm)
    python train.py --arm unmasked    # the twin: every token in the loss
    python eval.py out/{{ARM}} start    # held-out success in the loop, with the real tools

--steps N shortens the run (a smoke test).
"""

import argparse
import json
import os

import torch
from datasets import Dataset
from transformers import AutoTokenizer
from trl import SFTConfig, SFTTrainer

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = {{SEED}}  # the run's seed (its tasks, its place split, the slips in data/ came from it)


def rows():
    with open(os.path.join(HERE, "data/train.jsonl"), encoding="utf-8") as f:
        return [json.loads(l) for l in f]


def dataset(arm, data=None):
    """The trajectories pre-tokenized, the arm's loss mask as TRL's `completion_mask`.

    masked:   the agent's own lines and the end token (prompt and tool observations get label -100)
    unmasked: every token but the planted misspelt lookups (the drill's twin)
    """
    key = {"masked": "agent_mask", "unmasked": "all_mask"}[arm]
    return Dataset.from_list([{"input_ids": r["input_ids"], "completion_mask": [int(b) for b in r[key]]} for r in data or rows()])


def config(out, steps=None, cpu=True):
    return SFTConfig(
        output_dir=out,
        seed=SEED,  # the run's seed
        max_steps=steps or {{STEPS}},  # drill parameter `steps` (each arm trains this many)
        per_device_train_batch_size={{BATCH}},  # drill parameter `batch` (trajectories per step)
        learning_rate={{LR}},  # drill parameter `lr` (peak)
        lr_scheduler_type="cosine_with_min_lr",  # the drill's schedule: cosine decay ...
        lr_scheduler_kwargs={"min_lr_rate": 0.1},  # ... to a tenth of the peak
        warmup_steps={{WARMUP}},  # the lab's warmup rule: a tenth of `steps`, at most 50 (linear)
        adam_beta1=0.9,  # AdamW as src/ml/optim.rs has it
        adam_beta2=0.95,
        adam_epsilon=1e-8,
        weight_decay=0.0,  # the drill's AdamW has no weight decay
        max_grad_norm=1.0,  # the drill clips the global gradient norm at 1
        completion_only_loss=True,  # drill parameter `mask_observations` = {{MASK}}: the loss on the arm's mask only (see dataset())
        # The drill's batches are windows of similar length, but each step's window is drawn at random,
        # so consecutive batches hold any kind of task. Shuffled batches are the nearer match: TRL's
        # "group_by_length" orders each megabatch's batches long to short, and trained this agent to
        # 0.685 held-out success where "random" reached 1.000 (README, "What maps").
        train_sampling_strategy="random",
        # drill parameter `start_from` = {{START_FROM}}: start/ is that model
        # drill parameters `slip_rate` = {{SLIP_RATE}}, `train_tasks` = {{TRAIN_TASKS}}: already in data/train.jsonl
        max_length=None,  # the longest trajectory is {{LONGEST}} tokens, within the model's {{CONTEXT}}: nothing is cut
        bf16=False,  # the drill computes in f32 (TRL defaults to bf16 autocast where the device has it)
        use_cpu=cpu,
        logging_steps=25,
        save_strategy="no",
        report_to="none",
    )


def trainer(model, args, data):
    tok = AutoTokenizer.from_pretrained(os.path.join(HERE, "start"))
    return SFTTrainer(model=model, args=args, train_dataset=data, processing_class=tok), tok


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--arm", choices=["masked", "unmasked"], default="{{ARM}}")
    ap.add_argument("--out", default=os.path.join(HERE, "out"))
    ap.add_argument("--steps", type=int, help="fewer steps than the drill's (a smoke test)")
    ap.add_argument("--cpu", action="store_true", default=not torch.cuda.is_available(), help="train on the CPU")
    args = ap.parse_args()
    torch.manual_seed(SEED)
    out = os.path.join(args.out, args.arm)
    t, tok = trainer(os.path.join(HERE, "start"), config(out, args.steps, args.cpu), dataset(args.arm))
    t.train()
    t.model.save_pretrained(out)
    tok.save_pretrained(out)
    print(f"saved in {out}")
