package multitarget

import (
	"bytes"
	"slices"
	"testing"

	"github.com/gree-ml/gree/go/runtime"
	"github.com/gree-ml/gree/go/runtime/hal/drivers/cuda"
	"github.com/gree-ml/gree/go/runtime/hal/drivers/cuda/cudatest"
	"github.com/gree-ml/gree/go/schemas/module"
)

// TestGPUAndCPUVariantsInOneModule compiles the program for cuda,
// vulkan-spirv and vmvx into one module (three variants of every
// executable, the GPU ones tiled unlike the CPU one) and runs it on the
// cuda driver over the fake libcuda (its launches run on gree's PTX
// simulator), on Vulkan where a device is present (lavapipe) and on
// local-task: each device prepares the variant of its own format, and the
// results are bit for bit those of the module compiled for that target
// alone.
func TestGPUAndCPUVariantsInOneModule(t *testing.T) {
	targets := []string{"cuda", "vulkan-spirv", "vmvx"}
	multi := compile(t, program, targets...)
	m, err := module.Decode(multi)
	if err != nil {
		t.Fatal(err)
	}
	if gs := m.Groups(); len(gs) != 1 || gs[0].Size != 3 {
		t.Fatalf("want one group of 3 variants, got %v", gs)
	}
	differ := false
	for _, f := range m.Functions {
		for _, in := range f.Code {
			if in.Op == module.OpDispatch && !slices.Equal(in.Src[0:3], in.Src[6:9]) {
				differ = true
			}
		}
	}
	if !differ {
		t.Errorf("the GPU and CPU variants get the same workgroup counts in every dispatch:\n%s", module.Disassemble(m))
	}

	path, ctl := cudatest.Open(t)
	t.Setenv(cuda.LibraryEnv, path)
	for v, c := range []struct{ uri, target string }{{"cuda", "cuda"}, {"vulkan", "vulkan-spirv"}, {"local-task", "vmvx"}} {
		t.Run(c.uri, func(t *testing.T) {
			dev, err := runtime.Drivers().CreateDeviceByURI(c.uri)
			if err != nil {
				if c.uri == "vulkan" {
					t.Skipf("no Vulkan device here (apt-get install libvulkan1 mesa-vulkan-drivers for lavapipe): %v", err)
				}
				t.Fatal(err)
			}
			defer dev.Close()
			launches := ctl.Launches()
			sel, got, err := run(t, dev, multi)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(sel, []int{v}) {
				t.Fatalf("%s prepared executables %v, want [%d] (%s)", c.uri, sel, v, c.target)
			}
			if c.uri == "cuda" && ctl.Launches() == launches {
				t.Fatal("no kernel ran on the (simulated) cuda device")
			}
			_, want, err := run(t, dev, compile(t, program, c.target))
			if err != nil {
				t.Fatal(err)
			}
			for i := range want {
				if !bytes.Equal(got[i], want[i]) {
					t.Errorf("result %d differs from the %s-only module's", i, c.target)
				}
			}
		})
	}
}
