#!/usr/bin/env bash
# Build the CUDA binary with scripts/build-cuda.sh and check that it starts and trains where there is
# no GPU: the binary must not link the NVIDIA driver or a CUDA library (it opens them at run time),
# so it starts without them. Not part of CI (the build takes ~10 minutes and ~1.2 GB of toolkit).
#
# Checks, with LD_LIBRARY_PATH unset (neither the stub libcuda nor the toolkit's libraries findable):
#   1. src/ml/gpu/cuda_symbols.rs matches the cudarc in Cargo.lock (scripts/gen-cuda-symbols.sh --check);
#   2. readelf/ldd: no libcuda, libcudart, libcublas, libcublasLt, libcurand or libnvrtc, nothing "not found";
#   3. `agentlab doctor` exits 0 and reports "features: cuda yes";
#   4. `drill run sft-basics --seed 1 --device cpu` passes;
#   on a machine without the NVIDIA driver (libcuda.so.1 not in ldconfig's cache), also:
#   5. doctor says "no NVIDIA driver: libcuda.so.1 was not found" with a hint, and auto picks the CPU;
#   6. `--device auto` passes on the CPU and prints the one-line "--device auto: no usable GPU" note;
#   7. `--device cuda` is refused before a run (exit 2) naming libcuda.so.1;
#   on a machine with the driver: doctor lists a device and its smoke test passes, and
#   `--device auto` trains on cuda:0.
#
# Usage: scripts/check-cuda-build.sh [--no-build]      (--no-build: check target/cuda as it is)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"

scripts/gen-cuda-symbols.sh --check
if [[ "${1:-}" != "--no-build" ]]; then
  scripts/build-cuda.sh --bin agentlab
fi
bin="${CARGO_TARGET_DIR:-$here/target/cuda}/release/agentlab"
[[ -x "$bin" ]] || { echo "error: $bin not built" >&2; exit 1; }

unset LD_LIBRARY_PATH
export AGENTLAB_HOME="$(mktemp -d)"
trap 'rm -rf "$AGENTLAB_HOME"' EXIT
failures=0
ok() { echo "ok   $*"; }
fail() { echo "FAIL $*" >&2; failures=$((failures + 1)); }
has() { grep -qF -- "$2" <<<"$1"; }

echo "==> $bin"
needed="$(readelf -d "$bin" | grep NEEDED || true)"
echo "$needed"
lddout="$(ldd "$bin" 2>&1 || true)"
cudalibs='libcuda\.so|libcudart|libcublas|libcublasLt|libcurand|libnvrtc'
if grep -qE "$cudalibs" <<<"$needed$lddout"; then fail "the binary links a CUDA library"; else ok "links no CUDA library"; fi
if has "$lddout" "not found"; then fail "ldd: a library is not found"; else ok "ldd finds every library"; fi

driver=no
if /sbin/ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then driver=yes; fi
echo "==> NVIDIA driver on this machine: $driver"

out="$("$bin" doctor 2>&1)" && rc=0 || rc=$?
echo "$out" | sed 's/^/    /'
[[ $rc == 0 ]] && ok "doctor exits 0" || fail "doctor exits $rc"
has "$out" "features: cuda yes" && ok "doctor: cuda compiled in" || fail "doctor: features line"
if [[ $driver == no ]]; then
  has "$out" "no NVIDIA driver: libcuda.so.1 was not found" && has "$out" "hint: this machine has no NVIDIA driver" &&
    ok "doctor: names the missing driver, with a hint" || fail "doctor: missing-driver message"
  has "$out" "--device auto picks: cpu" && ok "doctor: auto picks the CPU" || fail "doctor: auto line"
else
  has "$out" "smoke test: ok" && ok "doctor: GPU smoke test" || fail "doctor: GPU smoke test"
fi

run() { # device → output; exit status in $rc
  out="$("$bin" drill run sft-basics --seed 1 --device "$1" 2>&1)" && rc=0 || rc=$?
  if (($(wc -l <<<"$out") <= 6)); then echo "$out"; else { echo "$out" | head -n 3; echo "…"; echo "$out" | tail -n 3; }; fi |
    sed 's/^/    /'
}

echo "==> drill run sft-basics --seed 1 --device cpu"
run cpu
[[ $rc == 0 ]] && has "$out" "· cpu (" && ok "cpu run passes" || fail "cpu run (exit $rc)"

echo "==> drill run sft-basics --seed 1 --device auto"
run auto
if [[ $driver == no ]]; then
  [[ $rc == 0 ]] && has "$out" "· cpu (" && has "$out" "--device auto: no usable GPU (CUDA: no NVIDIA driver" &&
    ok "auto run: CPU, with the one-line note" || fail "auto run (exit $rc)"
else
  [[ $rc == 0 ]] && has "$out" "· cuda:0" && ok "auto run: cuda:0" || fail "auto run (exit $rc)"
fi

if [[ $driver == no ]]; then
  echo "==> drill run sft-basics --seed 1 --device cuda"
  files_before="$(find "$AGENTLAB_HOME" | wc -l)"
  run cuda
  files_after="$(find "$AGENTLAB_HOME" | wc -l)"
  [[ $rc == 2 ]] && has "$out" "--device cuda: no NVIDIA driver: libcuda.so.1 was not found" &&
    [[ $files_before == "$files_after" ]] && ok "cuda run refused (exit 2, no run saved)" || fail "cuda run (exit $rc)"
fi

if [[ $failures == 0 ]]; then echo "==> all checks passed"; else echo "==> $failures check(s) failed" >&2; exit 1; fi
