# Two commands on a fresh machine: `make demo` and `make test` (each sets everything up).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# torch is pinned for development and CI: this CPU build lies on the dev machines' disk,
# while an unpinned torch pulls a CUDA build of several GB. The package itself only
# declares torch>=2.4 in its `verify` extra.
TORCH ?= torch==2.13.0
STAMP := $(VENV)/.compilelint-installed

.PHONY: setup demo test typecheck bench-setup bench-accuracy bench-fix-safety clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet "$(TORCH)" numpy -e ".[dev]"
	touch $(STAMP)

setup: $(STAMP)

demo: $(STAMP)
	@echo "== compilelint examples/tinygpt   (static: reads the code, never runs it)"
	$(BIN)/compilelint examples/tinygpt || true
	@echo
	@echo "== compilelint --diff --unsafe-fixes examples/tinygpt   (what --fix would change; writes nothing)"
	$(BIN)/compilelint --diff --unsafe-fixes examples/tinygpt || true
	@echo
	@echo "== compilelint verify --targets examples/tinygpt/targets.py   (runs it under torch.compile)"
	$(BIN)/compilelint verify --targets examples/tinygpt/targets.py || true

test: $(STAMP)
	$(BIN)/python -m pytest -q

typecheck: $(STAMP)
	$(BIN)/mypy

# Benchmarks (minutes to an hour; not part of the test suite)
bench-setup:
	bash bench/setup_env.sh

bench-accuracy: $(STAMP) bench-setup
	$(PYTHON) bench/zoo/run_all.py --venv .venv-bench
	$(PYTHON) bench/zoo/run_all.py --venv .venv-bench-old
	$(BIN)/python bench/accuracy.py

bench-fix-safety: $(STAMP)
	$(BIN)/python -W ignore bench/fix_safety.py

clean:
	rm -rf $(VENV) build dist *.egg-info
