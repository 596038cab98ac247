#!/usr/bin/env bash
# grpo-rlvr as a verl experiment (exported by agentlab from drill {{DRILL}}, preset {{PRESET}}, seed {{SEED}}).
# Every override is the drill's parameter named in its comment. verl needs GPUs
# (vLLM rollouts); this script is for a GPU machine or a Ray cluster (README.md).
#
#   ARM=sound ./run_grpo.sh     # paid by the exact verifier
#   ARM=proxy ./run_grpo.sh     # paid by the drill's `reward` parameter ({{REWARD}})
#   MODEL=/path/to/warm-start NNODES=2 GPUS=8 ./run_grpo.sh
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ARM="${ARM:-proxy}"
MODEL="${MODEL:-$HERE/out/warm-start}"   # the warm start (train.py warm-start of the TRL export, or `--to hf`)
case "$ARM" in
  sound) SCORE=compute_score_exact ;;
  proxy) SCORE=compute_score ;;
  *) echo "ARM must be sound or proxy" >&2; exit 2 ;;
esac
LORA=()
if [ "{{REAL}}" = "True" ]; then
  LORA=(
    actor_rollout_ref.model.lora_rank={{LORA_RANK}}        # drill parameter `lora_rank`
    actor_rollout_ref.model.lora_alpha={{LORA_ALPHA}}      # 2 x lora_rank
    actor_rollout_ref.model.target_modules=all-linear      # every projection (verl has no per-layer choice: `lora_layers` = {{LORA_LAYERS}} is not mapped)
  )
fi
ARGS=(
  algorithm.adv_estimator=grpo  # GRPO: group-normalised advantages, no critic
  algorithm.norm_adv_by_std_in_grpo={{VERL_NORM_STD}}  # drill parameter `variant` ({{VARIANT}}): grpo divides by the group's std, dr-grpo does not
  algorithm.use_kl_in_reward=False  # the drill's KL is a loss term, not a reward penalty
  data.train_files="$HERE/data/train.parquet"  # RL prompts (fresh problems outside the held-out set)
  data.val_files="$HERE/data/test.parquet"  # the run's held-out problems (`test_size`)
  data.train_batch_size={{PROMPTS}}  # drill parameter `prompts_per_step`
  data.max_prompt_length=64  # the longest prompt, with room
  data.max_response_length={{MAX_NEW}}  # drill parameter `max_new`
  actor_rollout_ref.model.path="$MODEL"  # the warm start (the drill's reference policy too)
  actor_rollout_ref.actor.optim.lr={{LR}}  # drill parameter `lr`
  actor_rollout_ref.actor.optim.lr_warmup_steps={{WARMUP}}  # 5 x `ppo_epochs` steps of warmup, then constant
  actor_rollout_ref.actor.ppo_mini_batch_size={{PROMPTS}}  # one update over the whole batch of `prompts_per_step` prompts ...
  actor_rollout_ref.actor.ppo_epochs={{PPO_EPOCHS}}  # ... repeated `ppo_epochs` times
  actor_rollout_ref.actor.clip_ratio={{CLIP}}  # drill parameter `clip_eps`
  actor_rollout_ref.actor.grad_clip=1.0  # TrainConfig: clip the global norm at 1
  actor_rollout_ref.actor.use_kl_loss=True  # a KL penalty to the frozen warm start ...
  actor_rollout_ref.actor.kl_loss_coef={{KL}}  # ... weighted by drill parameter `kl_coef`
  actor_rollout_ref.actor.kl_loss_type=low_var_kl  # k3, the drill's estimator (verl clips it to [-10, 10])
  actor_rollout_ref.actor.loss_agg_mode={{VERL_LOSS_AGG}}  # drill parameter `variant`: per-completion mean (grpo) or constant normaliser (dr-grpo)
  actor_rollout_ref.actor.entropy_coeff=0  # the drill adds no entropy bonus
  actor_rollout_ref.rollout.name=vllm  # verl samples with vLLM (GPU only)
  actor_rollout_ref.rollout.n={{GROUP}}  # drill parameter `group`
  actor_rollout_ref.rollout.temperature={{TEMPERATURE}}  # drill parameter `temperature`
  actor_rollout_ref.rollout.top_k=-1  # the full distribution, as the drill samples
  actor_rollout_ref.rollout.top_p=1.0
  custom_reward_function.path="$HERE/reward.py"  # the drill's verifiers (reward.py)
  custom_reward_function.name="$SCORE"  # the arm's verifier
  trainer.total_training_steps={{RL_STEPS}}  # drill parameter `rl_steps`
  trainer.nnodes="${NNODES:-1}"  # machines
  trainer.n_gpus_per_node="${GPUS:-1}"  # GPUs per machine
  trainer.project_name=agentlab-{{DRILL}}
  trainer.experiment_name="$ARM-seed{{SEED}}"
  trainer.logger='["console"]'
  trainer.val_before_train=True  # the warm start's held-out score first, as the drill logs it
)
exec python3 -m verl.trainer.main_ppo "${ARGS[@]}" "${LORA[@]}" "$@"
