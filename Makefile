# The README's two commands: `make demo` and `make test`.
# Every target uses one virtual environment, .venv, and installs into it the
# extras it needs (once per extra, again when pyproject.toml changes).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: demo test test-all bench notebooks docs clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# .venv/.installed-EXTRAS: the package installed with those extras.
$(VENV)/.installed-%: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[$*]"
	touch $@

demo: $(VENV)/.installed-plot,progress
	$(BIN)/sensampler demo

# The fast suite: tests marked slow (long statistical and integration tests) are
# left to `make test-all` and to CI's second environment.
test: $(VENV)/.installed-test
	$(BIN)/python -m pytest -n 2 -q -m "not slow"

test-all: $(VENV)/.installed-all
	$(BIN)/python -m pytest -n 2 -q

bench: $(VENV)/.installed-test
	$(BIN)/python benchmarks/run.py --check

notebooks: $(VENV)/.installed-notebooks,test
	$(BIN)/python notebooks/build.py

# The site in docs/_build/html; any warning fails the build.
docs: $(VENV)/.installed-docs
	$(BIN)/python -m sphinx -b html -W --keep-going -q docs docs/_build/html

clean:
	rm -rf $(VENV) .venv-minimum sensampler-results .pytest_cache docs/_build
