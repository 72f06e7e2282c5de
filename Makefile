# gree: build, test and check. Needs Go, a C compiler and python3.
GO      ?= go
PYTHON  ?= python3
VENV    ?= .venv
BUILD   := build
TOOLS   := iree-compile iree-run-module iree-check-module iree-benchmark-module iree-dump-module iree-run-mlir iree-import-onnx iree-cpuinfo iree-benchmark-executable \
           iree-create-parameters iree-dump-parameters iree-convert-parameters

.PHONY: all build demo test test-go test-python test-reliability check clean venv

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
	$(VENV)/bin/python -m pip install -q . -r tests/requirements.txt

## demo: install, then compile the samples for the CPU (vmvx) and run them
demo: venv
	mkdir -p $(BUILD)
	$(VENV)/bin/iree-run-module --list_drivers
	$(VENV)/bin/iree-compile --iree-hal-list-target-backends
	$(VENV)/bin/iree-compile --iree-hal-target-device=local --iree-hal-local-target-device-backends=vmvx samples/simple_abs.mlir -o $(BUILD)/simple_abs_vmvx.vmfb
	$(VENV)/bin/iree-run-module --module=$(BUILD)/simple_abs_vmvx.vmfb --device=local-task --function=abs --input=f32=-2
	$(VENV)/bin/iree-compile --iree-hal-target-backends=vmvx samples/simple_mul.mlir -o $(BUILD)/simple_mul.vmfb
	$(VENV)/bin/iree-run-module --module=$(BUILD)/simple_mul.vmfb --device=local-sync --input="4xf32=1 2 3 4" --input="4xf32=4 5 6 7"
	@if $(VENV)/bin/iree-compile --iree-hal-list-target-backends | grep -q llvm-cpu; then \
	  set -x; \
	  $(VENV)/bin/iree-compile --iree-hal-target-backends=llvm-cpu samples/simple_mul.mlir -o $(BUILD)/simple_mul_cpu.vmfb && \
	  $(VENV)/bin/iree-run-module --module=$(BUILD)/simple_mul_cpu.vmfb --device=local-task --input="4xf32=1 2 3 4" --input="4xf32=4 5 6 7"; \
	else echo "llvm-cpu not available (pip install llvmlite, or apt-get install libllvm19 lld-19): skipping its demo"; fi
	$(VENV)/bin/python examples/python/list_devices.py

## test: every test (static checks, Go, Python, the C example, the reliability suite)
test: check test-go test-python test-reliability

check:
	@bad=$$(gofmt -l go capi); if [ -n "$$bad" ]; then echo "gofmt needed:"; echo "$$bad"; exit 1; fi
	$(GO) vet ./...

test-go: venv
	$(GO) test ./...

test-python: venv
	cd tests/python && ../../$(VENV)/bin/python -m pytest -q -rs .

## test-reliability: mutated modules/MLIR/ONNX, bad Python calls, C ABI misuse, soak and
## threads under supervision: no crash, no hang (docs/reliability.md; ≤ 5 min on 2 cores)
test-reliability: venv
	$(VENV)/bin/python tests/reliability/run.py

clean:
	rm -rf $(BUILD) $(VENV) python/*.egg-info
