#!/usr/bin/env bash
# The CUDA checks on the GPU machine, from what tests/gpu/prepare.sh left in
# .gpu/: builds nothing. Prints the device, the driver's hardware tests,
# the e2e runs and the benchmark, each as a short table.
#
#   (device tool) command: bash tests/gpu/cuda.sh   carry: [".gpu"]
set -uo pipefail
cd "$(dirname "$0")/../.."
g=.gpu
target=${GREE_CUDA_TARGET:-sm_90}
nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv,noheader || true
"$g/bin/iree-run-module" --list_devices 2>&1 | grep -i cuda || { echo "no CUDA device"; exit 1; }
"$g/bin/iree-run-module" --dump_devices=cuda 2>&1 | head -30
echo "== cuda driver tests on the real libcuda"
timeout 150 "$g/bin/cuda.test" -test.run '^TestConformance$|^TestHardware|^TestCUDAModuleRuns$' -test.v 2>&1 | grep -E '^ *--- (FAIL|SKIP)|^--- PASS|^(ok|FAIL|PASS)$' | tail -40
echo "== tests/e2e on cuda (--iree-cuda-target=$target) against their expected outputs"
timeout 150 python3 tests/e2e/run_check_tests.py tests/e2e --bin "$g/bin" --backend cuda \
  --flag=--iree-cuda-target="$target" --devices cuda --timeout 60 | grep -v '^PASS'
echo "== a module for a newer architecture than the device (sm_100 on $target): a clear error"
"$g/bin/iree-compile" --iree-hal-target-backends=cuda --iree-cuda-target=sm_100 samples/simple_mul.mlir -o /tmp/sm100.vmfb &&
  "$g/bin/iree-run-module" --module=/tmp/sm100.vmfb --device=cuda --input="4xf32=1 2 3 4" --input="4xf32=4 5 6 7" 2>&1 | tail -2
echo "== bench/gpu.py (cuda)"
timeout 200 "${PYTHON:-python3}" bench/gpu.py --backend cuda --bin "$g/bin" --target "$target" --n "${GREE_BENCH_N:-4096}" \
  --model "$g/mobilenet_v2.onnx" --ref "$g/mobilenet_v2_ref.npz" --repetitions 5
if [ -d "$g/iree-e2e" ]; then
  echo "== IREE's e2e suites on cuda (their flags + --iree-cuda-target=$target)"
  python3 tests/e2e/iree_suites.py "$g/iree-e2e" --backend cuda --driver cuda --bin "$g/bin" \
    --flag=--iree-cuda-target="$target" --timeout 60 | grep -v '^PASS' | grep -v '^== '
fi
