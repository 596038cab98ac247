#!/usr/bin/env bash
# Check agentlab on a GPU machine from a kit made by scripts/gpu-kit.sh, within about 8 minutes,
# and write one JSON summary plus the logs under OUT:
#
#   OUT/summary.json   device, doctor, bench rows (agentlab and PyTorch), one row per drill run
#   OUT/logs.txt       every command's output, in order
#
# What it runs (each step under its own time limit, so one slow step cannot eat the rest):
#   1. `agentlab doctor --json`;
#   2. with a GPU: `agentlab bench --device cuda` for S, M and L (L is the largest tiny config,
#      the one a GPU is for), and PyTorch's eager version of the same configs on the same GPU
#      (pytorch_bench.py --device cuda) when python3 has torch with CUDA;
#   3. with a GPU: the `full` presets of three drills (GPU_CHECK_DRILLS, default
#      "sft-basics grpo-rlvr ewc-replay") on --device cuda, seed 1, each with its wall time,
#      exit code and claims.
# Without a GPU (no NVIDIA driver, or doctor sees no CUDA device) it runs the CPU fallback path
# and says so in the summary ("fallback": "cpu"): bench S on the CPU for 2 s and the *quick*
# presets of the same drills (a full preset is sized for a GPU). That is how it is tested on a
# machine without a GPU.
#
# Usage: scripts/gpu-check.sh KIT OUT
# Env:   GPU_CHECK_DRILLS (empty: no drill runs), GPU_CHECK_DRILL_LIMIT_S (default 100 per drill),
#        GPU_CHECK_BENCH_SECONDS (default 5), AGENTLAB (a binary to use instead of the kit's).
set -uo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: scripts/gpu-check.sh KIT OUT" >&2
  exit 2
fi
KIT="$(cd "$1" && pwd)" || { echo "error: no kit folder $1" >&2; exit 2; }
mkdir -p "$2"
OUT="$(cd "$2" && pwd)"
DRILLS="${GPU_CHECK_DRILLS-sft-basics grpo-rlvr ewc-replay}"
DRILL_LIMIT="${GPU_CHECK_DRILL_LIMIT_S:-100}"
BENCH_S="${GPU_CHECK_BENCH_SECONDS:-5}"
LOG="$OUT/logs.txt"
# Scratch (the unpacked binary, the data dir with its runs) stays out of OUT: only the summary and the log go back.
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
ROWS="$WORK/rows.jsonl"
: >"$LOG"
: >"$ROWS"
started=$(date +%s)

say() { echo "==> $*" | tee -a "$LOG"; }

# One JSON row per step: {"step": ..., "rc": ..., "wall_s": ..., "json": <last JSON line of its output or null>}.
row() { # name rc wall_ms file
  python3 - "$1" "$2" "$3" "$4" >>"$ROWS" <<'PY'
import json, sys
name, rc, wall, path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) / 1000, sys.argv[4]
found = []
text = open(path, errors="replace").read()
try:  # a pretty-printed JSON document (doctor --json)
    found.append(json.loads(text))
except ValueError:
    pass
for line in ([] if found else text.splitlines()):
    line = line.strip()
    if line.startswith("{") and line.endswith("}"):
        try:
            found.append(json.loads(line))
        except ValueError:
            pass
print(json.dumps({"step": name, "rc": rc, "wall_s": round(wall, 2), "json": found[-1] if found else None,
                  "json_lines": len(found)}))
PY
}

# run NAME LIMIT CMD...: run with a time limit, log it, add its row.
run() {
  local name="$1" limit="$2"
  shift 2
  local out="$WORK/step.out" t0 t1 rc
  say "$name: $*"
  t0=$(date +%s%N)
  timeout --kill-after=5 "$limit" "$@" >"$out" 2>&1
  rc=$?
  t1=$(date +%s%N)
  cat "$out" >>"$LOG"
  [[ $rc -eq 124 || $rc -eq 137 ]] && say "$name: stopped at its ${limit} s limit"
  row "$name" "$rc" "$(( (t1 - t0) / 1000000 ))" "$out"
  rm -f "$out"
  return $rc
}

# The binary: the kit's, unpacked (xz, or Python's lzma where xz is missing).
BIN="${AGENTLAB:-}"
if [[ -z "$BIN" ]]; then
  BIN="$WORK/agentlab"
  if command -v xz >/dev/null; then
    xz -dc "$KIT/agentlab.xz" >"$BIN"
  else
    python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], "wb"))' \
      "$KIT/agentlab.xz" "$BIN"
  fi
  chmod +x "$BIN"
  if [[ -f "$KIT/kit.json" ]]; then
    want=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["binary_sha256"])' "$KIT/kit.json")
    got=$(sha256sum "$BIN" | cut -d' ' -f1)
    [[ "$want" == "$got" ]] || { say "error: the unpacked binary's sha256 is $got, the kit says $want"; exit 1; }
  fi
fi
export AGENTLAB_HOME="$WORK/home"
mkdir -p "$AGENTLAB_HOME"

# The CUDA 13 libraries PyTorch ships (cuBLAS, cuRAND, NVRTC) when the loader does not find them itself.
if ! ldconfig -p 2>/dev/null | grep -q 'libcublas.so.13'; then
  extra=$(python3 -c 'import glob, os, site
dirs = set()
for s in site.getsitepackages():
    for f in glob.glob(os.path.join(s, "nvidia", "**", "libcublas.so.13"), recursive=True) + \
             glob.glob(os.path.join(s, "nvidia", "**", "libnvrtc.so.13"), recursive=True) + \
             glob.glob(os.path.join(s, "nvidia", "**", "libcurand.so.10"), recursive=True):
        dirs.add(os.path.dirname(f))
print(":".join(sorted(dirs)))' 2>/dev/null || true)
  [[ -n "$extra" ]] && export LD_LIBRARY_PATH="$extra${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi

run doctor 60 "$BIN" doctor --json
"$BIN" doctor >>"$LOG" 2>&1
gpu=false
if "$BIN" doctor --json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
sys.exit(0 if d.get("cuda", {}).get("devices") and str(d.get("auto_device", "")).startswith("cuda") else 1)'; then
  gpu=true
fi
if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader >>"$LOG" 2>&1 || true
fi

if $gpu; then
  say "GPU found: bench and full presets on cuda"
  for c in S M L; do
    run "bench $c cuda" 90 "$BIN" bench --device cuda --only "$c" --seconds "$BENCH_S" --json
  done
  run "bench gen-M cuda" 60 "$BIN" bench --device cuda --only gen-M --json
  if python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
    pyb="$KIT/pytorch_bench.py"
    for c in S M L; do
      run "pytorch $c cuda" 90 python3 "$pyb" --config "$c" --device cuda --seconds "$BENCH_S" --json
    done
    run "pytorch gen-M cuda" 60 python3 "$pyb" --config M --device cuda --generate --json
  else
    say "no PyTorch with CUDA here: no side-by-side numbers"
  fi
  preset=full
  device=cuda
else
  say "no GPU: the CPU fallback path (bench S on the CPU, quick presets)"
  run "bench S cpu" 60 "$BIN" bench --device cpu --only S --seconds 2 --json
  preset=quick
  device=cpu
fi

for d in $DRILLS; do
  run "drill $d $preset" "$DRILL_LIMIT" "$BIN" drill run "$d" --preset "$preset" --seed 1 --device "$device" --json
done

python3 - "$OUT" "$ROWS" "$AGENTLAB_HOME" "$gpu" "$preset" "$started" "$KIT" <<'PY'
import glob, json, os, sys, time
out, rows_path, home, gpu, preset, started, kit = sys.argv[1:8]
rows = [json.loads(l) for l in open(rows_path)]
drills = []
for r in rows:
    if not r["step"].startswith("drill "):
        continue
    d = r["step"].split()[1]
    reports = sorted(glob.glob(os.path.join(home, "runs", d, "*", "report.json")))
    rep = json.load(open(reports[-1])) if reports else None
    drills.append({"drill": d, "preset": preset, "rc": r["rc"], "wall_s": r["wall_s"],
                   "timed_out": r["rc"] in (124, 137),
                   "status": rep and (rep["status"].get("status") if isinstance(rep.get("status"), dict) else rep.get("status")),
                   "report_wall_s": rep and rep.get("wall_s"),
                   "claims": rep and [{k: c.get(k) for k in ("id", "measured", "op", "threshold", "pass", "observation")}
                                      for c in rep.get("claims", [])]})
kit_info = None
if os.path.exists(os.path.join(kit, "kit.json")):
    kit_info = json.load(open(os.path.join(kit, "kit.json")))
summary = {
    "gpu": gpu == "true",
    "fallback": None if gpu == "true" else "cpu",
    "kit": kit_info,
    "doctor": next((r["json"] for r in rows if r["step"] == "doctor"), None),
    "bench": [dict(step=r["step"], rc=r["rc"], result=r["json"]) for r in rows if r["step"].startswith(("bench", "pytorch"))],
    "drills": drills,
    "wall_s": round(time.time() - float(started), 1),
}
json.dump(summary, open(os.path.join(out, "summary.json"), "w"), indent=1)
print(json.dumps({k: summary[k] for k in ("gpu", "fallback", "wall_s")}))
for r in summary["bench"]:
    print(r["step"], r["rc"], json.dumps(r["result"])[:300])
for d in drills:
    held = d["claims"] and sum(1 for c in d["claims"] if c["pass"] and not c["observation"])
    total = d["claims"] and sum(1 for c in d["claims"] if not c["observation"])
    print(f'{d["drill"]} {d["preset"]}: rc {d["rc"]} · {d["wall_s"]} s · {d["status"]} · claims {held}/{total}')
PY
say "done in $(( $(date +%s) - started )) s: $OUT/summary.json"
