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

.PHONY: setup system-packages lab test exercises references clean

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	@test -n "$(PYTHON)" || { echo "Python 3.12 or newer is needed for JAX 0.12; install it (e.g. pyenv install 3.12) and retry."; exit 1; }
	@echo "Setting up $(VENV) with $(PYTHON)"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[course,test]'
	touch $@

# Root (a container, this kind of machine) must say so to Jupyter explicitly.
lab: setup
	$(BIN)/jupyter lab $(if $(filter 0,$(shell id -u)),--allow-root) course/01_arrays.ipynb

# The browser test drives Debian's chromium (Playwright's own browsers cannot be downloaded
# everywhere the course runs); without it, or without root and apt, that one test is skipped.
system-packages:
	@if [ -x /usr/bin/chromium ]; then :; \
	elif [ "$$(id -u)" != 0 ]; then echo "No /usr/bin/chromium, and not root to install it: the browser test will be skipped."; \
	elif ! command -v apt-get >/dev/null; then echo "No /usr/bin/chromium, and no apt-get to install it: the browser test will be skipped."; \
	else apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium \
		|| echo "Installing chromium with apt-get failed: the browser test will be skipped."; fi

test: setup system-packages
	$(BIN)/python -m pytest

# Regenerate exercises/ from solutions/ (run after editing a solution notebook).
exercises: setup
	for a in $(ASSIGNMENTS); do $(BIN)/nbgrader generate_assignment $$a --force --log-level=WARN || exit 1; done

# Re-record the reference outputs the hidden tests compare against.
references: setup
	$(BIN)/jax-course references

clean:
	rm -rf $(VENV) gradebook.db
