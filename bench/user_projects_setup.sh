#!/usr/bin/env bash
# Build the venv the user-projects bench (bench/user_projects_bench.py) runs in:
# torch 2.13.0 CPU plus the packages the user projects call into.
#
#   bash bench/user_projects_setup.sh          # VENV=/work/venvs/userproj by default
#
# torch is pinned in the same pip command as everything that depends on it (an
# unpinned torch pulls a multi-GB CUDA build).  timm needs torchvision; PyPI's 0.28.0
# is a CUDA build whose C extension cannot load beside the CPU torch wheel, so it goes
# in with --no-deps and bench/zoo/tv_shim.py stubs its op registration (as setup_env.sh does).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV="${VENV:-/work/venvs/userproj}"
PY="${PYTHON:-python3}"
[[ -x "$VENV/bin/python" ]] || "$PY" -m venv "$VENV"
pip_q() { "$VENV/bin/python" -m pip install -q "$@" 2>&1 | grep -v "is ignored: it is neither" >&2 || true; }
pip_q torch==2.13.0 torchdiffeq torch_geometric einops pytorch-crf "transformers==4.46.3" numpy pillow pyyaml huggingface_hub safetensors
pip_q --no-deps torchvision==0.28.0 timm==1.0.31
SP="$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
cp "$HERE/zoo/tv_shim.py" "$SP/_bench_tv_shim.py"
echo "import _bench_tv_shim" > "$SP/_bench_tv_shim.pth"
"$VENV/bin/python" - <<'PY'
import importlib, json
from importlib import metadata
for m in ("torch", "torchdiffeq", "torch_geometric", "einops", "torchcrf", "timm", "transformers", "numpy"):
    importlib.import_module(m)
print(json.dumps({d: metadata.version(d) for d in ("torch", "torchdiffeq", "torch_geometric", "einops",
                  "pytorch-crf", "timm", "transformers", "numpy")}))
PY
