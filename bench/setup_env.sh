#!/usr/bin/env bash
# Build the two virtual environments the real-model benchmark (bench/zoo) runs in.
#
#   bash bench/setup_env.sh            # both venvs
#   bash bench/setup_env.sh current    # only .venv-bench
#   bash bench/setup_env.sh old        # only .venv-bench-old
#   bash bench/setup_env.sh research   # only /work/venvs/zoo-research (ZOO_VENVS=... to move it)
#   bash bench/setup_env.sh tf4        # only /work/venvs/zoo-tf4 (transformers 4.3x)
#   bash bench/setup_env.sh research2  # only /work/venvs/h-pkgs2-zoo (zuko, normflows, ...)
#   bash bench/setup_env.sh research3  # only /work/venvs/zoo-research3 (nflows, encodec, ...)
#   FORCE=1 bash bench/setup_env.sh    # rebuild even if the venv imports fine
#
# .venv-bench      torch 2.13.0 + today's transformers / timm / diffusers
# .venv-bench-old  torch 2.13.0 + older releases (transformers 4.4x, timm 0.9.x,
#                  diffusers 0.2x): older library code breaks graphs more often,
#                  which is closer to what users' code looks like.
# zoo-research     torch 2.13.0 + the plain-PyTorch packages of bench/zoo/cases/
#                  (lucidrains' models, torchdiffeq, torchsde, pytorch-crf, PyG,
#                  MONAI, kornia, torchmetrics, smp, torchvision, torchaudio, ...),
#                  every one pinned.  Outside the repo: it is large.
# zoo-tf4          torch 2.13.0 + transformers 4.3x (the oldest release that
#                  imports beside torch 2.13).
# h-pkgs2-zoo      torch 2.13.0 + five packages added later (normalizing flows,
#                  wavelets, TabNet, TCN).  The name is the one its recordings
#                  (bench/results/zoo-h-pkgs2-zoo-*.json) carry, so keep it.
# zoo-research3    torch 2.13.0 + packages added in session 10 (flows from
#                  another author, an audio codec with LSTMs, controlled
#                  differential equations, sparse softmaxes, a pure-PyTorch Mamba).
#
# Idempotent: a venv whose imports already work is left alone.  torch is ALWAYS
# pinned to 2.13.0 in the same pip command as anything that depends on it (an
# unpinned torch pulls a multi-GB CUDA build).
#
# torchvision: timm imports torchvision at import time.  PyPI's torchvision
# 0.28.0 (the release made for torch 2.13.0) is a CUDA build whose C extension
# cannot load beside the CPU torch wheel; its pure-Python part is all timm
# needs (FrozenBatchNorm2d, transforms).  We install it with --no-deps and
# bench/zoo/tv_shim.py (copied into each venv with a .pth line, and also loaded
# by bench/zoo/case.py) stubs torchvision's two op-registration modules when the
# C extension is missing (torchvision.ops.nms & co. then fail if called; no
# model in the zoo calls them).  Without it, even `import transformers` fails in
# these venvs, since transformers imports torchvision when it is installed.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
PY="${PYTHON:-python3}"
WHICH="${1:-all}"

TORCH_PIN="torch==2.13.0"
TV_PIN="torchvision==0.28.0"
COMMON_PINS=(numpy==2.4.6 safetensors==0.8.0 pillow==12.0.0 pyyaml==6.0.3 packaging filelock requests)

log() { echo "[setup_env] $*" >&2; }

make_venv() {
    local dir="$1"
    if [[ ! -x "$dir/bin/python" ]]; then
        log "creating $dir"
        "$PY" -m venv "$dir"
    fi
    "$dir/bin/python" -m pip install -q --upgrade "pip==25.3" >/dev/null 2>&1 || true
}

pip_q() {  # pip install, quiet, without the noise of the local index warnings; returns pip's status
    local dir="$1"; shift
    local out rc=0
    out="$(mktemp)"
    "$dir/bin/python" -m pip install -q "$@" >"$out" 2>&1 || rc=$?
    grep -v "is ignored: it is neither" "$out" >&2 || true
    rm -f "$out"
    return "$rc"
}

install_tv_shim() {  # copy zoo/tv_shim.py into the venv, loaded at start-up by a .pth line
    local dir="$1"
    local sp
    sp="$("$dir/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
    cp "$HERE/zoo/tv_shim.py" "$sp/_bench_tv_shim.py"
    echo "import _bench_tv_shim" > "$sp/_bench_tv_shim.pth"
}

imports_ok() {  # imports_ok VENV MODULE...
    local dir="$1"; shift
    [[ -x "$dir/bin/python" ]] || return 1
    ( cd "$HERE" && "$dir/bin/python" - "$@" <<'EOF'
import sys, importlib
for m in sys.argv[1:]:
    importlib.import_module(m)
EOF
    ) >/dev/null 2>&1
}

write_versions() {
    local dir="$1"
    ( cd "$HERE" && "$dir/bin/python" - <<'EOF'
import sys, json, importlib
out = {}
for m in ("torch", "torchvision", "transformers", "timm", "diffusers", "numpy", "huggingface_hub", "tokenizers", "safetensors"):
    try:
        out[m] = importlib.import_module(m).__version__
    except Exception as e:  # noqa: BLE001
        out[m] = None
        out[m + ".error"] = f"{type(e).__name__}: {e}"[:300]
print(json.dumps(out, indent=1))
EOF
    ) > "$dir/bench-versions.json"
    "$dir/bin/python" -m pip freeze > "$dir/bench-freeze.txt" 2>/dev/null || true
    log "$(basename "$dir"): $(tr -d '\n ' < "$dir/bench-versions.json")"
}

setup_current() {
    local dir="$ROOT/.venv-bench"
    [[ -x "$dir/bin/python" ]] && install_tv_shim "$dir"
    if [[ -z "${FORCE:-}" ]] && imports_ok "$dir" torch transformers timm diffusers; then
        log "$dir already works; skipping (FORCE=1 to rebuild)"
        return 0
    fi
    make_venv "$dir"
    pip_q "$dir" "$TORCH_PIN" "${COMMON_PINS[@]}" \
        transformers==5.24.0 diffusers==0.42.1 huggingface-hub==2.4.0 tokenizers==0.23.3
    # timm needs torchvision; install both without letting pip pull another torch.
    pip_q "$dir" --no-deps "$TV_PIN" timm==1.0.31
    install_tv_shim "$dir"
    imports_ok "$dir" torch transformers timm diffusers || { log "ERROR: imports fail in $dir"; return 1; }
    write_versions "$dir"
}

# Older releases, tried newest first; the first that installs AND imports wins.
OLD_TRANSFORMERS=(4.46.3 4.45.2 4.44.2 4.43.4 4.42.4 4.41.2 4.40.2)
OLD_TIMM=(0.9.16 0.9.12 0.9.8)
OLD_DIFFUSERS=(0.29.2 0.28.2 0.27.2 0.26.3 0.25.1)

setup_old() {
    local dir="$ROOT/.venv-bench-old"
    [[ -x "$dir/bin/python" ]] && install_tv_shim "$dir"
    if [[ -z "${FORCE:-}" && -f "$dir/bench-versions.json" ]] && imports_ok "$dir" torch \
        && grep -q '"torch": "2.13' "$dir/bench-versions.json"; then
        log "$dir already set up; skipping (FORCE=1 to rebuild)"
        cat "$dir/bench-versions.json" >&2
        return 0
    fi
    make_venv "$dir"
    # huggingface-hub 0.25.x: the last with cached_download (diffusers < 0.27 imports it)
    # and new enough for transformers 4.4x.  numpy < 2 for the old releases.
    pip_q "$dir" "$TORCH_PIN" numpy==1.26.4 safetensors==0.4.5 pillow==11.0.0 pyyaml==6.0.2 \
        huggingface-hub==0.25.2 packaging filelock requests regex tqdm importlib_metadata
    pip_q "$dir" --no-deps "$TV_PIN"
    install_tv_shim "$dir"
    local notes="$dir/bench-install-notes.txt"
    : > "$notes"
    local v ok
    ok=""
    for v in "${OLD_TRANSFORMERS[@]}"; do
        if pip_q "$dir" "$TORCH_PIN" "transformers==$v" "huggingface-hub==0.25.2" \
            && imports_ok "$dir" transformers transformers.models.llama.modeling_llama; then
            echo "transformers==$v: installed and imports" >> "$notes"; ok=1; break
        else
            echo "transformers==$v: did not install/import" >> "$notes"
        fi
    done
    [[ -n "$ok" ]] || echo "transformers: no 4.4x release works beside torch 2.13 (skipped)" >> "$notes"
    ok=""
    for v in "${OLD_TIMM[@]}"; do
        if pip_q "$dir" --no-deps "timm==$v" && imports_ok "$dir" timm; then
            echo "timm==$v: installed and imports" >> "$notes"; ok=1; break
        else
            echo "timm==$v: did not install/import" >> "$notes"
        fi
    done
    [[ -n "$ok" ]] || echo "timm: no 0.9.x release works (skipped)" >> "$notes"
    ok=""
    for v in "${OLD_DIFFUSERS[@]}"; do
        if pip_q "$dir" "$TORCH_PIN" "diffusers==$v" "huggingface-hub==0.25.2" \
            && imports_ok "$dir" diffusers diffusers.models; then
            echo "diffusers==$v: installed and imports" >> "$notes"; ok=1; break
        else
            echo "diffusers==$v: did not install/import" >> "$notes"
        fi
    done
    [[ -n "$ok" ]] || echo "diffusers: no 0.2x release works (skipped)" >> "$notes"
    cat "$notes" >&2
    write_versions "$dir"
}

ZOO_VENVS="${ZOO_VENVS:-/work/venvs}"
RESEARCH_PINS=(
    axial-attention==0.6.1 bottleneck-transformer-pytorch==0.1.4 conformer==0.3.2
    denoising-diffusion-pytorch==2.3.4 efficientnet_pytorch==0.7.1 egnn-pytorch==0.2.8 einops==0.8.2
    g-mlp-pytorch==0.1.5 halonet-pytorch==0.0.5 julius==0.2.8 kornia==0.9.0 lambda-networks==0.4.0
    linear-attention-transformer==0.19.1 local-attention==1.11.2 mixture-of-experts==0.2.3
    mlp-mixer-pytorch==0.3.1 monai==1.6.1 nystrom-attention==0.0.14 perceiver-pytorch==0.11.0
    performer-pytorch==1.1.4 pretrainedmodels==0.7.4 pytorch-crf==0.7.2 reformer-pytorch==1.4.4
    res-mlp-pytorch==0.0.6 rotary-embedding-torch==0.9.1 scipy==1.17.1 segmentation_models_pytorch==0.6.0
    six==1.17.0 soft-moe-pytorch==0.1.9 st-moe-pytorch==0.1.8 tab-transformer-pytorch==0.6.1 timm==1.0.31
    torch-geometric==2.8.1 torchdiffeq==0.2.5 torchmetrics==1.9.0 torchsde==0.2.6
    vector-quantize-pytorch==1.32.0 vit-pytorch==1.26.14 x-transformers==2.31.10
)

disable_torchaudio_extension() {  # disable_torchaudio_extension VENV
    # torchaudio: PyPI has no release for torch 2.13; 2.11.1's C extension is a CUDA
    # build that cannot load beside the CPU torch.  Its models and transforms are pure
    # Python: move the .so files aside and torchaudio imports without them.
    local sp
    sp="$("$1/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
    mkdir -p "$sp/torchaudio/lib-disabled"
    mv "$sp"/torchaudio/lib/*.so "$sp/torchaudio/lib-disabled/" 2>/dev/null || true
}

setup_research() {
    local dir="$ZOO_VENVS/zoo-research"
    if [[ -z "${FORCE:-}" ]] && imports_ok "$dir" torch x_transformers torch_geometric torchaudio torchvision; then
        log "$dir already works; skipping (FORCE=1 to rebuild)"
        return 0
    fi
    make_venv "$dir"
    pip_q "$dir" "$TORCH_PIN" numpy==2.4.6 pillow
    pip_q "$dir" --no-deps "$TV_PIN"
    install_tv_shim "$dir"
    pip_q "$dir" "$TORCH_PIN" "$TV_PIN" "${RESEARCH_PINS[@]}"
    pip_q "$dir" --no-deps torchaudio==2.11.1
    disable_torchaudio_extension "$dir"
    imports_ok "$dir" torch x_transformers torch_geometric torchaudio torchvision monai \
        || { log "ERROR: imports fail in $dir"; return 1; }
    "$dir/bin/python" -m pip freeze > "$dir/bench-freeze.txt" 2>/dev/null || true
}

# transformers 4.3x, oldest first: the first that installs AND imports wins.
TF4_RELEASES=(4.36.2 4.37.2 4.38.2 4.39.3)

setup_tf4() {
    local dir="$ZOO_VENVS/zoo-tf4"
    if [[ -z "${FORCE:-}" ]] && imports_ok "$dir" torch transformers transformers.models.llama.modeling_llama; then
        log "$dir already works; skipping (FORCE=1 to rebuild)"
        return 0
    fi
    make_venv "$dir"
    pip_q "$dir" "$TORCH_PIN" numpy==1.26.4 safetensors==0.4.5 pyyaml==6.0.2 huggingface-hub==0.25.2 \
        packaging filelock requests regex tqdm
    local v
    for v in "${TF4_RELEASES[@]}"; do
        if pip_q "$dir" "$TORCH_PIN" "transformers==$v" "huggingface-hub==0.25.2" \
            && imports_ok "$dir" transformers transformers.models.llama.modeling_llama; then
            log "transformers==$v: installed and imports"; break
        fi
        log "transformers==$v: did not install/import"
    done
    write_versions "$dir"
}

RESEARCH2_PINS=(
    zuko==1.6.0 normflows==1.7.3 pytorch-tabnet==4.1.0 pytorch-tcn==1.2.3 pytorch-wavelets==1.3.0
    PyWavelets scipy==1.17.1 "setuptools<81"  # pytorch_wavelets imports pkg_resources (gone in 81)
)

setup_research2() {
    local dir="$ZOO_VENVS/h-pkgs2-zoo"
    if [[ -z "${FORCE:-}" ]] && imports_ok "$dir" torch zuko normflows pytorch_tabnet pytorch_tcn pytorch_wavelets; then
        log "$dir already works; skipping (FORCE=1 to rebuild)"
        return 0
    fi
    make_venv "$dir"
    pip_q "$dir" "$TORCH_PIN" numpy==2.4.6 "${RESEARCH2_PINS[@]}"
    imports_ok "$dir" torch zuko normflows pytorch_tabnet pytorch_tcn pytorch_wavelets \
        || { log "ERROR: imports fail in $dir"; return 1; }
    "$dir/bin/python" -m pip freeze > "$dir/bench-freeze.txt" 2>/dev/null || true
}

RESEARCH3_PINS=(nflows==0.14 encodec==0.1.1 torchcde==0.2.5 entmax==1.3 mambapy==1.2.0 scipy==1.17.1)

setup_research3() {
    local dir="$ZOO_VENVS/zoo-research3"
    if [[ -z "${FORCE:-}" ]] && imports_ok "$dir" torch nflows encodec torchcde entmax mambapy; then
        log "$dir already works; skipping (FORCE=1 to rebuild)"
        return 0
    fi
    make_venv "$dir"
    pip_q "$dir" "$TORCH_PIN" numpy==2.4.6 "${RESEARCH3_PINS[@]}"
    disable_torchaudio_extension "$dir"  # encodec imports torchaudio (pip takes 2.11.1)
    imports_ok "$dir" torch nflows encodec torchcde entmax mambapy \
        || { log "ERROR: imports fail in $dir"; return 1; }
    "$dir/bin/python" -m pip freeze > "$dir/bench-freeze.txt" 2>/dev/null || true
}

case "$WHICH" in
    all) setup_current; setup_old; setup_research; setup_tf4; setup_research2; setup_research3 ;;
    current) setup_current ;;
    old) setup_old ;;
    research) setup_research ;;
    tf4) setup_tf4 ;;
    research2) setup_research2 ;;
    research3) setup_research3 ;;
    *) echo "usage: $0 [all|current|old|research|tf4|research2|research3]" >&2; exit 2 ;;
esac
