"""grpo-rlvr as a TRL experiment: the warm start (SFTTrainer), then GRPO (GRPOTrainer).

Exported by agentlab from drill {{DRILL}} (preset {{PRESET}}, seed {{SEED}}, model {{MODEL}}).
Every hyperparameter is the drill's; the comment on each line names the drill
parameter (drills/grpo-rlvr/drill.toml) it comes from. Where TRL has no equivalent
the README says so.

    python train.py warm-start              # start/ -> out/warm-start   (SFT on data/warm_start.jsonl)
    python train.py grpo --arm sound        # out/warm-start -> out/sound (paid by the exact verifier)
    python train.py grpo --arm proxy        # out/warm-start -> out/proxy (paid by the `reward` parameter's)
    python eval.py out/warm-start out/sound out/proxy

--steps N shortens either stage (a smoke test); --model DIR starts GRPO from another
checkpoint (e.g. `agentlab export RUN --to hf` of the run's own warm start).
"""

import argparse
import os

import torch
from datasets import load_dataset
from transformers import AutoModelForCausalLM, AutoTokenizer

import rewards

HERE = os.path.dirname(os.path.abspath(__file__))
REAL = {{REAL}}  # drill parameter `model` = {{MODEL}}: a real model trains LoRA adapters, the tiny GPT every weight
SEED = {{SEED}}  # the run's seed


def lora_config():
    """The drill's adapters: rank `lora_rank`, alpha 2*rank, every projection of the top `lora_layers` layers."""
    from peft import LoraConfig

    n_layers = AutoModelForCausalLM.from_pretrained(os.path.join(HERE, "start")).config.num_hidden_layers
    top = {{LORA_LAYERS}} or n_layers  # drill parameter `lora_layers` (0: all)
    return LoraConfig(
        r={{LORA_RANK}},  # drill parameter `lora_rank`
        lora_alpha={{LORA_ALPHA}},  # alpha = 2 * lora_rank (src/ml/start.rs)
        lora_dropout=0.0,  # the drill uses no dropout
        target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],  # LORA_TARGETS
        layers_to_transform=list(range(n_layers - top, n_layers)),  # the top `lora_layers` layers
        task_type="CAUSAL_LM",
    )


def warm_start(args):
    from trl import SFTConfig, SFTTrainer

    out = os.path.join(args.out, "warm-start")
    cfg = SFTConfig(
        output_dir=out,
        seed=SEED,  # the run's seed
        max_steps=args.steps or {{SFT_STEPS}},  # drill parameter `sft_steps`
        per_device_train_batch_size={{SFT_BATCH}},  # drill parameter `sft_batch`
        learning_rate={{LR_SFT}},  # drill parameter `lr_sft` (peak)
        lr_scheduler_type="cosine_with_min_lr",  # the drill's SFT schedule: cosine decay ...
        lr_scheduler_kwargs={"min_lr_rate": 0.1},  # ... to a tenth of the peak
        warmup_steps={{SFT_WARMUP}},  # a twentieth of `sft_steps` (src/drills/addition.rs)
        adam_beta1=0.9,  # AdamW as src/ml/optim.rs has it
        adam_beta2=0.95,
        adam_epsilon=1e-8,
        weight_decay=0.0,  # TrainConfig: no weight decay
        max_grad_norm=1.0,  # TrainConfig: clip the global norm at 1
        completion_only_loss=True,  # the loss on the answer and its end token only, as the drill masks
        use_cpu=args.cpu,
        logging_steps=10,
        save_strategy="no",
        report_to="none",
    )
    tok = AutoTokenizer.from_pretrained(os.path.join(HERE, "start"))
    trainer = SFTTrainer(
        model=os.path.join(HERE, "start"),
        args=cfg,
        train_dataset=load_dataset("json", data_files=os.path.join(HERE, "data/warm_start.jsonl"), split="train"),
        processing_class=tok,
        peft_config=lora_config() if REAL else None,
    )
    trainer.train()
    model = trainer.model
    if REAL:
        # GRPO's reference policy is the warm start: fold its adapters into the weights.
        model = model.merge_and_unload()
    model.save_pretrained(out)
    tok.save_pretrained(out)
    print(f"warm start saved in {out}")


def grpo(args):
    from trl import GRPOConfig, GRPOTrainer

    paid = {"sound": rewards.exact_reward, "proxy": rewards.proxy_reward}[args.arm]
    model_dir = args.model or os.path.join(args.out, "warm-start")
    out = os.path.join(args.out, args.arm)
    prompts, group, epochs = {{PROMPTS}}, {{GROUP}}, {{PPO_EPOCHS}}
    cfg = GRPOConfig(
        output_dir=out,
        seed=SEED,  # the run's seed
        num_generations=group,  # drill parameter `group` (G completions per prompt)
        per_device_train_batch_size=prompts * group,  # `prompts_per_step` x `group` completions per update
        steps_per_generation=1,  # one update per batch of rollouts ...
        num_iterations=epochs,  # ... reused `ppo_epochs` times (TRL's mu)
        max_steps=(args.steps or {{RL_STEPS}}) * epochs,  # `rl_steps` updates, each `ppo_epochs` optimizer steps
        learning_rate={{LR}},  # drill parameter `lr`
        lr_scheduler_type="constant_with_warmup",  # constant after ...
        warmup_steps={{WARMUP}},  # ... 5 x `ppo_epochs` optimizer steps of warmup (src/drills/grpo_rlvr.rs)
        adam_beta1=0.9,  # AdamW as src/ml/optim.rs has it
        adam_beta2=0.95,
        adam_epsilon=1e-8,
        weight_decay=0.0,  # TrainConfig::constant: no weight decay
        max_grad_norm=1.0,  # TrainConfig::constant: clip the global norm at 1
        beta={{KL}},  # drill parameter `kl_coef` (TRL's KL is k3, the drill's, to the frozen start model)
        epsilon={{CLIP}},  # drill parameter `clip_eps` (the ratio is clipped to [1-eps, 1+eps])
        loss_type={{LOSS_TYPE}},  # drill parameter `variant` = {{VARIANT}}
        scale_rewards={{SCALE_REWARDS}},  # `variant`: grpo divides advantages by the group's std, dr-grpo does not
        max_completion_length={{MAX_NEW}},  # drill parameter `max_new` (and Dr. GRPO's constant normaliser)
        temperature={{TEMPERATURE}},  # drill parameter `temperature`
        top_k=0,  # sampling from the full distribution, as the drill does
        top_p=1.0,
        reward_weights=[1.0, 0.0, 0.0, 0.0],  # pay by the arm's verifier; log the others as hacking detectors
        use_cpu=args.cpu,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
    )
    tok = AutoTokenizer.from_pretrained(model_dir)
    trainer = GRPOTrainer(
        model=model_dir,
        reward_funcs=[paid, rewards.exact_reward, rewards.lenient_reward, hedged],
        args=cfg,
        train_dataset=load_dataset("json", data_files=os.path.join(HERE, "data/train.jsonl"), split="train"),
        processing_class=tok,
        peft_config=lora_config() if REAL else None,
    )
    trainer.train()
    model = trainer.model.merge_and_unload() if REAL else trainer.model
    model.save_pretrained(out)
    tok.save_pretrained(out)
    print(f"{args.arm} arm saved in {out}")


def hedged(completions, ground_truth, **kwargs):
    """The exploit detector (weight 0: logged, never paid): the share of completions that hedge."""
    return [float(rewards.judge(rewards.read(c), g)["hedged"]) for c, g in zip(completions, ground_truth)]


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("stage", choices=["warm-start", "grpo"])
    ap.add_argument("--arm", choices=["sound", "proxy"], default="proxy")
    ap.add_argument("--model", help="GRPO's starting checkpoint (default: OUT/warm-start)")
    ap.add_argument("--out", default=os.path.join(HERE, "out"))
    ap.add_argument("--steps", type=int, help="fewer steps than the drill's (a smoke test)")
    ap.add_argument("--cpu", action="store_true", default=not torch.cuda.is_available(), help="train on the CPU")
    args = ap.parse_args()
    torch.manual_seed(SEED)
    warm_start(args) if args.stage == "warm-start" else grpo(args)
