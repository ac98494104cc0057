# Every target sets up its own virtual environment from pyproject.toml on first use,
# so a fresh clone needs nothing but python3 (3.11+) and make.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo run test lint docs docs-generate bench bench-quick clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test,lint,bench,docs]"
	touch $(STAMP)

demo: $(STAMP)        ## the whole pipeline offline, no token needed
	$(BIN)/habicht demo

run: $(STAMP)         ## the bot itself (needs HABICHT_BOT_TOKEN)
	$(BIN)/habicht run

# Four workers on two cores: the end-to-end tests spend most of their time waiting on real
# time (Telegram's pacing, a restart), and the other workers' unit tests use it. Tests are
# handed out two at a time, so the slow end-to-end tests, collected first, start at once on
# every worker instead of queueing behind each other on the first.
test: $(STAMP)        ## the test suite, in parallel (pytest-xdist)
	$(BIN)/python -m pytest -n 4 --maxschedchunk 2

lint: $(STAMP)        ## ruff (lint + format), mypy and the import contracts, as CI runs them
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy habicht
	$(BIN)/lint-imports

docs: $(STAMP)        ## the docs as a site in site/; --strict: a broken link or anchor fails
	$(BIN)/mkdocs build --strict --quiet

docs-generate: $(STAMP) ## rewrite the generated parts of docs/configuration.md and docs/cli.md
	$(BIN)/python -m habicht.reference docs

# Every script in benchmarks/, with the arguments given; stops at the first that fails.
benchmarks = for b in benchmarks/*.py; do echo "== $$b $(1) at $$(date +%T)"; $(BIN)/python $$b $(1) || exit 1; done

bench: $(STAMP)       ## every benchmark, with ratios against its baseline (under 10 min)
	$(call benchmarks,)

bench-quick: $(STAMP) ## every benchmark in seconds: the same code, small shapes (CI runs it)
	$(call benchmarks,--quick)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache site
