// Package ptxas finds and runs NVIDIA's PTX assembler for tests: every PTX
// module gree's tests write is assembled with it for its target, which
// checks the text against the PTX ISA and reports registers and spills.
// gree itself never runs ptxas (the CUDA driver's JIT compiles PTX at load
// time); the tests get it from the nvidia-cuda-nvcc-cu12 wheel that
// tests/requirements.txt installs into the repository's .venv.
package ptxas
