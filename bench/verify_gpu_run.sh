#!/usr/bin/env bash
# One device call for the GPU side: bench/verify_gpu.sh (model before/after --fix with
# Inductor, CUDA faults, every rule fixture on CUDA with backend eager), then
# bench/backend_hazards.py --device cuda, and, on spare cores once the timed model step is
# done, bench/claims_probe.py (CPU tensors, backend eager: how rules/claims/<release>.json
# is measured) over every fixture and the CL107 table probes, in SHARDS processes.
#
#   bash bench/verify_gpu_run.sh [OUTDIR]      # OUTDIR: default $OUT (the device's folder)
#
# Run from the repository root. The device image has torch but not libcst/flake8/pathspec:
# carry wheels in .whl/ (python3 -m pip download --no-deps --only-binary=:all:
# --python-version 3.12 ... -d .whl libcst flake8 pyflakes pycodestyle mccabe pathspec);
# they go to /tmp/site. CLAIMS_PROBES: a folder of CL107 table probes made here with
# `bench/claims.py --emit-probes DIR` (carried; optional). COMMIT: the commit measured,
# for the record (the device copy has no .git). BUDGET (560 s): everything ends by then.
# JOBS (12) and FIXTURE_BUDGET (330 s) go to verify_gpu.sh; PROBE_GLOB: the probe's files.
# Everything comes back as OUTDIR/gpu_results.tar.gz plus OUTDIR/run.log (the device
# returns at most 8 files).
set -uo pipefail

ROOT="$(pwd)"
OUTDIR="${1:-${OUT:?OUTDIR or OUT}}"
BUDGET="${BUDGET:-560}"
SHARDS="${SHARDS:-4}"
T0=$(date +%s)
STAGE="$(mktemp -d)/gpu_results"
mkdir -p "$STAGE/verify_gpu" "$STAGE/claims" "$OUTDIR"
LOG="$OUTDIR/run.log"
exec > >(tee "$LOG") 2>&1
left() { echo $(( BUDGET - ($(date +%s) - T0) )); }

echo "commit ${COMMIT:-unknown}; started $(date -u +%FT%TZ)"
if ls .whl/*.whl >/dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
        && export PYTHONPATH="/tmp/site${PYTHONPATH:+:$PYTHONPATH}"
fi
python3 -c "import compilelint.rules" 2>/dev/null \
    || python3 -m pip install -q --no-deps --no-build-isolation --no-index -e "$ROOT" 2>&1 | tail -3
if ! python3 -c "import compilelint.rules" 2>/dev/null; then  # no editable install: map rules/ by hand
    echo "editable install failed: linking compilelint/rules -> ../rules"
    ln -sfn ../rules compilelint/rules
fi
python3 -c "import compilelint.rules, libcst, flake8, pathspec, torch; print('imports ok, torch', torch.__version__)" \
    || echo "warning: compilelint does not import: static findings will be missing"

# the claims probe waits for the timed model step, then runs beside the rest
probe() {
    while ! grep -q "^=== --device cuda without a GPU" "$STAGE/verify_gpu.log" 2>/dev/null; do
        [ -f "$STAGE/verify_gpu.done" ] && break
        sleep 2
    done
    # shellcheck disable=SC2206  # PROBE_GLOB is meant to be split and expanded
    local files=(${PROBE_GLOB:-fixtures/CL*/flagged.py fixtures/CL*/clean.py})
    [ -n "${CLAIMS_PROBES:-}" ] && files+=("$CLAIMS_PROBES"/*.py)
    local t1 pids=() i
    t1=$(date +%s)
    for (( i = 0; i < SHARDS; i++ )); do
        local mine=()
        for (( j = i; j < ${#files[@]}; j += SHARDS )); do mine+=("${files[j]}"); done
        OMP_NUM_THREADS=1 PYTHONWARNINGS=ignore PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}" timeout -s KILL "$(left)" \
            nice -n 10 python3 bench/claims_probe.py --backend eager --out "$STAGE/claims/probe-$i.json" "${mine[@]}" \
            > "$STAGE/claims/probe-$i.log" 2>&1 &
        pids+=($!)
    done
    for i in "${!pids[@]}"; do wait "${pids[i]}"; echo "claims probe shard $i: exit $?"; done
    echo "claims probe: ${#files[@]} files in $(( $(date +%s) - t1 )) s"
}
probe > "$STAGE/claims/probe.log" 2>&1 &
PROBE=$!

t=$(date +%s)
JOBS="${JOBS:-12}" FIXTURE_BUDGET="${FIXTURE_BUDGET:-330}" timeout -s TERM "$(( $(left) - 40 ))" bash bench/verify_gpu.sh "$STAGE/verify_gpu" 2>&1 | tee "$STAGE/verify_gpu.log"
echo "verify_gpu.sh: exit ${PIPESTATUS[0]} in $(( $(date +%s) - t )) s"
touch "$STAGE/verify_gpu.done"

printf '\n=== bench/backend_hazards.py --device cuda ===\n'
t=$(date +%s)
timeout -s TERM "$(( $(left) - 5 ))" python3 bench/backend_hazards.py --device cuda > "$STAGE/backend_hazards.txt" 2>&1
echo "backend_hazards: exit $? in $(( $(date +%s) - t )) s"
cat "$STAGE/backend_hazards.txt"

wait "$PROBE"
cat "$STAGE/claims/probe.log"
echo "all done in $(( $(date +%s) - T0 )) s"
cp "$LOG" "$STAGE/run.log"
tar -C "$(dirname "$STAGE")" -czf "$OUTDIR/gpu_results.tar.gz" gpu_results
