#!/usr/bin/env bash
# The verifier as a compile-performance advisor on a CUDA GPU:
#   bash bench/gpu_advisor/run.sh OUTDIR [PHASE ...]      (default: every phase, in order)
# Phases (each fits one 10-minute device call):
#   overhead         bench/verify_overhead.py: 30 small targets, warm workers at --jobs 1 and 4,
#                    and 8 of them in fresh processes (--isolate) for comparison
#   advisor          verify --device cuda --measure --dynamic --compile-time over the six real
#                    models of targets.py and a printing MLP
#   fixed            the same models fixed by hand (targets *_fixed), with --dynamic
#                    (FIXED_OPTIONS=--compile-time adds the compile times)
#   fix              `compilelint --fix --unsafe-fixes` on a copy of models.py (or FIXED_MODELS=path:
#                    models.py as --fix wrote it on another machine), then verify the targets
#                    whose code it changed, from the copy
#   reduce-overhead  the small targets again under mode="reduce-overhead"
# Then summary.py writes OUTDIR/summary.md (before/after table) and, where matplotlib is
# installed, plot.png.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="$(mkdir -p "${1:-$ROOT/bench/results/gpu_advisor}" && cd "${1:-$ROOT/bench/results/gpu_advisor}" && pwd)"
shift || true
PHASES=("$@")
[ ${#PHASES[@]} -eq 0 ] && PHASES=(advisor overhead fix fixed reduce-overhead)
PY="${PYTHON:-python3}"
cd "$ROOT"
if ! "$PY" -c "import compilelint.rules" 2>/dev/null; then
    "$PY" -m pip install -q --no-deps --no-build-isolation --no-index -e "$ROOT" >/dev/null 2>&1 \
        || echo "editable install failed: findings will be CL999" >&2
fi
"$PY" -c "import torch; print('torch', torch.__version__, torch.cuda.get_device_name())"
COMMON=(--device cuda --measure --warmup 3 --repeats 15 --timeout 560 -q)
ORIGINALS=(--target target_timm_sequencer2d_s --target target_torchvision_resnet18 --target target_transformers_gpt2
           --target target_torchdiffeq_ode_block --target target_pyg_gat --target target_torchmetrics_accuracy
           --target target_printing_mlp)
FIXED=(--target target_timm_sequencer2d_s_fixed --target target_torchdiffeq_ode_block_fixed
       --target target_pyg_gat_fixed --target target_printing_mlp_fixed)
phase() { echo "== $1: rc=$2 in $3 s"; }
for name in "${PHASES[@]}"; do
    start=$(date +%s)
    case "$name" in
    overhead)
        timeout "${OVERHEAD_TIMEOUT:-560}" "$PY" bench/verify_overhead.py --device cuda --count 30 \
            --jobs ${OVERHEAD_JOBS:-1 4} --isolated-count "${ISOLATED_COUNT:-8}" --out "$OUT/overhead" | tee "$OUT/overhead.md"
        phase overhead "$?" $(( $(date +%s) - start )) ;;
    advisor)
        (cd bench/gpu_advisor && timeout "${ADVISOR_TIMEOUT:-570}" "$PY" -m compilelint verify --targets targets.py \
            "${COMMON[@]}" "${ORIGINALS[@]}" --jobs 4 --dynamic --compile-time --format json \
            -o "$OUT/verify-default.json" --summary "$OUT/verify-default.md" models.py)
        phase advisor "$?" $(( $(date +%s) - start )) ;;
    fixed)
        (cd bench/gpu_advisor && timeout "${FIXED_TIMEOUT:-570}" "$PY" -m compilelint verify --targets targets.py \
            "${COMMON[@]}" "${FIXED[@]}" --jobs 4 --dynamic ${FIXED_OPTIONS:-} --format json \
            -o "$OUT/verify-fixed.json" --summary "$OUT/verify-fixed.md" models.py)
        phase fixed "$?" $(( $(date +%s) - start )) ;;
    fix)
        copy="$(mktemp -d)/gpu_advisor"
        cp -r bench/gpu_advisor "$copy"
        if [ -n "${FIXED_MODELS:-}" ]; then
            # --fix needs libcst, which a GPU image may lack: models.py as --fix wrote it elsewhere
            cp "$FIXED_MODELS" "$copy/models.py"
        else
            "$PY" -m compilelint --fix --unsafe-fixes "$copy/models.py" > "$OUT/fix.log" 2>&1
        fi
        diff -u bench/gpu_advisor/models.py "$copy/models.py" > "$OUT/fix.diff"
        (cd "$copy" && timeout "${FIX_TIMEOUT:-300}" "$PY" -m compilelint verify --targets targets.py "${COMMON[@]}" \
            --target target_printing_mlp --compile-time --format json -o "$OUT/verify-after-fix.json" models.py)
        phase fix "$?" $(( $(date +%s) - start )) ;;
    reduce-overhead)
        (cd bench/gpu_advisor && timeout 300 "$PY" -m compilelint verify --targets targets.py "${COMMON[@]}" \
            --jobs 2 --mode reduce-overhead --target target_printing_mlp --target target_printing_mlp_fixed \
            --target target_torchvision_resnet18 --format json -o "$OUT/verify-reduce-overhead.json" models.py)
        phase reduce-overhead "$?" $(( $(date +%s) - start )) ;;
    esac
done
"$PY" bench/gpu_advisor/summary.py "$OUT" > "$OUT/summary.md" && cat "$OUT/summary.md"
