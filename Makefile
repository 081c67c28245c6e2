# The two commands of the README: `make run` and `make test`. Both set up .venv first.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: setup run demo test test-slow lint

setup: $(STAMP)

# torch first and pinned exactly: the local CPU wheel; any other spec pulls a CUDA build.
$(STAMP): pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

# The main job: the web app on the embedded defaults (shipped models, records under ./data).
run: setup
	$(VENV)/bin/paiju serve --host 127.0.0.1 --port 8000 --data data

demo: setup
	$(VENV)/bin/paiju demo

# Browser tests drive Debian's Chromium; the script installs it (apt) only when missing.
test: setup
	sh scripts/ensure_chromium.sh
	$(VENV)/bin/ruff check src tests benchmarks
	$(VENV)/bin/mypy
	$(VENV)/bin/pytest -n 2 -q -m 'not slow and not serial'
	$(VENV)/bin/pytest -p no:xdist -q -m 'serial and not slow'

# the slow tests, then mutation testing of the yuxi effect code (about 30 min on 2 cores)
test-slow: setup
	$(VENV)/bin/pytest -n 2 -q -m slow
	$(PY) scripts/mutation_score.py --min 0.80

lint: setup
	$(VENV)/bin/ruff check src tests benchmarks
	$(VENV)/bin/mypy
