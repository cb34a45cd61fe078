# Two commands: `make run` (set up and run the demo) and `make test` (the whole suite);
# `make test-fast` runs the tests that need no server.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# the recording proxy's own environment (warcprox; requirements-recorder.txt says why)
RECORDER_VENV := .venv-recorder
RECORDER_STAMP := $(RECORDER_VENV)/.installed
# pywb for the replay tests (requirements-replay.txt)
REPLAY_VENV := .venv-replay
REPLAY_STAMP := $(REPLAY_VENV)/.installed

.PHONY: install run test test-fast lint clean

install: $(STAMP) $(RECORDER_STAMP) $(REPLAY_STAMP)

# setup.py and the .pyx/.pxd files: the compiled query path (Cython, the machine's C compiler); a
# failed build fails this target
$(STAMP): pyproject.toml setup.py $(wildcard fingerprint/compiled/*.pyx fingerprint/compiled/*.pxd)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q -U pip
	$(PY) -m pip install -q -e ".[dev]"
	$(PY) -c "import fingerprint.compiled.align, fingerprint.compiled.judge, fingerprint.compiled.keys, fingerprint.compiled.letters, fingerprint.compiled.lookup, fingerprint.compiled.rewrite"
	touch $(STAMP)

$(RECORDER_STAMP): requirements-recorder.txt
	test -x $(RECORDER_VENV)/bin/python || $(PYTHON) -m venv $(RECORDER_VENV)
	$(RECORDER_VENV)/bin/python -m pip install -q -r requirements-recorder.txt
	$(RECORDER_VENV)/bin/python -c "import warcprox.controller"
	touch $(RECORDER_STAMP)

$(REPLAY_STAMP): requirements-replay.txt
	test -x $(REPLAY_VENV)/bin/python || $(PYTHON) -m venv $(REPLAY_VENV)
	$(REPLAY_VENV)/bin/python -m pip install -q -r requirements-replay.txt
	$(REPLAY_VENV)/bin/python -c "import pywb"
	touch $(REPLAY_STAMP)

run: install
	$(PY) -m tracker.run

# Two test processes (pytest-xdist), each with its own servers and worker; a module's tests stay
# in one process (its module fixtures are made once). TEST_PROCESSES=0: all in this process.
# The tests keep their bytecode (__pycache__, and pytest's rewritten asserts) even where the
# environment sets PYTHONDONTWRITEBYTECODE: each process would compile every module again.
TEST_PROCESSES ?= 2
test: install
	PYTHONDONTWRITEBYTECODE= $(PY) -m pytest -n $(TEST_PROCESSES) --dist loadfile $(PYTEST_ARGS)

# The tests that need no server, worker or browser (markers set in tests/conftest.py).
test-fast: install
	PYTHONDONTWRITEBYTECODE= TRACKER_TEST_FAST=1 $(PY) -m pytest -q -n $(TEST_PROCESSES) -m "not services and not worker and not drill and not browser and not slow" $(PYTEST_ARGS)

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy

clean:
	rm -rf $(VENV) $(RECORDER_VENV) $(REPLAY_VENV) var
