#!/usr/bin/env bash
# Pack what a GPU machine needs to check agentlab into one folder of at most 60 MiB:
#
#   target/gpu-kit/
#     agentlab.xz      the CUDA build (scripts/build-cuda.sh), stripped and xz-compressed
#     gpu-check.sh     the check to run there (a copy of scripts/gpu-check.sh)
#     pytorch_bench.py PyTorch's side of the bench, for numbers side by side (bench/)
#     kit.json         commit, sizes and sha256 of the binary, when it was packed
#
# A lent GPU machine has no network and takes at most 64 MiB of files per call, so the kit
# carries no toolkit and no model: the binary opens the NVIDIA driver and the CUDA 13
# libraries it finds there at run time (README, "GPU"), the content and the tiny drills are
# embedded in it. Run it there with `scripts/gpu-check.sh target/gpu-kit OUT`.
#
# Usage: scripts/gpu-kit.sh [--build]     (--build: run scripts/build-cuda.sh first)
# Env:   KIT (default target/gpu-kit), CUDA_BIN (default target/cuda/release/agentlab),
#        KIT_LIMIT_MIB (default 60).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
KIT="${KIT:-$here/target/gpu-kit}"
BIN="${CUDA_BIN:-$here/target/cuda/release/agentlab}"
LIMIT_MIB="${KIT_LIMIT_MIB:-60}"

if [[ "${1:-}" == "--build" ]]; then
  scripts/build-cuda.sh --bin agentlab
fi
[[ -x "$BIN" ]] || { echo "error: $BIN not built: run scripts/build-cuda.sh (or scripts/gpu-kit.sh --build)" >&2; exit 1; }
"$BIN" doctor | grep -q "cuda yes" || { echo "error: $BIN is not a CUDA build (doctor does not say 'cuda yes')" >&2; exit 1; }

rm -rf "$KIT"
mkdir -p "$KIT"
tmp="$KIT/agentlab"
cp "$BIN" "$tmp"
strip "$tmp"
echo "==> stripped: $(du -h "$tmp" | cut -f1) (built: $(du -h "$BIN" | cut -f1))"
sha="$(sha256sum "$tmp" | cut -d' ' -f1)"
raw=$(stat -c %s "$tmp")
nice -n 10 xz -9e -T2 --stdout "$tmp" >"$KIT/agentlab.xz"
rm "$tmp"
cp scripts/gpu-check.sh "$KIT/gpu-check.sh"
cp bench/pytorch_bench.py "$KIT/pytorch_bench.py"
commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
dirty="$(git status --porcelain 2>/dev/null | grep -qv '^??' && echo true || echo false)"
cat >"$KIT/kit.json" <<EOF
{"commit": "$commit", "dirty": $dirty, "packed": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
 "binary_bytes": $raw, "binary_sha256": "$sha", "xz_bytes": $(stat -c %s "$KIT/agentlab.xz")}
EOF
total=$(du -sb "$KIT" | cut -f1)
mib=$(( (total + 1048575) / 1048576 ))
echo "==> $KIT: $(ls "$KIT" | tr '\n' ' ')— $mib MiB in all (limit $LIMIT_MIB MiB)"
if (( total > LIMIT_MIB * 1048576 )); then
  echo "error: the kit is $mib MiB, over $LIMIT_MIB MiB" >&2
  exit 1
fi
