#!/usr/bin/env bash
# The verifier as a compile-performance advisor on a CUDA GPU (one device run):
#   bash bench/gpu_advisor/run.sh OUTDIR
# verify --device cuda --measure over bench/gpu_advisor/targets.py (Inductor, default mode),
# then the small targets again under mode="reduce-overhead"; a table at the end.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="${1:-$ROOT/bench/results/gpu_advisor}"
PY="${PYTHON:-python3}"
mkdir -p "$OUT"
cd "$ROOT"
if ! "$PY" -c "import compilelint.rules" 2>/dev/null; then
    "$PY" -m pip install -q --no-deps --no-build-isolation --no-index -e "$ROOT" >/dev/null 2>&1 \
        || echo "editable install failed: findings will be CL999" >&2
fi
cd bench/gpu_advisor
"$PY" -c "import torch; print('torch', torch.__version__, torch.cuda.get_device_name())"
COMMON=(--targets targets.py --device cuda --measure --warmup 3 --repeats 15 --timeout 420 -q)
start=$(date +%s)
timeout 540 "$PY" -m compilelint verify "${COMMON[@]}" --jobs 3 --format json -o "$OUT/verify-default.json" models.py
echo "default mode: rc=$? in $(( $(date +%s) - start )) s"
start=$(date +%s)
timeout 200 "$PY" -m compilelint verify "${COMMON[@]}" --jobs 2 --mode reduce-overhead \
    --target target_printing_mlp --target target_printing_mlp_fixed --target target_torchvision_resnet18 \
    --format json -o "$OUT/verify-reduce-overhead.json" models.py
echo "reduce-overhead: rc=$? in $(( $(date +%s) - start )) s"
"$PY" summary.py "$OUT"/verify-*.json | tee "$OUT/summary.md"
