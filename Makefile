# The course's commands. `make lab` and `make test` each set up everything first.
SHELL := /bin/bash
VENV ?= .venv
BIN := $(abspath $(VENV))/bin
# nbgrader's gradebook runs `alembic` by name: the venv's bin/ must be on PATH.
export PATH := $(BIN):$(PATH)
# The first Python >= 3.12 found: on PATH, then pyenv's versions (JAX 0.12 needs 3.12).
PYTHON ?= $(shell for p in python3.12 python3.13 python3 $$(ls -d $${PYENV_ROOT:-$$HOME/.pyenv}/versions/3.1[2-9]*/bin/python3 2>/dev/null); do \
	$$p -c 'import sys; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1 && { command -v $$p || echo $$p; } && break; done)
ASSIGNMENTS := $(notdir $(wildcard solutions/[0-9]*))

.PHONY: setup system-packages hub lint site test test-fast exercises references clean

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	@test -n "$(PYTHON)" || { echo "Python 3.12 or newer is needed for JAX 0.12; install it (e.g. pyenv install 3.12) and retry."; exit 1; }
	@echo "Setting up $(VENV) with $(PYTHON)"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[course,test]'
	touch $@

# For everyone, students first: in the course's own environment, no create-assignment panel
# (instructors who write exercises: `jupyter labextension enable --level=sys_prefix
# @jupyter/nbgrader:create-assignment`) and no news prompt. The whole course is served (a file
# argument alone would make its folder, course/, the root: no exercises/). Root (a container,
# this kind of machine) must say so to Jupyter explicitly.
lab: setup
	$(BIN)/jupyter labextension disable --level=sys_prefix @jupyter/nbgrader:create-assignment >/dev/null 2>&1
	mkdir -p $(VENV)/share/jupyter/lab/settings && cp binder/jupyterlab-overrides.json $(VENV)/share/jupyter/lab/settings/overrides.json
	$(BIN)/jupyter lab $(if $(filter 0,$(shell id -u)),--allow-root) --ServerApp.root_dir=$(CURDIR) course/01_arrays.ipynb

# Debian packages two tests need: chromium for the browser test (Playwright's own browsers
# cannot be downloaded everywhere the course runs) and postgresql for the PostgreSQL gradebook
# test. Installed when missing, as root with apt-get; otherwise those tests are skipped.
SYSTEM_PACKAGES := $(if $(wildcard /usr/bin/chromium),,chromium) $(if $(wildcard /usr/lib/postgresql/*/bin/initdb),,postgresql)
system-packages:
	@packages="$(strip $(SYSTEM_PACKAGES))"; \
	if [ -z "$$packages" ]; then :; \
	elif [ "$$(id -u)" != 0 ]; then echo "Missing $$packages, and not root to install: the tests needing them will be skipped."; \
	elif ! command -v apt-get >/dev/null; then echo "Missing $$packages, and no apt-get: the tests needing them will be skipped."; \
	else apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$packages \
		|| echo "Installing $$packages with apt-get failed: the tests needing them will be skipped."; fi

# A JupyterHub for a class (docs/guide/instructors.md, "On a JupyterHub"): the course's environment
# (it has JupyterHub) and the hub's proxy, configurable-http-proxy as pinned by hub/package-lock.json.
# The proxy needs Node 20+ and npm; without them `make test` says so and the hub test is skipped.
HUB_PROXY := hub/node_modules/.installed
hub: setup $(HUB_PROXY)

$(HUB_PROXY): hub/package.json hub/package-lock.json
	@if ! command -v npm >/dev/null; then echo "No npm (Node 20+): the hub's proxy is not installed; the hub test will be skipped."; \
	else cd hub && npm ci --no-audit --no-fund --loglevel=error && touch node_modules/.installed \
		|| echo "npm ci in hub/ failed: the hub's proxy is not installed; the hub test will be skipped."; fi

# ruff (lint, format), pyright (types) and import-linter (autograder/'s two sides stay apart, grading/'s packages in layers).
lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$(BIN)/pyright

# The course site (docs/guide/self-learners.md, "Read it online first"): Sphinx with myst-nb and
# sphinx-book-theme, warnings as errors, into build/site/. Lectures come from the runs the tests
# stored in build/jupyter_cache; a lecture with none (a fresh clone, or code edited since) runs here once.
SITE_SOURCE ?= .
SITE_BUILD ?= build/site
# The instructor guide's example of `jax-course report`: the page the item-analysis test writes for its
# generated class (`make test` runs that test before it builds the site).
ITEM_ANALYSIS_EXAMPLE := build/site-examples/item-analysis/items.html

$(ITEM_ANALYSIS_EXAMPLE): | setup
	$(BIN)/python -m pytest -q -n 0 -p no:cacheprovider tests/grading/test_items.py -k generated_class

site: setup $(ITEM_ANALYSIS_EXAMPLE)
	$(BIN)/sphinx-build -W --keep-going -q -b html -c docs $(SITE_SOURCE) $(SITE_BUILD)

# Everything CI runs: lint, every test tier, then the site, built from the lecture runs those tests
# stored (a lecture without one stops the build rather than running twice), and its tests.
test: lint system-packages $(HUB_PROXY)
	$(BIN)/python -m pytest -m "not site"
	SITE_LECTURES_FROM_TESTS=1 $(MAKE) --no-print-directory site
	$(BIN)/python -m pytest -m site

# The unit tier alone: the checks and the grading tools in-process.
test-fast: setup
	$(BIN)/python -m pytest -m unit

# Regenerate exercises/ and the packaged tests (tests.json) from solutions/ (run after editing a solution notebook).
exercises: setup
	for a in $(ASSIGNMENTS); do $(BIN)/nbgrader generate_assignment $$a --force --log-level=WARN || exit 1; done
	$(BIN)/jax-course references --tests-only

# Re-record the reference outputs the hidden tests compare against.
references: setup
	$(BIN)/jax-course references

clean:
	rm -rf $(VENV) gradebook.db hub/node_modules
