#!/usr/bin/env bash
# Where a GPU run's time goes, from what tests/gpu/prepare.sh left in .gpu/
# (builds nothing): bench/gpu.py, then a --trace_output timeline of each of
# its workloads summarised by tests/gpu/trace_summary.py (device time per
# call by dispatch, against the wall time per call).
#
#   (device tool) command: bash tests/gpu/cuda_profile.sh   carry: [".gpu"]
# GREE_BACKEND=vulkan-spirv GREE_DEVICE=vulkan GREE_TARGET_FLAG=--iree-vulkan-target=llvmpipe GREE_BENCH_N=256
# runs the same on lavapipe.
set -uo pipefail
cd "$(dirname "$0")/../.."
g=.gpu
backend=${GREE_BACKEND:-cuda}
device=${GREE_DEVICE:-cuda}
tflag=${GREE_TARGET_FLAG:---iree-cuda-target=sm_90}
n=${GREE_BENCH_N:-4096}
count=${GREE_CHAIN_COUNT:-67108864}
w=$(mktemp -d)
if [ "$backend" = cuda ]; then
  echo "== bench/gpu.py (cuda)"
  timeout 200 "${PYTHON:-python3}" bench/gpu.py --backend cuda --bin "$g/bin" --target "${tflag#*=}" --n "$n" \
    --model "$g/mobilenet_v2.onnx" --ref "$g/mobilenet_v2_ref.npz" --repetitions 5
fi
for t in f32 bf16; do
  cat > "$w/matmul_$t.mlir" <<M
func.func @matmul(%a: tensor<${n}x${n}x$t>, %b: tensor<${n}x${n}x$t>) -> tensor<${n}x${n}xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<${n}x${n}xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<${n}x${n}xf32>) -> tensor<${n}x${n}xf32>
  %m = linalg.matmul ins(%a, %b : tensor<${n}x${n}x$t>, tensor<${n}x${n}x$t>) outs(%f : tensor<${n}x${n}xf32>) -> tensor<${n}x${n}xf32>
  return %m : tensor<${n}x${n}xf32>
}
M
done
cat > "$w/chain.mlir" <<M
func.func @chain(%x: tensor<${count}xf32>) -> tensor<${count}xf32> {
  %two = arith.constant dense<2.0> : tensor<${count}xf32>
  %one = arith.constant dense<1.0> : tensor<${count}xf32>
  %a = arith.mulf %x, %two : tensor<${count}xf32>
  %b = arith.addf %a, %one : tensor<${count}xf32>
  %c = math.sqrt %b : tensor<${count}xf32>
  %d = arith.maximumf %c, %one : tensor<${count}xf32>
  return %d : tensor<${count}xf32>
}
M
profile() { # name source input... : compile, benchmark with a timeline, summarise
  local name=$1 src=$2; shift 2
  echo "== $name"
  "$g/bin/iree-compile" --iree-hal-target-backends="$backend" "$tflag" "$src" -o "$w/$name.vmfb" || return
  local ins=(); for i in "$@"; do ins+=("--input=$i"); done
  timeout 120 "$g/bin/iree-benchmark-module" --module="$w/$name.vmfb" --device="$device" "${ins[@]}" \
    --benchmark_min_time=5x --trace_output="$w/$name.json" 2>/dev/null | grep real_time
  python3 tests/gpu/trace_summary.py "$w/$name.json" --top 8
}
profile matmul_f32 "$w/matmul_f32.mlir" "${n}x${n}xf32=0.5" "${n}x${n}xf32=0.5"
profile matmul_bf16 "$w/matmul_bf16.mlir" "${n}x${n}xbf16=0.5" "${n}x${n}xbf16=0.5"
profile chain "$w/chain.mlir" "${count}xf32=4"
profile mobilenet_v2 "$g/mobilenet_v2.onnx" "1x3x224x224xf32=0.5"
rm -rf "$w"
