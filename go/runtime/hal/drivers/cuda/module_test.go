package cuda_test

import (
	"bytes"
	"testing"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/hal/cts"
	"github.com/gree-ml/gree/go/runtime/hal/drivers/cuda"
	"github.com/gree-ml/gree/go/runtime/hal/drivers/cuda/cudatest"
	"github.com/gree-ml/gree/go/runtime/modules/halmodule"
	"github.com/gree-ml/gree/go/runtime/vm"
	cudaschema "github.com/gree-ml/gree/go/schemas/cuda"
	"github.com/gree-ml/gree/go/schemas/module"
	"github.com/gree-ml/gree/go/status"
)

// runScaleModule runs a module whose executable is in the cuda-nvptx-fb
// format on the default device of the cuda driver through the VM and the
// HAL bridge: the host program allocates the result, dispatches the scale
// kernel over its argument and returns the result.
func runScaleModule(t *testing.T) {
	drv, err := cuda.Factory.Create()
	if status.CodeOf(err) == status.Unavailable {
		t.Skipf("cuda unavailable here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer drv.Close()
	dev, err := drv.CreateDeviceByPath("", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()

	const groups = 5
	f := module.Function{Name: "scale", Args: []module.Kind{module.KindRef}, Results: []module.Kind{module.KindRef},
		Regs: []module.Kind{module.KindRef, module.KindI64, module.KindRef, module.KindI64, module.KindI64}}
	f.Code = []module.Instr{
		{Op: module.OpConstI, Type: module.TypeI64, Dst: []int32{1}, Imm: 16 * groups},
		{Op: module.OpAlloc, Dst: []int32{2}, Src: []int32{1}, Imm: int64(hal.ElementFloat32)},
		{Op: module.OpConstI, Type: module.TypeI64, Dst: []int32{3}, Imm: groups},
		{Op: module.OpConstI, Type: module.TypeI64, Dst: []int32{4}, Imm: 1},
		{Op: module.OpDispatch, Index: 0, Index2: 0, Imm: 0, Src: []int32{3, 4, 4, 0, 2}},
		{Op: module.OpReturn, Src: []int32{2}},
	}
	m := &module.Module{Name: "m", Functions: []module.Function{f}, Exports: []module.Export{{Name: "scale", Function: 0}},
		Executables: []module.Executable{{Format: cudaschema.Format, Entries: []string{"scale"}, Data: cts.ScalePTX()}}}
	mod, err := vm.LoadModule(module.Encode(m))
	if err != nil {
		t.Fatal(err)
	}
	c := vm.NewContext(halmodule.New(dev))
	if err := c.Register(mod); err != nil {
		t.Fatal(err)
	}
	in := cts.ScaleInput(groups)
	b, err := dev.Allocator().Allocate(hal.BufferParams{Type: hal.MemoryTypeDeviceLocal, Usage: hal.BufferUsageDefault}, int64(len(in)))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	if err := hal.WriteBuffer(dev, b, 0, in); err != nil {
		t.Fatal(err)
	}
	arg := &hal.BufferView{Shape: []int64{16 * groups}, Type: hal.ElementFloat32, Buffer: b}
	res, err := c.Invoke("m", "scale", []vm.Value{vm.RefValue(arg)})
	if err != nil {
		t.Fatal(err)
	}
	out := res[0].Ref.(*hal.BufferView)
	got, err := hal.ReadBuffer(dev, out.Buffer, 0, out.Buffer.ByteLength())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, cts.ScaleExpected(in)) {
		t.Error("the module's results differ from the kernel's definition")
	}
	c.Release(res, nil)
}

// TestCUDAModuleRuns runs the module on a real GPU (skipping without one).
func TestCUDAModuleRuns(t *testing.T) { runScaleModule(t) }

// TestCUDAModuleRunsOnFakeLibcuda runs it on the fake libcuda, loaded as
// the tools would through GREE_LIBCUDA, its kernels on the simulator.
func TestCUDAModuleRunsOnFakeLibcuda(t *testing.T) {
	path, _ := cudatest.Open(t)
	t.Setenv(cuda.LibraryEnv, path)
	runScaleModule(t)
	if errs := cudatest.SimulatorErrors(); len(errs) > 0 {
		t.Errorf("the simulator failed launches: %v", errs)
	}
}
