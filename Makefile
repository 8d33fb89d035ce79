# Two commands on a fresh machine: `make demo` and `make test` (each sets everything up).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# torch is pinned for development and CI: this CPU build lies on the dev machines' disk,
# while an unpinned torch pulls a CUDA build of several GB. The package itself only
# declares torch>=2.4 in its `verify` extra.
TORCH ?= torch==2.13.0
STAMP := $(VENV)/.compilelint-installed

.PHONY: setup demo test lint typecheck bench-speed bench-accuracy clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet "$(TORCH)" numpy -e ".[dev]"
	touch $(STAMP)

setup: $(STAMP)

demo: $(STAMP)
	@echo "== compilelint examples/tinygpt (static: no torch needed)"
	-$(BIN)/compilelint examples/tinygpt
	@echo
	@echo "== compilelint rule CL103"
	$(BIN)/compilelint rule CL103 | head -n 30

test: $(STAMP)
	$(BIN)/python -m pytest -q

typecheck: $(STAMP)
	$(BIN)/mypy

lint: $(STAMP)
	$(BIN)/compilelint compilelint rules

clean:
	rm -rf $(VENV) build dist *.egg-info
