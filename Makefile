# The README's two commands: `make run` (the demo) and `make test` (lint, contracts, types, tests with coverage).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint typecheck pytest browser clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

# The demo: score the bundled states and photos, then serve the web app and TV page with a replay camera
# over the bundled table photos (state kept apart from a real table's, in the venv).
run: $(STAMP)
	$(BIN)/garden-scorer demo
	$(BIN)/garden-scorer --state-dir $(VENV)/demo-state serve --camera demo --game alices-garden

test: lint typecheck pytest

# Style, then the architecture's contracts (pyproject's [tool.importlinter]).
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy

# Two processes, a test file each at a time (a file's servers and browser stay in one process).
pytest: $(STAMP)
	$(BIN)/pytest -n 2 --dist loadfile --cov --cov-report=term

# Debian's Chromium and ChromeDriver for the page tests (tests/device/web/test_pages.py skips without them); needs root.
browser:
	apt-get update -q
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium chromium-driver

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .coverage
