# st-audit: `make demo` and `make test` set everything up on a fresh machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install demo test bench coverage clean

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,s3,ray]'  # the optional stores and engines the tests run against (s3fs, Ray)
	$(BIN)/python -m compileall -q auditor  # byte-compiled: start-up does not recompile every module (~50 ms)
	touch $(STAMP)

demo: install
	@rm -rf demo && $(BIN)/python tools/demo.py demo
	$(BIN)/st-audit audit demo/Qwen3-8B
	@echo; echo "--- the same checkpoint after three accidents (exit code 1 expected) ---"; echo
	@$(BIN)/st-audit audit demo/Qwen3-8B-broken || echo "(st-audit exited with $$?: findings at or above --fail-on)"
	@echo; $(BIN)/st-audit audit demo/Qwen3-8B-broken -f html -o demo/report.html -q || true
	@echo "HTML report of the broken checkpoint: demo/report.html (open it in a browser)"

test: install
	$(BIN)/ruff check auditor tests tools bench fixtures
	$(BIN)/ruff format --check auditor tests tools bench fixtures
	$(BIN)/mypy
	$(BIN)/python -m pytest -n auto  # the suite's ~11k tests on every core (pytest-xdist)

coverage: install
	$(BIN)/python tools/coverage.py > docs/coverage.md

bench: install
	$(BIN)/python -m compileall -q auditor
	$(BIN)/python bench/run.py
	$(BIN)/python bench/million.py
	$(BIN)/python bench/verify_bench.py
	$(BIN)/python bench/objstore_bench.py
	$(BIN)/python bench/fleet.py

clean:
	rm -rf $(VENV) demo bench/work *.egg-info .pytest_cache .mypy_cache .ruff_cache
