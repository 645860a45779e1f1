# The README's two commands: `make demo` and `make test`.
# Every target shares one virtual environment, .venv: the dependencies of the
# extras it needs are installed once (again when pyproject.toml changes), and
# the package itself is what users get: a wheel built from this tree
# (.venv/dist), installed, never an editable checkout. The tests import that
# installed package (--import-mode=append, python -P), not the source tree.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
DIST   := $(VENV)/dist
PYTEST := $(BIN)/python -P -m pytest -n 2 -q -p no:cacheprovider

.PHONY: demo test test-all bench notebooks docs wheel clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# .venv/.installed-EXTRAS: the dependencies of those extras installed (not
# byte-compiled ahead: Python compiles what it imports, a fraction of them,
# which saves about 45 s of CPU on a fresh `make test`).
$(VENV)/.installed-%: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --no-compile ".[$*]"
	touch $@

# The wheel of this tree, built afresh (no stale build/ folder) and installed.
wheel: | $(BIN)/python
	rm -rf build $(DIST)
	$(BIN)/python -m pip wheel --quiet --no-deps --wheel-dir $(DIST) .
	$(BIN)/python -m pip install --quiet --no-deps --force-reinstall $(DIST)/sensampler-*.whl

demo: $(VENV)/.installed-plot,progress wheel
	$(BIN)/sensampler demo

# The fast suite: tests marked slow (long statistical and integration tests) are
# left to `make test-all` and to CI's second environment.
test: $(VENV)/.installed-test wheel
	SENSAMPLER_TEST_INSTALLED=1 $(PYTEST) -m "not slow"

test-all: $(VENV)/.installed-all wheel
	SENSAMPLER_TEST_INSTALLED=1 $(PYTEST)

bench: $(VENV)/.installed-test wheel
	$(BIN)/python benchmarks/run.py --check

notebooks: $(VENV)/.installed-notebooks,test wheel
	$(BIN)/python notebooks/build.py

# The site in docs/_build/html; any warning fails the build.
docs: $(VENV)/.installed-docs wheel
	$(BIN)/python -m sphinx -b html -W --keep-going -q docs docs/_build/html

clean:
	rm -rf $(VENV) .venv-minimum .venv-core build sensampler-results .pytest_cache docs/_build
