# GPU Guide: `make run` serves the site, `make test` checks it. Both set up everything first.
PYTHON ?= python3
VENV ?= .venv
PORT ?= 8000
BIN := $(VENV)/bin
PY := $(BIN)/python
TRL_VENV ?= .venv-trl
TORCH_INSTALL ?= torch==2.13.0

ARGS ?=
# Python's default: cache compiled modules (and pytest its assertion rewrites) in __pycache__.
# Some machines export PYTHONDONTWRITEBYTECODE=1, which makes every run recompile the project
# and rewrite every test module (about 3 s of each `make test`).
unexport PYTHONDONTWRITEBYTECODE

.PHONY: run migrate createsuperuser shell test test-all lint format messages translations benchmark \
	screenshots mutation clean backup restore audit security loadtest fonts lighthouse \
	stack stack-stop

$(BIN)/activate:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "GPU Guide needs Python 3.11 or newer; set PYTHON=/path/to/python3.11")'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# Locked, hash-checked installs; the stamp files re-run them when a lock file changes.
$(VENV)/.installed-run: requirements.txt | $(BIN)/activate
	$(PY) -m pip install --quiet --require-hashes -r requirements.txt
	@touch $@

$(VENV)/.installed-dev: requirements-dev.txt | $(BIN)/activate
	$(PY) -m pip install --quiet --require-hashes -r requirements-dev.txt
	@touch $@ $(VENV)/.installed-run

# Babel's compiler is pure Python, so no gettext tools are needed to build the catalogues.
# Each catalogue is compiled again only when its .po file changed.
MO_FILES := $(patsubst %.po,%.mo,$(wildcard locale/*/LC_MESSAGES/django.po))
translations: $(MO_FILES)

locale/%/LC_MESSAGES/django.mo: locale/%/LC_MESSAGES/django.po | $(VENV)/.installed-run
	$(BIN)/pybabel -q compile --domain django --input-file $< --output-file $@

# A development .env (DEBUG on, a fresh secret key), so that `make run` and every
# `.venv/bin/python manage.py ...` command share one configuration. Written only when missing:
# an existing .env is never touched. token_urlsafe never starts with `$`, which django-environ
# would read as a reference to another variable.
.env:
	@key=$$($(PYTHON) -c 'import secrets; print(secrets.token_urlsafe(50))') && [ -n "$$key" ] \
		&& umask 077 && printf '%s\n' \
		'# Local development settings written by `make run`, which never overwrites this file.' \
		'# See .env.example for the other settings; real environment variables win over it.' \
		'DEBUG=true' "SECRET_KEY=$$key" > $@.tmp && mv $@.tmp $@
	@echo "  Wrote a development .env (DEBUG=true, a new SECRET_KEY); edit it as you like."

migrate: $(VENV)/.installed-run | .env
	$(PY) manage.py migrate --no-input

run: migrate translations
	$(PY) manage.py seed_content
	@echo ""
	@echo "  GPU Guide is starting at http://127.0.0.1:$(PORT)/"
	@echo "  Create an admin user with:  make createsuperuser"
	@echo "  then sign in at http://127.0.0.1:$(PORT)/en/$${ADMIN_URL:-admin/}"
	@echo "  A task worker (manage.py db_worker) runs beside the server: it renders the pages a"
	@echo "  write affected again, in the background. Ctrl-C stops both."
	@echo ""
	@$(PY) manage.py db_worker & worker=$$!; trap 'kill $$worker 2>/dev/null' EXIT INT TERM; \
		$(PY) manage.py runserver 127.0.0.1:$(PORT)

# ARGS are passed on: make createsuperuser ARGS="--noinput --username ada --email ada@example.com"
# (with DJANGO_SUPERUSER_PASSWORD set) creates one without questions.
createsuperuser: migrate
	$(PY) manage.py createsuperuser $(ARGS)

shell: migrate
	$(PY) manage.py shell $(ARGS)

# One pytest-xdist worker per core, whole files to a worker (each worker builds and seeds its
# own test database; the browser tests share one Chromium per worker). TEST_WORKERS=0 runs the
# suite in one process. `make test` runs the fast group only (`--fast`: the tests named in
# tests/fast_group.py, never the heavy group), to keep to docs/testing.md's 60 s budget; its
# summary says loudly what it did not run. `make test-all` runs everything, as CI does.
# CI runs `make test FAST='-m "not heavy"'`: the whole suite but the heavy group, on SQLite.
TEST_WORKERS ?= auto
FAST ?= --fast
PYTEST := $(BIN)/pytest -n $(TEST_WORKERS) --dist loadfile
test: $(VENV)/.installed-dev translations
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(PYTEST) $(FAST)

test-all: $(VENV)/.installed-dev translations $(TRL_VENV)/.installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	TRL_PYTHON=$(TRL_VENV)/bin/python $(PYTEST)

# TRL in an environment of its own (PyTorch is large, and the app never imports it), for the
# check of the tutorials' commands (tests/test_trl_commands.py). A CPU build of PyTorch is all
# it needs: on machines whose pip finds no local one, take it from PyTorch's CPU index, e.g.
# make test-all TORCH_INSTALL="torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu"
$(TRL_VENV)/.installed: requirements-trl.txt
	$(PYTHON) -m venv $(TRL_VENV)
	$(TRL_VENV)/bin/python -m pip install --quiet $(TORCH_INSTALL)
	$(TRL_VENV)/bin/python -m pip install --quiet -r requirements-trl.txt
	@touch $@

# The site's Latin web font (static/fonts/, committed so that `make run` needs no npm): a copy
# of the file of the @fontsource-variable/inter version package.json pins, and its licence.
# After changing that version: make fonts (tests/test_layout.py compares the copy).
INTER := node_modules/@fontsource-variable/inter
fonts:
	npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	cp $(INTER)/files/inter-latin-wght-normal.woff2 static/fonts/
	cp $(INTER)/LICENSE static/fonts/Inter-OFL.txt

# Lighthouse on a phone (home, a German guide, the Japanese GPU page) against gunicorn with
# production settings; fails below 100 for accessibility, best practices and SEO or 95 for
# performance. Downloads Lighthouse into /tmp on first use; needs npm and chromium. Not in CI.
lighthouse: $(VENV)/.installed-run translations
	scripts/lighthouse.sh

# Full-page screenshots of every page the browser tests open, in screenshots/ (ignored; needs
# chromium): every public page, guide and tutorial at 390 and 1280 px in three languages.
screenshots: $(VENV)/.installed-dev translations
	SCREENSHOTS=1 $(BIN)/pytest -m browser

# Mutation testing of the calculations, the token grammar and rendering, and the pricing reads
# and writes (see [tool.mutmut] in pyproject.toml and docs/testing.md), from a fresh mutants/
# copy each time, then the score per module. `scripts/mutation_report.py --survivors` lists the
# mutants no test killed; `$(BIN)/mutmut show NAME` shows one.
mutation: $(VENV)/.installed-dev translations
	rm -rf mutants
	$(BIN)/mutmut run
	$(PY) scripts/mutation_report.py

# The layers contract (.importlinter) also runs in the suite (tests/test_architecture.py).
lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-cache

format: $(VENV)/.installed-dev
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# Refresh the .po files from the code (needs GNU gettext's xgettext).
messages: $(VENV)/.installed-dev | .env
	$(PY) manage.py makemessages --locale de --locale ja --no-obsolete --add-location file

# The whole database to one signed file, backups/gpuguide-<engine>-<UTC time>.tar, keeping the
# newest BACKUP_KEEP there (ARGS="--output PATH": elsewhere, nothing pruned), and back after its
# checks: make restore FILE=backups/... (ARGS=--yes to replace a database that holds data).
backup: $(VENV)/.installed-run | .env
	$(PY) manage.py backup $(ARGS)

restore: $(VENV)/.installed-run | .env
	@[ -n "$(FILE)" ] || { echo "make restore needs FILE=path/to/backup" >&2; exit 2; }
	$(PY) manage.py restore "$(FILE)" $(ARGS)

# Known vulnerabilities in requirements.txt (pip-audit in a throwaway venv under /tmp). Fails on
# one; says "dependencies NOT audited" and passes when the vulnerability service is unreachable.
audit:
	PYTHON=$(PYTHON) scripts/audit_dependencies.sh requirements.txt

# Fuzzed requests, escaping and database-down figures for docs/security.md (about 2 minutes;
# ARGS="--requests 500", or ARGS="--url http://127.0.0.1:8000" for a running server).
security: $(VENV)/.installed-run translations
	$(PY) scripts/security_check.py $(ARGS)

# Queries and time of every public page on the seed and at 1,000,000 price rows (a few minutes;
# ARGS="--rows 50000" for a quick run). DATABASE_URL and CACHE_URL choose PostgreSQL and Redis.
benchmark: $(VENV)/.installed-dev translations
	$(PY) scripts/benchmark.py $(ARGS)

# gunicorn with 2 and 4 workers on PostgreSQL + Redis under wrk, loopback only (about 2 minutes).
loadtest: $(VENV)/.installed-run translations
	scripts/loadtest.sh

# The production stack on this machine: Varnish on :8080 in front of two gunicorn instances
# (:8001, :8002), the task worker and the purge worker, on PostgreSQL and Redis (scripts/stack.py;
# docs/operations.md, "Varnish in front"). Serves until Ctrl-C, then stops everything in order.
# ARGS="start" returns at once (then: make stack-stop); needs apt-get install varnish varnish-modules.
stack: $(VENV)/.installed-run translations
	$(PY) scripts/stack.py $(or $(ARGS),run)

stack-stop:
	$(PY) scripts/stack.py stop

clean:
	rm -rf $(VENV) $(TRL_VENV) staticfiles .stack .pytest_cache mutants
	find locale -name '*.mo' -delete
