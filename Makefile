# Every target sets up its own virtual environment from pyproject.toml on first use,
# so a fresh clone needs nothing but python3 (3.11+) and make.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo run test lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test,lint,bench]"
	touch $(STAMP)

demo: $(STAMP)        ## the whole pipeline offline, no token needed
	$(BIN)/habicht demo

run: $(STAMP)         ## the bot itself (needs HABICHT_BOT_TOKEN)
	$(BIN)/habicht run

test: $(STAMP)        ## the test suite
	$(BIN)/python -m pytest

lint: $(STAMP)        ## ruff (lint + format) and mypy, as CI runs them
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy habicht

bench: $(STAMP)       ## every benchmark, with ratios against its baseline
	for b in benchmarks/*.py; do $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
