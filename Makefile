# GPU Guide: `make run` serves the site, `make test` checks it. Both set up everything first.
PYTHON ?= python3
VENV ?= .venv
PORT ?= 8000
BIN := $(VENV)/bin
PY := $(BIN)/python

.PHONY: run test lint format messages translations benchmark screenshots clean

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
translations: $(VENV)/.installed-run
	$(BIN)/pybabel -q compile --domain django --directory locale

run: export DEBUG ?= true
run: $(VENV)/.installed-run translations
	$(PY) manage.py migrate --no-input
	$(PY) manage.py seed_content
	@echo ""
	@echo "  GPU Guide is starting at http://127.0.0.1:$(PORT)/"
	@echo "  Create an admin user with:  $(PY) manage.py createsuperuser"
	@echo "  then sign in at http://127.0.0.1:$(PORT)/admin/"
	@echo ""
	$(PY) manage.py runserver 127.0.0.1:$(PORT)

test: $(VENV)/.installed-dev translations
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/pytest

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(VENV)/.installed-dev
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# Refresh the .po files from the code (needs GNU gettext's xgettext).
messages: $(VENV)/.installed-dev
	$(PY) manage.py makemessages --locale de --locale ja --no-obsolete --add-location file

benchmark: $(VENV)/.installed-dev translations
	$(PY) scripts/benchmark.py

clean:
	rm -rf $(VENV) staticfiles .pytest_cache
	find locale -name '*.mo' -delete
