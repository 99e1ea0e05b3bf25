#!/usr/bin/env bash
# Everything this project checks on a lent GPU machine, in one run (see ../README.md "Real GPU"):
# records nvidia-smi's answers to the agent's queries as fixtures, runs the guard's own suite, the ctypes
# check against the real driver, PyTorch/CuPy/JAX under the guard, and the real-driver benchmark, guard vs
# bare driver interleaved. Writes into $OUT (default /tmp/hcn-gpu). Never run in CI (no GPU there).
set -uo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
repo="$(cd "$here/../.." && pwd)"
out="${OUT:-/tmp/hcn-gpu}"
mkdir -p "$out"
status=0
step() { echo; echo "=== $* ==="; }
run() { "$@" || { echo "!!! failed ($?): $*"; status=1; }; }

step "machine"
nvidia-smi -L; nvidia-smi --version | head -3; uname -r
query=$(grep -o "'--query-gpu=[^']*'" "$repo/apps/agent/src/detectors/nvidia.detector.ts" | tr -d "'")
step "agent fixtures: nvidia-smi $query"
run nvidia-smi "$query" --format=csv,noheader,nounits | tee "$out/nvidia-smi-h100.csv"
nvidia-smi topo -m | tee "$out/nvidia-topo-h100.txt"

step "guard suite (fake driver, normal + ASan/UBSan)"
run make -C "$here" test
gcc -O2 -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -I"$here/include" -o /tmp/real_bench "$here/bench/real_bench.c" -ldl

step "real driver through ctypes"
run "$here/scripts/real-gpu-check.sh"

guard="$here/libvramguard.so"
for what in torch cupy jax; do
  step "frameworks: $what (quota 4Gi)"
  run env LD_PRELOAD="$guard" HCN_VRAM_QUOTA_BYTES=4Gi HCN_ALLOCATION_ID="fw-$what-$$" \
    timeout 300 python3 "$here/scripts/gpu_frameworks_check.py" "$what"
done
step "frameworks: torch, expandable segments"
run env LD_PRELOAD="$guard" HCN_VRAM_QUOTA_BYTES=4Gi HCN_ALLOCATION_ID="fw-exp-$$" \
  PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True timeout 300 python3 "$here/scripts/gpu_frameworks_check.py" torch

step "nvidia-smi under the guard (quota 1Gi)"
LD_PRELOAD="$guard" HCN_VRAM_QUOTA_BYTES=1Gi nvidia-smi --query-gpu=memory.total,memory.used,memory.free --format=csv

step "real-driver benchmark: 1 MiB alloc+free pairs and cuMemGetInfo, bare vs guard, 5 rounds interleaved"
: >"$out/real-bench.jsonl"
for round in 1 2 3 4 5; do
  for mode in bare guard; do
    if [ "$mode" = guard ]; then pre="$guard"; else pre=""; fi
    line=$(LD_PRELOAD="$pre" HCN_VRAM_QUOTA_BYTES=1Ti /tmp/real_bench 1048576 20000 200000) || status=1
    echo "{\"round\": $round, \"mode\": \"$mode\", \"result\": $line}" | tee -a "$out/real-bench.jsonl"
  done
done
echo; echo "device-session: $([ $status = 0 ] && echo PASS || echo FAIL)"
exit $status
