#!/usr/bin/env bash
# Build agentlab with the `cuda` feature, on a machine that has no GPU and no system CUDA toolkit.
#
# What it does, step by step:
#   1. pip-installs NVIDIA's CUDA 13.0 toolkit wheels (nvcc, nvvm, crt and cudart headers, CCCL,
#      nvrtc, curand, cublas) into target/cuda-toolkit/site (`pip install --target`, no venv, no root).
#      13.0 is pinned on purpose: the device machines run driver 580 (CUDA 13.0) and PyTorch
#      2.11+cu130; PTX from a newer nvcc would not JIT on that driver, and cudarc 0.19 knows 13.0..13.4.
#   2. Makes what the linker needs but the wheels lack: unversioned .so links (libcublas.so ->
#      libcublas.so.13, ...), libcudart.a -> libcudart_static.a (candle's own kernels call the CUDA
#      runtime: linked in statically, it needs no libcudart.so.13 at run time) and a *stub*
#      libcuda.so (the driver ships with the GPU driver, not on PyPI). They only satisfy the link:
#      the binary defines every CUDA function cudarc calls itself (src/ml/gpu/loader.rs), so it
#      NEEDs none of these libraries and opens the real ones at run time (dlopen).
#   3. Exports CUDA_ROOT/CUDA_HOME/CUDA_PATH, NVCC, PATH, CUDA_COMPUTE_CAP (90: H100/H200, sm_90,
#      since there is no GPU to ask at build time) and CUDARC_CUDA_VERSION=13000.
#   4. Runs `cargo build --release --features cuda` into target/cuda (the CPU build stays untouched).
#
# Usage: scripts/build-cuda.sh [extra cargo args]      e.g. scripts/build-cuda.sh --bin agentlab
# Env:   CUDA_COMPUTE_CAP (default 90), CARGO_TARGET_DIR (default target/cuda),
#        AGENTLAB_CUDA_TOOLKIT (default target/cuda-toolkit), PYTHON (default python3),
#        NICE (default 10: the build is polite to other jobs on the machine).
# The result starts on any Linux x86_64 machine; it uses the GPU where the NVIDIA driver and the
# CUDA 13 libraries are (see README, "GPU"). scripts/check-cuda-build.sh builds and checks it.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"

PYTHON="${PYTHON:-python3}"
TK="${AGENTLAB_CUDA_TOOLKIT:-$here/target/cuda-toolkit}"
SITE="$TK/site"
NICE="${NICE:-10}"

# One pinned, mutually consistent set (CUDA 13.0 update 2).
PKGS=(
  nvidia-cuda-nvcc==13.0.88
  nvidia-nvvm==13.0.88
  nvidia-cuda-crt==13.0.88
  nvidia-cuda-runtime==13.0.96
  nvidia-cuda-cccl==13.0.85
  nvidia-cuda-nvrtc==13.0.88
  nvidia-curand==10.4.0.35
  nvidia-cublas==13.0.2.14
)
stamp="$TK/installed.txt"

if [[ ! -f "$stamp" ]] || [[ "$(cat "$stamp")" != "${PKGS[*]}" ]]; then
  echo "==> installing CUDA toolkit wheels into $SITE (about 700 MB download)"
  rm -rf "$SITE"
  mkdir -p "$SITE"
  "$PYTHON" -m pip install --quiet --no-deps --no-compile --only-binary=:all: \
    --target "$SITE" "${PKGS[@]}"
  echo "${PKGS[*]}" >"$stamp"
fi

ROOT="$SITE/nvidia/cu13"
[[ -x "$ROOT/bin/nvcc" ]] || { echo "error: $ROOT/bin/nvcc not found after install" >&2; exit 1; }
for h in cuda.h cuda_runtime.h cuda_fp16.h cuda_bf16.h cuda_fp8.h crt/host_config.h cccl/thrust/scan.h; do
  [[ -f "$ROOT/include/$h" ]] || { echo "error: header $ROOT/include/$h missing" >&2; exit 1; }
done

# Unversioned names for the linker (-lcublas looks for libcublas.so).
for lib in cublas cublasLt curand nvrtc; do
  real="$(cd "$ROOT/lib" && ls "lib$lib".so.* 2>/dev/null | grep -v alt | head -n1 || true)"
  [[ -n "$real" ]] || { echo "error: lib$lib.so.* missing in $ROOT/lib" >&2; exit 1; }
  ln -sf "$real" "$ROOT/lib/lib$lib.so"
done
# -lcudart (candle-kernels asks for it) must find the static runtime: no libcudart.so beside it.
[[ -f "$ROOT/lib/libcudart_static.a" ]] || { echo "error: libcudart_static.a missing in $ROOT/lib" >&2; exit 1; }
rm -f "$ROOT/lib/libcudart.so"
ln -sf libcudart_static.a "$ROOT/lib/libcudart.a"

# Stub driver library: one dummy function per driver symbol cudarc declares, soname libcuda.so.1.
stubs="$ROOT/lib/stubs"
if [[ ! -f "$stubs/libcuda.so" ]]; then
  echo "==> generating stub libcuda.so"
  mkdir -p "$stubs"
  cudarc_src="$(cargo metadata --format-version 1 --features cuda 2>/dev/null | "$PYTHON" -c '
import json, sys
for p in json.load(sys.stdin)["packages"]:
    if p["name"] == "cudarc":
        print(p["manifest_path"].rsplit("/", 1)[0]); break')"
  [[ -n "$cudarc_src" ]] || { echo "error: cudarc source not found (run cargo fetch)" >&2; exit 1; }
  grep -oE 'pub (unsafe )?fn cu[A-Za-z0-9_]+' "$cudarc_src/src/driver/sys/mod.rs" |
    awk '{print $NF}' | sort -u |
    awk '{printf "int %s(void) { return 999; /* CUDA_ERROR_UNKNOWN */ }\n", $1}' >"$stubs/cuda_stub.c"
  cc -shared -fPIC -Wl,-soname,libcuda.so.1 -o "$stubs/libcuda.so" "$stubs/cuda_stub.c"
fi

export CUDA_ROOT="$ROOT" CUDA_HOME="$ROOT" CUDA_PATH="$ROOT"
export NVCC="$ROOT/bin/nvcc"
export PATH="$ROOT/bin:$PATH"
export CUDA_COMPUTE_CAP="${CUDA_COMPUTE_CAP:-90}"
export CUDARC_CUDA_VERSION=13000
export LIBRARY_PATH="$ROOT/lib:$stubs${LIBRARY_PATH:+:$LIBRARY_PATH}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$here/target/cuda}"
# build scripts run nvcc: it must find the toolkit's own libraries, never the stub.
export LD_LIBRARY_PATH="$ROOT/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

echo "==> nvcc: $("$NVCC" --version | tail -n1)"
echo "==> CUDA_COMPUTE_CAP=$CUDA_COMPUTE_CAP CARGO_TARGET_DIR=$CARGO_TARGET_DIR"
start=$(date +%s)
nice -n "$NICE" cargo build --release --features cuda "$@"
end=$(date +%s)
bin="$CARGO_TARGET_DIR/release/agentlab"
echo "==> built $bin in $((end - start)) s ($(du -h "$bin" | cut -f1))"
echo "==> it starts without any CUDA library; for the GPU it opens at run time libcuda.so.1 (the driver)"
echo "    and libcublas.so.13 libcublasLt.so.13 libcurand.so.10 libnvrtc.so.13 (from LD_LIBRARY_PATH, the"
echo "    loader's cache, or Python's site-packages/nvidia/*/lib); \`$bin doctor\` says what it found"
