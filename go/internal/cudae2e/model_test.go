package cudae2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler"
	"github.com/gree-ml/gree/go/runtime/hal/drivers"
	"github.com/gree-ml/gree/go/runtime/hal/drivers/cuda"
	"github.com/gree-ml/gree/go/runtime/hal/drivers/cuda/cudatest"
	"github.com/gree-ml/gree/go/runtime/tooling"
	"github.com/gree-ml/gree/go/runtime/tooling/vio"
)

// TestModelOnSimulatedGPU compiles the model GREE_CUDA_MODEL (an .onnx or
// .mlir file) for cuda and runs its function on the simulated GPU with the
// inputs of GREE_CUDA_MODEL_INPUTS, checking its results against
// GREE_CUDA_MODEL_EXPECTED (comma-separated iree-run-module values, e.g.
// @x.npy and @y.npy written by onnxruntime) within an absolute 1e-4 and
// relative 1e-3; GREE_CUDA_MODEL_OUTPUTS (e.g. @out.npy) also writes the
// results. A model is minutes on the simulator, so this is a manual
// check (docs/conformance.md), skipped unless GREE_CUDA_MODEL is set.
func TestModelOnSimulatedGPU(t *testing.T) {
	model := os.Getenv("GREE_CUDA_MODEL")
	if model == "" {
		t.Skip("GREE_CUDA_MODEL is not set (a model to run on the simulated GPU)")
	}
	src, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	out, err := compiler.Compile(src, compiler.Options{Filename: model, Backends: []string{"cuda"}, CUDA: compiler.CUDAOptions{Target: "sm_80"}})
	if err != nil {
		t.Fatalf("compiling %s for cuda: %v", model, err)
	}
	vmfb := filepath.Join(t.TempDir(), "model.vmfb")
	if err := os.WriteFile(vmfb, out, 0o644); err != nil {
		t.Fatal(err)
	}
	path, ctl := cudatest.Open(t)
	t.Setenv(cuda.LibraryEnv, path)
	drivers.RegisterAll()
	compare := func() vio.CompareOptions {
		o := vio.DefaultCompareOptions()
		o.RTol = 1e-3
		return o
	}
	split := func(s string) []string {
		if s == "" {
			return nil
		}
		return strings.Split(s, ",")
	}
	var stdout, stderr bytes.Buffer
	code := tooling.RunModule(tooling.RunOptions{
		Modules:         []string{vmfb},
		Device:          "cuda",
		Inputs:          split(os.Getenv("GREE_CUDA_MODEL_INPUTS")),
		ExpectedOutputs: split(os.Getenv("GREE_CUDA_MODEL_EXPECTED")),
		Outputs:         split(os.Getenv("GREE_CUDA_MODEL_OUTPUTS")),
		Compare:         compare(),
	}, nil, &stdout, &stderr)
	t.Logf("%d kernel launches on the simulator\n%s%s", ctl.Launches(), stdout.String(), stderr.String())
	if code != 0 {
		for _, e := range cudatest.SimulatorErrors() {
			t.Logf("simulator: %v", e)
		}
		t.Fatalf("iree-run-module on the simulated GPU: exit code %d", code)
	}
}

// TestRunModuleReadsDeviceResults runs simple_mul as iree-run-module does
// on the simulated GPU, whose device memory the host cannot map: its
// result is compared, printed and written to a .npy file through a copy to
// the host (tooling.TransferToHost), as on a discrete GPU.
func TestRunModuleReadsDeviceResults(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "..", "samples", "simple_mul.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := compiler.Compile(src, compiler.Options{Filename: "simple_mul.mlir", Backends: []string{"cuda"}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	vmfb := filepath.Join(dir, "mul.vmfb")
	if err := os.WriteFile(vmfb, out, 0o644); err != nil {
		t.Fatal(err)
	}
	path, _ := cudatest.Open(t)
	t.Setenv(cuda.LibraryEnv, path)
	drivers.RegisterAll()
	npy := filepath.Join(dir, "out.npy")
	for _, o := range []tooling.RunOptions{
		{ExpectedOutputs: []string{"4xf32=2 4 6 8"}, Outputs: []string{"@" + npy}},
		{},
	} {
		o.Modules, o.Device, o.Inputs, o.Compare, o.MaxElements = []string{vmfb}, "cuda", []string{"4xf32=1 2 3 4", "4xf32=2"}, vio.DefaultCompareOptions(), 1024
		want := "4xf32=2 4 6 8"
		if len(o.ExpectedOutputs) > 0 {
			want = "[SUCCESS]"
		}
		var stdout, stderr bytes.Buffer
		if code := tooling.RunModule(o, nil, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), want) {
			t.Fatalf("exit %d, want %q in the output:\n%s%s", code, want, stdout.String(), stderr.String())
		}
	}
	got, err := os.ReadFile(npy)
	if err != nil || len(got) < 16 {
		t.Fatalf("the .npy output: %v (%d bytes)", err, len(got))
	}
	if want := []byte{0, 0, 0, 64, 0, 0, 128, 64, 0, 0, 192, 64, 0, 0, 0, 65}; !bytes.Equal(got[len(got)-16:], want) {
		t.Errorf("the .npy output ends in %v, want 2 4 6 8 as f32 %v", got[len(got)-16:], want)
	}
}
