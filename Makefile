# Two entry points on a fresh machine: `make demo` and `make test` (see README.md).
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: demo test test-slow prove venv clean iverilog chromium

venv: $(STAMP) iverilog chromium

# Icarus Verilog, the second simulator (tests/test_icarus.py): Debian's package, installed if missing
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
iverilog:
	@command -v iverilog >/dev/null || ! command -v apt-get >/dev/null || \
	  $(SUDO) apt-get install -y -qq iverilog >/dev/null 2>&1 || \
	  { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq iverilog; }

# Headless Chromium renders the HTML report as a person sees it (tests/test_html_report.py): Debian's package,
# installed if missing
chromium:
	@command -v chromium >/dev/null || command -v chromium-browser >/dev/null || ! command -v apt-get >/dev/null || \
	  $(SUDO) apt-get install -y -qq chromium >/dev/null 2>&1 || \
	  { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq chromium; }

# PYTHONWARNINGS hides setuptools' editable-install notice about folders named like the package (ours are
# mapped by package-dir); constraints.txt pins the tools that move published figures.
$(STAMP): pyproject.toml constraints.txt
	@echo "make: installing cubenoc and its dependencies from PyPI into $(VENV) (about a minute, once)"
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	PYTHONWARNINGS=ignore::UserWarning $(PY) -m pip install --quiet -c constraints.txt -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/cubenoc demo

# The default run skips tests marked `slow` (ECP5 bitstreams, long soaks); every kind of check still
# runs at least once in it (e.g. the iCEBreaker bitstream, cocotb networks). `make test-slow` runs them.
test: $(STAMP) iverilog chromium
	@echo "make test: every test except those marked slow (about 20 minutes on 2 cores in a fresh clone; make test-slow runs the rest)"
	$(PY) -m pytest -q -n 2 --dist worksteal --durations=25 -m "not slow" $(PYTEST_ARGS)

test-slow: $(STAMP) iverilog chromium
	$(PY) -m pytest -q -n 2 -m slow $(PYTEST_ARGS)

# Formal proofs (docs/formal.md) of every router shape of the default networks: Q(4,0), PDN {0,1,3,9}, MC(1,2),
# at FIFO depths 2 and 4, with each router option (fair arbitration, no loopback; pipelined where the router
# allows it: one VC); and the broadcast routers of Q(3,1) and PDN 7. Each run goes on even if an earlier one
# failed; the exit status says whether any did.
prove: $(STAMP)
	status=0; for net in "enhanced --size 4,0" "pdn --size 0,1,3,9" "metacube --size 1,2"; do for d in 2 4; do \
	  for opt in "" "--arbitration fair" "--no-loopback" "--pipeline"; do \
	    case "$$net$$opt" in metacube*--pipeline) continue;; esac; \
	    $(VENV)/bin/cubenoc prove --family $$net $$opt --depth $$d --work-dir build/prove || status=1; \
	  done; done; done; \
	for net in "enhanced --size 3,1" "pdn --size 0,1,3"; do for d in 2 4; do \
	  $(VENV)/bin/cubenoc prove --family $$net --broadcast --depth $$d --work-dir build/prove || status=1; \
	done; done; exit $$status

clean:
	rm -rf $(VENV) build *.egg-info
