#!/usr/bin/env bash
# Prepares, on this machine, everything the GPU machine's checks need, in
# .gpu/ (ignored by git): the tools (the GPU machine has no Go), Debian's
# libvulkan1 (it has no Vulkan loader), IREE's e2e test files (from an
# IREE checkout: IREE=/path/to/iree; never committed), and MobileNetV2 as
# ONNX with a reference input and output (it has no onnxruntime).
#
#   IREE=/path/to/iree tests/gpu/prepare.sh
#
# Then run the device checks with the `device` tool (one per call):
#   command: bash tests/gpu/cuda.sh              carry: [".gpu"]
#   command: bash tests/gpu/nvidia_vulkan.sh     carry: [".gpu"]
set -euo pipefail
cd "$(dirname "$0")/../.."
out=.gpu
rm -rf "$out" && mkdir -p "$out/bin" "$out/vulkan"
go build -trimpath -ldflags="-s -w" -o "$out/bin/" ./go/cmd/iree-compile ./go/cmd/iree-run-module ./go/cmd/iree-check-module ./go/cmd/iree-benchmark-module
# The cuda driver's tests, whose Hardware tests run on the real libcuda.
go test -c -trimpath -o "$out/bin/cuda.test" ./go/runtime/hal/drivers/cuda
( cd "$out" && apt-get download libvulkan1 >/dev/null && dpkg-deb -x libvulkan1_*.deb vulkan && rm -f libvulkan1_*.deb )
if [ -n "${IREE:-}" ]; then
  mkdir -p "$out/iree-e2e"
  if [ -d "$IREE/tests/e2e" ]; then
    cp -r "$IREE/tests/e2e/." "$out/iree-e2e/"
  else
    # A bare mirror: read the files from its HEAD.
    git -C "$IREE" archive HEAD tests/e2e | tar -x -C "$out" && mv "$out/tests/e2e/"* "$out/iree-e2e/" && rm -rf "$out/tests"
  fi
fi
py=/usr/bin/python3
"$py" tests/onnx/export_mobilenet_v2.py "$out/mobilenet_v2.onnx" >/dev/null
${PYTHON:-.venv/bin/python} - "$out" <<'PY'
import sys, numpy as np, onnxruntime as ort
out = sys.argv[1]
s = ort.InferenceSession(f"{out}/mobilenet_v2.onnx")
x = np.random.default_rng(0).standard_normal((1, 3, 224, 224), dtype=np.float32)
np.savez(f"{out}/mobilenet_v2_ref.npz", x=x, y=s.run(None, {s.get_inputs()[0].name: x})[0])
PY
du -sh "$out"
