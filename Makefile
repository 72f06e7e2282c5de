# gree: build, test and check. Needs Go, a C compiler and python3.
GO      ?= go
PYTHON  ?= python3
VENV    ?= .venv
BUILD   := build
TOOLS   := iree-compile iree-run-module iree-check-module iree-benchmark-module iree-dump-module iree-run-mlir

.PHONY: all build demo test test-go test-python check clean venv

all: build

## build: libgree.so and the tools into build/
build:
	$(GO) build -trimpath -buildmode=c-shared -o $(BUILD)/libgree.so ./capi
	rm -f $(BUILD)/libgree.h
	$(GO) build -trimpath -o $(BUILD)/ $(addprefix ./go/cmd/,$(TOOLS))

## venv: a virtualenv with gree installed by `pip install .`, plus pytest
venv:
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install -q --upgrade pip
	$(VENV)/bin/python -m pip install -q . pytest

## demo: install, then list drivers and devices from the CLI and from Python
demo: venv
	$(VENV)/bin/iree-run-module --list_drivers
	$(VENV)/bin/iree-run-module --list_devices
	$(VENV)/bin/iree-run-module --dump_devices
	$(VENV)/bin/iree-compile --iree-hal-list-target-backends
	$(VENV)/bin/python examples/python/list_devices.py

## test: every test (static checks, Go, Python, the C example)
test: check test-go test-python

check:
	@bad=$$(gofmt -l go capi); if [ -n "$$bad" ]; then echo "gofmt needed:"; echo "$$bad"; exit 1; fi
	$(GO) vet ./...

test-go:
	$(GO) test ./...

test-python: venv
	cd tests/python && ../../$(VENV)/bin/python -m pytest -q -rs .

clean:
	rm -rf $(BUILD) $(VENV) python/*.egg-info
