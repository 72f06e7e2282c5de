#!/usr/bin/env bash
# The Vulkan checks on the GPU machine (NVIDIA's Vulkan ICD), from what
# tests/gpu/prepare.sh left in .gpu/: builds nothing. Prints the devices,
# then the e2e runs and the benchmark, each as a short table.
#
#   (device tool) command: bash tests/gpu/nvidia_vulkan.sh   carry: [".gpu"]
set -uo pipefail
cd "$(dirname "$0")/../.."
g=.gpu
export LD_LIBRARY_PATH="$PWD/$g/vulkan/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
export VK_ICD_FILENAMES=${VK_ICD_FILENAMES:-/usr/share/vulkan/icd.d/nvidia_icd.json}
target=${GREE_VULKAN_TARGET:-ampere}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
"$g/bin/iree-run-module" --list_devices 2>&1 | grep -i vulkan || { echo "no Vulkan device"; exit 1; }
echo "== tests/e2e on vulkan (--iree-vulkan-target=$target)"
python3 tests/e2e/run_check_tests.py tests/e2e --bin "$g/bin" --backend vulkan-spirv \
  --flag=--iree-vulkan-target="$target" --devices vulkan --timeout 120 | grep -v '^PASS'
if [ -d "$g/iree-e2e" ]; then
  echo "== IREE's e2e suites on vulkan (their flags + --iree-vulkan-target=$target)"
  python3 tests/e2e/iree_suites.py "$g/iree-e2e" --bin "$g/bin" --flag=--iree-vulkan-target="$target" --timeout 120 \
    | grep -v '^PASS' | grep -v '^== '
fi
echo "== bench/gpu.py (vulkan-spirv)"
"${PYTHON:-python3}" bench/gpu.py --backend vulkan-spirv --bin "$g/bin" --target "$target" --n "${GREE_BENCH_N:-4096}" --model "$g/mobilenet_v2.onnx" --ref "$g/mobilenet_v2_ref.npz" --repetitions 5
