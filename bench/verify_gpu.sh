#!/usr/bin/env bash
# The verifier on a CUDA GPU: CUDA fault statuses, the rule fixtures, and a bf16
# transformer verified before and after `compilelint --fix --unsafe-fixes` (or the
# hand-fixed copy bench/verify_model_fixed.py while --fix does not exist), with
# Inductor, eager-vs-compiled latency and compile time.
#
#   bash bench/verify_gpu.sh [OUTDIR]          # default OUTDIR: bench/results/verify_gpu
#
# Order: the model first (the numbers that matter), then CUDA faults, then the fixtures.
# Environment: PYTHON (python3), JOBS (8: fixture targets at once), FIXTURE_BACKEND
# (eager: graph breaks are Dynamo's decision, whatever the backend; Inductor compiles of
# 100+ tiny targets would cost minutes of GPU time and say nothing more about breaks),
# MODEL_BACKEND (inductor), REPEATS (30), BASELINE (CPU fixture results to compare with),
# DEVICE (cuda; DEVICE=cpu MODEL_BACKEND=eager is a smoke test of this script, no faults),
# FIXTURE_GLOB (targets files; default every fixtures/CL*/flagged.py and clean.py),
# FIXTURE_BUDGET (300 s for the fixture step).
# One command, one machine start: the whole script is meant to be a single device run.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUTDIR="${1:-$ROOT/bench/results/verify_gpu}"
PY="${PYTHON:-python3}"
JOBS="${JOBS:-8}"
FIXTURE_BACKEND="${FIXTURE_BACKEND:-eager}"
MODEL_BACKEND="${MODEL_BACKEND:-inductor}"
REPEATS="${REPEATS:-30}"
DEVICE="${DEVICE:-cuda}"
BASELINE="${BASELINE:-$ROOT/bench/verify_fixtures_cpu.json}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/verify_gpu.XXXXXX")"
mkdir -p "$OUTDIR"
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
cd "$ROOT"

CL=("$PY" -m compilelint)

# The rules live in rules/ and import as compilelint.rules only through an install (the
# package-dir mapping in pyproject.toml). A bare checkout, as on a lent GPU machine, needs
# an editable install first, offline; without it every file lints as CL999.
if ! "$PY" -c "import compilelint.rules" 2>/dev/null; then
    "$PY" -m pip install -q --no-deps --no-build-isolation --no-index -e "$ROOT" \
        || echo "warning: could not install compilelint: static findings will be missing"
fi
section() { printf '\n=== %s ===\n' "$*"; }
stamp() { date +%s; }

section "environment"
"$PY" - <<'EOF'
import platform, torch
print(f"python {platform.python_version()}, torch {torch.__version__}, cuda {torch.version.cuda}")
if torch.cuda.is_available():
    p = torch.cuda.get_device_properties(0)
    print(f"gpu {p.name}, {p.total_memory / 2**30:.0f} GiB, {p.multi_processor_count} SMs")
else:
    print("no CUDA GPU visible")
EOF

section "Dynamo hooks on this torch"
"$PY" - <<'EOF'
import os, torch._dynamo
from torch._dynamo import convert_frame, symbolic_convert as sc
print("InstructionTranslatorBase.log_graph_break:", hasattr(sc.InstructionTranslatorBase, "log_graph_break"))
print("symbolic_convert.log_graph_break (old form):", hasattr(sc, "log_graph_break"))
print("convert_frame.get_and_maybe_log_recompilation_reasons:",
      hasattr(convert_frame, "get_and_maybe_log_recompilation_reasons"))
registry = os.path.join(os.path.dirname(torch._dynamo.__file__), "graph_break_registry.json")
print("graph_break_registry.json:", os.path.exists(registry))
c = torch._dynamo.config
print("recompile_limit:", getattr(c, "recompile_limit", None), "cache_size_limit:", getattr(c, "cache_size_limit", None))
EOF

verify_model() {  # $1: targets file, $2: label
    local t0
    t0=$(stamp)
    "${CL[@]}" verify --targets "$1" --device "$DEVICE" --backend "$MODEL_BACKEND" --measure \
        --repeats "$REPEATS" --timeout 500 --format json -o "$OUTDIR/$2.json" -q
    echo "exit $? in $(( $(stamp) - t0 )) s"
}

section "model before fixes: static findings"
"${CL[@]}" bench/verify_model.py
section "model before fixes: verify ($MODEL_BACKEND, --measure)"
verify_model bench/verify_model_targets.py before

section "fix"
mkdir -p "$WORK/auto" "$WORK/hand"
cp bench/verify_model.py bench/verify_model_targets.py "$WORK/auto/"
cp bench/verify_model_targets.py "$WORK/hand/"
cp bench/verify_model_fixed.py "$WORK/hand/verify_model.py"
runs=("before.json")
if "${CL[@]}" check --help 2>/dev/null | grep -q -- "--unsafe-fixes"; then
    "${CL[@]}" check --fix --unsafe-fixes "$WORK/auto/verify_model.py"
    echo "compilelint --fix --unsafe-fixes: exit $?"
    diff -u bench/verify_model.py "$WORK/auto/verify_model.py"
    section "model after compilelint --fix --unsafe-fixes: verify"
    verify_model "$WORK/auto/verify_model_targets.py" after_fix
    runs+=("fix=$OUTDIR/after_fix.json")
else
    echo "compilelint has no --fix yet: using the hand-fixed copy bench/verify_model_fixed.py"
fi
if [ "${#runs[@]}" -eq 1 ] || "$PY" -c "import json,sys; t=json.load(open(sys.argv[1]))['targets'][0]; sys.exit(t['breaks']['default'] == 0)" "$OUTDIR/after_fix.json"; then
    diff -u bench/verify_model.py "$WORK/hand/verify_model.py"
    "${CL[@]}" "$WORK/hand/verify_model.py"
    section "model after the hand fix: verify"
    verify_model "$WORK/hand/verify_model_targets.py" after_hand
    runs+=("hand=$OUTDIR/after_hand.json")
fi

section "summary: breaks and speed-up, before -> after"
"$PY" bench/verify_report.py model "$OUTDIR/${runs[0]}" "${runs[@]:1}"
rm -rf "$WORK"

if [ "$DEVICE" != "cpu" ]; then
    section "--device cuda without a GPU (CUDA_VISIBLE_DEVICES='')"
    CUDA_VISIBLE_DEVICES="" "${CL[@]}" verify --targets bench/verify_gpu_faults.py --device cuda -q
    echo "exit $?"

    section "CUDA faults, one process each"
    t0=$(stamp)
    "${CL[@]}" verify --targets bench/verify_gpu_faults.py --device "$DEVICE" --backend "$MODEL_BACKEND" \
        --timeout 180 --format json -o "$OUTDIR/faults.json" -q
    echo "exit $? in $(( $(stamp) - t0 )) s"
    "$PY" bench/verify_report.py faults "$OUTDIR/faults.json"
fi

section "fixtures (backend $FIXTURE_BACKEND, $JOBS at a time)"
targets=()
# shellcheck disable=SC2086  # FIXTURE_GLOB is meant to be split and expanded
for f in ${FIXTURE_GLOB:-fixtures/CL*/flagged.py fixtures/CL*/clean.py}; do targets+=(--targets "$f"); done
t0=$(stamp)
# FIXTURE_BUDGET caps this step (a device run has a hard limit); SIGTERM makes verify
# kill its targets' process groups before it exits.
timeout -s TERM "${FIXTURE_BUDGET:-300}" "${CL[@]}" verify "${targets[@]}" --device "$DEVICE" \
    --backend "$FIXTURE_BACKEND" --jobs "$JOBS" --timeout 120 --format json -o "$OUTDIR/fixtures.json" -q
echo "exit $? in $(( $(stamp) - t0 )) s"
if [ ! -f "$OUTDIR/fixtures.json" ]; then
    echo "no fixtures.json: the step ran out of its budget"
elif [ -f "$BASELINE" ]; then
    "$PY" bench/verify_report.py fixtures "$OUTDIR/fixtures.json" "$BASELINE"
else
    "$PY" bench/verify_report.py fixtures "$OUTDIR/fixtures.json"
fi

