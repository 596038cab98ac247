#!/usr/bin/env bash
# Graduation checks: the exported experiments against transformers / TRL / PEFT.
#
#   scripts/graduate-check.sh [--venv DIR] [--skip-install] [--real]
#
# 1. A venv (default ~/.cache/agentlab/graduate/venv, never in the repo) with the
#    pinned packages of assets/export/requirements.txt.
# 2. Exports of grpo-rlvr (quick, seed 1) for TRL and verl: rewards.py and reward.py
#    return exactly the Rust reward on every row of reward_cases.jsonl.
# 3. A short grpo-rlvr run exported --to hf: each arm's gpt2 checkpoint loads in
#    transformers offline, its logits equal agentlab's within 1e-4 (relative to the
#    row's largest), and greedy generation gives the same tokens.
# 4. --real: the same for SmolLM2 (a short `real` run: its base as llama, its
#    adapters on it with PEFT). Needs ~/.cache/agentlab/smollm2 and minutes.
# 5. TRL runs: the export's warm start and 2 GRPO steps on the CPU, then the same
#    GRPO steps as two processes (accelerate launch --num_processes 2 --cpu).
# 6. Loss parity on short runs: sft-basics (30 steps) exported --to trl, TRL's own
#    SFT pipeline gives the drill's tokens and labels and transformers the drill's
#    masked cross-entropy (start and trained model); dpo-pairs (1-digit, short)
#    exported --to trl, the DPO loss of the run's policy against its SFT reference
#    in plain PyTorch and in TRL's DPOTrainer equals agentlab's; both exports train
#    a few steps in TRL and their eval.py runs.
# 7. The ReAct loop: react-tool-call-loop (60 steps) exported --to trl: tools.py gives the Rust
#    loop's answer on every tool case and replays every training trajectory; TRL's labels keep
#    prompt, observations and slips out of the loss and transformers' loss is agentlab's; each
#    exported model plays every held-out episode as agentlab did; TRL trains 20 steps.
# 8. STaR: a short self-refine-loop run's first STaR round exported --to trl: the round's
#    first batch through TRL and transformers gives agentlab's loss (the run's own at that
#    step); the exported models' drafts are agentlab's; TRL trains 10 steps.
#
# Prints one line per check and a closing "N passed, N failed".
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${AGENTLAB_GRADUATE_VENV:-$HOME/.cache/agentlab/graduate/venv}"
INSTALL=1
REAL=0
while [ $# -gt 0 ]; do
  case "$1" in
    --venv) VENV="$2"; shift 2 ;;
    --skip-install) INSTALL=0; shift ;;
    --real) REAL=1; shift ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
PY="$VENV/bin/python"
if [ "$INSTALL" = 1 ]; then
  [ -x "$PY" ] || python3 -m venv "$VENV" || exit 1
  "$PY" -m pip install -q -r "$ROOT/assets/export/requirements.txt" || exit 1
fi
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_DATASETS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
BIN="$ROOT/target/release/agentlab"
[ -x "$BIN" ] || (cd "$ROOT" && cargo build --release) || exit 1
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export AGENTLAB_HOME="$WORK/home"
PASS=0 FAIL=0
check() {  # check NAME COMMAND...
  local name="$1"; shift
  if "$@" >"$WORK/log" 2>&1; then
    PASS=$((PASS + 1)); echo "PASS $name: $(tail -1 "$WORK/log")"
  else
    FAIL=$((FAIL + 1)); echo "FAIL $name"; tail -20 "$WORK/log" | sed 's/^/    /'
  fi
}

"$BIN" export grpo-rlvr --preset quick --seed 1 --to trl --out "$WORK/trl" >/dev/null || exit 1
"$BIN" export grpo-rlvr --preset quick --seed 1 --to verl --out "$WORK/verl" >/dev/null || exit 1
check "rewards.py (TRL) equals the Rust verifier" "$PY" "$WORK/trl/rewards.py"
check "reward.py (verl) equals the Rust verifier" "$PY" "$WORK/verl/reward.py"
check "verl parquet reads back" "$PY" - "$WORK/verl/data" <<'PYEOF'
import sys, pyarrow.parquet as pq
t = pq.read_table(sys.argv[1] + "/test.parquet").to_pylist()
r = t[0]
assert set(r) == {"data_source", "prompt", "ability", "reward_model", "extra_info"}, r.keys()
assert r["prompt"][0]["role"] == "user" and r["reward_model"]["style"] == "rule", r
print(f"{len(t)} test rows, first: {r['prompt'][0]['content']} -> {r['reward_model']['ground_truth']}")
PYEOF

# A short run: its claims need not hold (drill run then exits 1); its kept weights are what is checked.
"$BIN" drill run grpo-rlvr --seed 2 --set sft_steps=200 --set rl_steps=4 --set test_size=32 >/dev/null
RUN="$(ls -d "$AGENTLAB_HOME"/runs/grpo-rlvr/* | sort | tail -1)"
[ -f "$RUN/models/index.json" ] || { echo "the short run kept no models" >&2; exit 1; }
"$BIN" export "$RUN" --to hf --out "$WORK/hf" >/dev/null || exit 1
cat > "$WORK/parity.py" <<'PYEOF'
import json, sys, torch
from transformers import AutoModelForCausalLM
path, adapter = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else None)
model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32)
if adapter:
    from peft import PeftModel
    model = PeftModel.from_pretrained(model, adapter)
    path = adapter
model.eval()
p = json.load(open(path + "/parity.json"))
worst, same = 0.0, 0
for c in p["cases"]:
    ids = torch.tensor([c["tokens"]])
    with torch.no_grad():
        logits = model(ids).logits[0, c["first_position"]:]
    ours = torch.tensor(c["logits"])
    rel = ((logits - ours).abs().max(dim=-1).values / ours.abs().max(dim=-1).values.clamp_min(1e-6)).max().item()
    worst = max(worst, rel)
    out = model.generate(ids, do_sample=False, max_new_tokens=p["max_new"], eos_token_id=p["eos"], pad_token_id=p["eos"])
    gen = out[0, ids.shape[1]:].tolist()
    ref = c["greedy"]
    if gen[: len(ref)] == ref:
        same += 1
    else:
        print("greedy differs:", gen, ref)
print(f"{len(p['cases'])} sequences, largest relative logit difference {worst:.2e}, greedy equal on {same}/{len(p['cases'])}")
sys.exit(0 if worst < 1e-4 and same == len(p["cases"]) else 1)
PYEOF
for arm in warm-start sound proxy; do
  check "hf gpt2 $arm: logits and greedy tokens" "$PY" "$WORK/parity.py" "$WORK/hf/$arm"
done

if [ "$REAL" = 1 ]; then
  "$BIN" drill run grpo-rlvr --preset real --seed 1 --set sft_steps=4 --set rl_steps=1 --set test_size=16 --set prompts_per_step=2 >/dev/null
  RRUN="$(ls -d "$AGENTLAB_HOME"/runs/grpo-rlvr/* | sort | tail -1)"
  [ -f "$RRUN/models/index.json" ] || { echo "the real run kept no models" >&2; exit 1; }
  "$BIN" export "$RRUN" --to peft --out "$WORK/peft" >/dev/null || exit 1
  check "hf llama (SmolLM2 base): logits and greedy tokens" "$PY" "$WORK/parity.py" "$WORK/peft/base"
  for arm in warm-start sound proxy; do
    check "peft $arm on the hf base: logits and greedy tokens" "$PY" "$WORK/parity.py" "$WORK/peft/base" "$WORK/peft/$arm"
  done
fi

cd "$WORK/trl"
check "TRL: warm start (SFTTrainer, 20 steps, CPU)" "$PY" train.py warm-start --steps 20 --cpu
check "TRL: GRPO proxy arm (GRPOTrainer, 2 steps, CPU)" "$PY" train.py grpo --arm proxy --steps 2 --cpu
check "TRL: eval.py on the warm start" "$PY" eval.py out/warm-start
check "TRL: GRPO as two processes (accelerate, CPU)" "$VENV/bin/accelerate" launch --num_processes 2 --cpu train.py grpo --arm sound --steps 2 --cpu --out out2 --model out/warm-start

# Loss parity: short runs of sft-basics and dpo-pairs, exported for TRL.
cd "$ROOT"
"$BIN" drill run sft-basics --seed 2 --set steps=30 --set holdout=200 >/dev/null
SRUN="$(ls -d "$AGENTLAB_HOME"/runs/sft-basics/* | sort | tail -1)"
"$BIN" export "$SRUN" --to trl --out "$WORK/sft" >/dev/null || exit 1
"$BIN" drill run dpo-pairs --seed 2 --set digits=1 --set sft_steps=150 --set steps=4 --set evals=1 \
  --set prompts=64 --set test_size=16 --set eval_samples=2 >/dev/null
DRUN="$(ls -d "$AGENTLAB_HOME"/runs/dpo-pairs/* | sort | tail -1)"
"$BIN" export "$DRUN" --to trl --out "$WORK/dpo" >/dev/null || exit 1
cd "$WORK/sft"
check "sft-basics: TRL's tokens and labels, transformers' masked loss = agentlab's" "$PY" check_loss.py
check "sft-basics: SFTTrainer, 20 steps, then eval.py" sh -c "'$PY' train.py --steps 20 --cpu && '$PY' eval.py out/sft start"
cd "$WORK/dpo"
check "dpo-pairs: DPO loss in PyTorch and TRL = agentlab's" "$PY" check_loss.py
check "dpo-pairs: DPOTrainer and SFT on chosen, 3 steps each, then eval.py" sh -c \
  "'$PY' train.py --arm dpo --steps 3 --cpu && '$PY' train.py --arm sft-on-chosen --steps 3 --cpu && '$PY' eval.py sft out/dpo out/sft-on-chosen"

# The ReAct loop: a short react-tool-call-loop run exported for TRL; tools.py against the Rust
# loop, the masked loss, the run's own held-out episodes replayed, then TRL trains the agent.
cd "$ROOT"
"$BIN" drill run react-tool-call-loop --seed 2 --set steps=60 --set train_tasks=300 --set eval_tasks=40 \
  --set probes=1 >/dev/null
RRUN="$(ls -d "$AGENTLAB_HOME"/runs/react-tool-call-loop/* | sort | tail -1)"
"$BIN" export "$RRUN" --to trl --out "$WORK/react" >/dev/null || exit 1
cd "$WORK/react"
check "react-tool-call-loop: tools.py = the Rust loop (tool cases, every training trajectory)" "$PY" check_tools.py
check "react-tool-call-loop: TRL's labels mask prompt, observations and slips; masked loss = agentlab's" "$PY" check_loss.py
check "react-tool-call-loop: each exported model plays every held-out episode as agentlab did" "$PY" eval.py --check
check "react-tool-call-loop: SFTTrainer, 20 steps, then eval.py in the loop" sh -c \
  "'$PY' train.py --steps 20 --cpu && '$PY' eval.py out/masked start"

# STaR: a short self-refine-loop run's first STaR round exported for TRL.
cd "$ROOT"
"$BIN" drill run self-refine-loop --seed 2 --set steps=150 --set star_iters=1 --set star_problems=256 \
  --set star_steps=40 --set test_size=64 >/dev/null
FRUN="$(ls -d "$AGENTLAB_HOME"/runs/self-refine-loop/* | sort | tail -1)"
"$BIN" export "$FRUN" --to trl --out "$WORK/star" >/dev/null || exit 1
cd "$WORK/star"
check "self-refine-loop: STaR data through TRL, masked loss = agentlab's (the run's own step)" "$PY" check_loss.py
check "self-refine-loop: sft/ and after-star/ draft every held-out problem as agentlab did" "$PY" eval.py --check
check "self-refine-loop: SFTTrainer on the STaR round, 10 steps, then eval.py" sh -c \
  "'$PY' train.py --steps 10 --cpu && '$PY' eval.py out/star sft"
cd "$ROOT"
echo "$PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
