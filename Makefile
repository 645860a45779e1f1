# The README's two commands: `make demo` and `make test`.
# Every target builds its own virtual environment in .venv from pyproject.toml.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test bench notebooks docs clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[all]"
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/sensampler demo

test: $(STAMP)
	$(BIN)/python -m pytest -n 2 -q

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py --check

notebooks: $(STAMP)
	$(BIN)/python notebooks/build.py

# The site in docs/_build/html; any warning fails the build.
docs: $(STAMP)
	$(BIN)/python -m sphinx -b html -W --keep-going -q docs docs/_build/html

clean:
	rm -rf $(VENV) .venv-minimum sensampler-results .pytest_cache docs/_build
