package cuda

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/hal/cts"
	"github.com/gree-ml/gree/go/runtime/hal/drivers/cuda/cudatest"
	cudaschema "github.com/gree-ml/gree/go/schemas/cuda"
	"github.com/gree-ml/gree/go/status"
)

func TestFakePrepareJITErrorLogInError(t *testing.T) {
	spec, _ := fakeLibcuda(t)
	dev := openFake(t, createFake(t, spec))
	bad := append([]byte("// FAKE_JIT_ERROR\n"), scalePTX...)
	data, err := cudaschema.Encode(&cudaschema.Executable{Variants: []cudaschema.Variant{{Arch: "sm_60", PTXVersion: 70, PTX: bad,
		Entries: []cudaschema.Entry{{Name: "scale", Symbol: "scale", BlockSize: [3]int{16, 1, 1}, Bindings: []cudaschema.Access{1, 2}, Flags: cudaschema.FlagErrors}}}}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = dev.PrepareExecutable(cudaschema.Format, data)
	if status.CodeOf(err) != status.InvalidArgument {
		t.Errorf("code %v, want INVALID_ARGUMENT: %v", status.CodeOf(err), err)
	}
	for _, want := range []string{"cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_PTX (218)", "JIT error log:\nptxas fatal   : fake JIT failure", "JIT info log:"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
}

func TestFakePrepareChoosesVariant(t *testing.T) {
	spec, ctl := fakeLibcuda(t)
	d := createFake(t, spec)
	sm90, err := d.CreateDevice(1, nil) // compute capability 9.0
	if err != nil {
		t.Fatal(err)
	}
	defer sm90.Close()
	sm80, err := d.CreateDevice(2, nil) // 8.0
	if err != nil {
		t.Fatal(err)
	}
	defer sm80.Close()
	data := scaleExecutable(t, "sm_60", "sm_90a", "sm_80")
	for dev, want := range map[hal.Device]string{sm90: "sm_90a", sm80: "sm_80"} {
		exe := prepare(t, dev, data)
		if got := exe.(*executable).arch; got != want {
			t.Errorf("%s loaded %s, want %s", dev.(*device).describe(), got, want)
		}
	}
	_, err = sm90.PrepareExecutable(cudaschema.Format, scaleExecutable(t, "sm_100", "sm_120"))
	if status.CodeOf(err) != status.FailedPrecondition || !strings.Contains(err.Error(), "built for sm_100, sm_120; device cuda://GPU-a0a1a2a3-a4a5-a6a7-a8a9-aaabacadaeaf (Fake GPU 0, sm_90) is sm_90") {
		t.Errorf("no variant runs: %v", err)
	}
	ctl.SetFuncMaxThreads(8)
	_, err = sm90.PrepareExecutable(cudaschema.Format, data)
	if status.CodeOf(err) != status.FailedPrecondition || !strings.Contains(err.Error(), "16 threads per block") {
		t.Errorf("a block larger than the function allows: %v", err)
	}
	_, err = sm90.PrepareExecutable("vulkan-spirv-fb", data)
	if status.CodeOf(err) != status.Unimplemented {
		t.Errorf("another format: %v", err)
	}
	_, err = sm90.PrepareExecutable(cudaschema.Format, []byte("not an executable"))
	if err == nil {
		t.Error("garbage prepared")
	}
}

func TestFakeOutOfMemoryIsResourceExhausted(t *testing.T) {
	spec, ctl := fakeLibcuda(t)
	dev := openFake(t, createFake(t, spec))
	ctl.SetMemLimit(1 << 20)
	params := hal.BufferParams{Type: hal.MemoryTypeDeviceLocal, Usage: hal.BufferUsageDefault}
	_, err := dev.Allocator().Allocate(params, 2<<20)
	if status.CodeOf(err) != status.ResourceExhausted || !strings.Contains(err.Error(), "cuMemAlloc_v2 failed: CUDA_ERROR_OUT_OF_MEMORY (2)") {
		t.Errorf("allocating past the memory: %v", err)
	}
	b, err := dev.Allocator().Allocate(params, 1024)
	if err != nil {
		t.Fatalf("allocating after running out: %v", err)
	}
	b.Release()
	// A stream-ordered allocation that runs out fails its signal and the
	// buffer's later uses.
	s, _ := dev.CreateSemaphore(0)
	q, err := hal.QueueAlloca(dev, nil, hal.SemaphoreList{{Semaphore: s, Value: 1}}, params, 4<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Release()
	if err := s.Wait(1, time.Now().Add(30*time.Second)); status.CodeOf(err) != status.ResourceExhausted {
		t.Errorf("queue allocation past the memory: %v", err)
	}
	err = execute(t, dev, func(cb *hal.CommandBuffer) error { return cb.Fill(hal.WholeBuffer(q), []byte{1}) })
	if status.CodeOf(err) != status.ResourceExhausted || !strings.Contains(err.Error(), "queue allocation failed") {
		t.Errorf("using a buffer whose queue allocation failed: %v", err)
	}
}

func TestFakeQueueAllocaFollowsFlag(t *testing.T) {
	for _, async := range []bool{true, false} {
		spec, ctl := fakeLibcuda(t)
		d := createFake(t, spec)
		d.opts.asyncAllocations = async
		dev := openFake(t, d)
		s, _ := dev.CreateSemaphore(0)
		params := hal.BufferParams{Type: hal.MemoryTypeDeviceLocal, Usage: hal.BufferUsageDefault}
		b, err := hal.QueueAlloca(dev, nil, hal.SemaphoreList{{Semaphore: s, Value: 1}}, params, 256)
		if err != nil {
			t.Fatal(err)
		}
		if err := hal.QueueFill(dev, hal.SemaphoreList{{Semaphore: s, Value: 1}}, hal.SemaphoreList{{Semaphore: s, Value: 2}}, hal.WholeBuffer(b), []byte{4}); err != nil {
			t.Fatal(err)
		}
		if err := hal.QueueDealloca(dev, hal.SemaphoreList{{Semaphore: s, Value: 2}}, hal.SemaphoreList{{Semaphore: s, Value: 3}}, b); err != nil {
			t.Fatal(err)
		}
		if err := s.Wait(3, time.Now().Add(30*time.Second)); err != nil {
			t.Fatal(err)
		}
		if got, want := ctl.AsyncAllocs(), map[bool]int32{true: 1, false: 0}[async]; got != want {
			t.Errorf("--cuda_async_allocations=%v: %d cuMemAllocAsync calls, want %d", async, got, want)
		}
		b.Release()
		if n := ctl.LiveDeviceAllocs(); n != 0 {
			t.Errorf("--cuda_async_allocations=%v: %d allocations live after the dealloca", async, n)
		}
	}
}

func TestFakeCloseFreesEveryCUDAObject(t *testing.T) {
	spec, ctl := fakeLibcuda(t)
	d := createFake(t, spec)
	dev, err := d.CreateDevice(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	exe, err := dev.PrepareExecutable(cudaschema.Format, scaleExecutable(t))
	if err != nil {
		t.Fatal(err)
	}
	kept := deviceBuffer(t, dev, 128)
	host, err := dev.Allocator().Allocate(hal.BufferParams{Type: hal.MemoryTypeHostLocal | hal.MemoryTypeDeviceVisible, Usage: hal.BufferUsageDefault | hal.BufferUsageMapping}, 64)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runScale(t, dev, exe, [3]int64{2, 1, 1}, make([]byte, 128), 128); err != nil {
		t.Fatal(err)
	}
	if ctl.LiveModules() != 1 || ctl.LiveStreams() != 1 {
		t.Fatalf("%d modules, %d streams live", ctl.LiveModules(), ctl.LiveStreams())
	}
	if err := dev.Close(); err != nil {
		t.Fatal(err)
	}
	if n := ctl.LiveModules(); n != 0 {
		t.Errorf("%d modules left loaded by Close", n)
	}
	if n := ctl.LiveEvents(); n != 0 {
		t.Errorf("%d events left by Close", n)
	}
	// Buffers outlive their device: the context stays until they go.
	if ctl.Retained(0) != 1 || ctl.LiveStreams() != 1 {
		t.Errorf("the context (%d) or stream (%d) went while buffers are live", ctl.Retained(0), ctl.LiveStreams())
	}
	if err := hal.WriteBuffer(nil, host, 0, []byte("still mapped")); err != nil {
		t.Errorf("host buffer after its device closed: %v", err)
	}
	// Use after close is an error naming what was used.
	if _, err := dev.Allocator().Allocate(hal.BufferParams{Type: hal.MemoryTypeDeviceLocal}, 4); status.CodeOf(err) != status.FailedPrecondition || !strings.Contains(err.Error(), "cuda://") {
		t.Errorf("allocating on a closed device: %v", err)
	}
	if _, err := dev.PrepareExecutable(cudaschema.Format, scaleExecutable(t)); status.CodeOf(err) != status.FailedPrecondition || !strings.Contains(err.Error(), "is closed") {
		t.Errorf("preparing on a closed device: %v", err)
	}
	if err := exe.(*executable).acquire(); status.CodeOf(err) != status.FailedPrecondition || !strings.Contains(err.Error(), "closed with its device") {
		t.Errorf("an executable of a closed device: %v", err)
	}
	kept.Release()
	host.Release()
	for name, n := range map[string]int64{"device allocations": ctl.LiveDeviceAllocs(), "host allocations": ctl.LiveHostAllocs(),
		"streams": ctl.LiveStreams(), "events": ctl.LiveEvents(), "modules": ctl.LiveModules(), "retained contexts": int64(ctl.Retained(0))} {
		if n != 0 {
			t.Errorf("%d %s left after the device and its buffers went", n, name)
		}
	}
	if ctl.ContextCalls() == 0 {
		t.Error("no call needed a context")
	}
	exe.Close()
}

func TestFakeExecutableCloseWaitsForSubmissions(t *testing.T) {
	spec, ctl := fakeLibcuda(t)
	dev := openFake(t, createFake(t, spec))
	exe, err := dev.PrepareExecutable(cudaschema.Format, scaleExecutable(t))
	if err != nil {
		t.Fatal(err)
	}
	gate, _ := dev.CreateSemaphore(0)
	done, _ := dev.CreateSemaphore(0)
	b := deviceBuffer(t, dev, 64)
	cb, _ := hal.NewCommandBuffer(hal.CommandBufferOneShot, hal.CommandCategoryAny, 0)
	cb.Begin()
	cb.Dispatch(exe, 0, [3]int64{1, 1, 1}, nil, []hal.BufferRef{hal.WholeBuffer(b), hal.WholeBuffer(b)})
	cb.End()
	if err := dev.QueueExecute(hal.SemaphoreList{{Semaphore: gate, Value: 1}}, hal.SemaphoreList{{Semaphore: done, Value: 1}}, cb, nil); err != nil {
		t.Fatal(err)
	}
	cb.Release()
	exe.Close()
	if ctl.LiveModules() != 1 {
		t.Fatal("the module was unloaded while a submission uses it")
	}
	gate.Signal(1)
	if err := done.Wait(1, time.Now().Add(30*time.Second)); err != nil {
		t.Fatal(err)
	}
	if ctl.LiveModules() != 0 {
		t.Error("the module of a closed executable stayed loaded after its last submission")
	}
	err = execute(t, dev, func(cb *hal.CommandBuffer) error {
		return cb.Dispatch(exe, 0, [3]int64{1, 1, 1}, nil, []hal.BufferRef{hal.WholeBuffer(b), hal.WholeBuffer(b)})
	})
	if status.CodeOf(err) != status.FailedPrecondition || !strings.Contains(err.Error(), "used after it was closed") {
		t.Errorf("dispatching a closed executable: %v", err)
	}
}

// TestFakeGraphs runs the conformance suite with --cuda_use_streams=false:
// every command buffer is captured into a CUDA graph and launched.
func TestFakeGraphs(t *testing.T) {
	spec, ctl := fakeLibcuda(t)
	cts.Run(t, hal.Factory{Name: Name, FullName: "cuda driver on the fake libcuda, with graphs", Create: func() (hal.Driver, error) {
		d, err := create(spec)
		if err != nil {
			return nil, err
		}
		d.opts.useStreams, d.mapDevice = false, true
		return d, nil
	}})
	if ctl.GraphLaunches() == 0 {
		t.Error("no graph was launched")
	}
	if n, m := ctl.LiveGraphs(), ctl.LiveGraphExecs(); n != 0 || m != 0 {
		t.Errorf("%d graphs and %d graph instances left", n, m)
	}
	// A dispatch that fails its check fails the submission as on a stream.
	d := createFake(t, spec)
	d.opts.useStreams = false
	dev := openFake(t, d)
	in := cts.ScaleInput(4)
	_, err := runScale(t, dev, prepare(t, dev, scaleExecutable(t)), [3]int64{4, 1, 1}, in, int64(len(in))-64)
	if status.CodeOf(err) != status.OutOfRange || !strings.Contains(err.Error(), "load or store outside binding 1 (check 2)") {
		t.Errorf("a dispatch storing out of bounds in a graph: %v", err)
	}
	// Without the graph calls the flag is refused with its fix.
	d.cu.GraphLaunch = nil
	_, err = d.CreateDevice(1, nil)
	if status.CodeOf(err) != status.Unavailable || !strings.Contains(err.Error(), "--cuda_use_streams=false needs CUDA graphs") {
		t.Errorf("graphs without cuGraphLaunch: %v", err)
	}
}

func TestLibraryEnvOverride(t *testing.T) {
	if s := libcudaSpec(func(string) string { return "" }); s.Candidates[0] != "libcuda.so.1" {
		t.Errorf("default candidates %v", s.Candidates)
	}
	s := libcudaSpec(func(k string) string { return map[string]string{LibraryEnv: "/x/libfake.so"}[k] })
	if len(s.Candidates) != 1 || s.Candidates[0] != "/x/libfake.so" || !strings.Contains(s.What, "GREE_LIBCUDA") {
		t.Errorf("override: %+v", s)
	}
	spec, _ := fakeLibcuda(t)
	t.Setenv(LibraryEnv, spec.Candidates[0])
	d, err := Factory.Create()
	if err != nil {
		t.Fatalf("the factory with %s=%s: %v", LibraryEnv, spec.Candidates[0], err)
	}
	defer d.Close()
	if devs, _ := d.QueryAvailableDevices(); len(devs) != 2 || devs[0].Name != "Fake GPU 0" {
		t.Errorf("devices through the override: %+v", devs)
	}
	// The factory's driver uses the instance cudatest.Open loaded, whose
	// launches run on the simulator: programs compute end to end.
	dev, err := d.CreateDeviceByPath("", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	in := cts.ScaleInput(6)
	got, err := runScale(t, dev, prepare(t, dev, cts.ScalePTX()), [3]int64{3, 2, 1}, in, int64(len(in)))
	if err != nil || !bytes.Equal(got, cts.ScaleExpected(in)) {
		t.Errorf("scale through %s: %v", LibraryEnv, err)
	}
}

func TestFakeKernelFaultFailsSubmission(t *testing.T) {
	spec, _ := fakeLibcuda(t)
	dev := openFake(t, createFake(t, spec))
	ptx := ".version 7.0\n.target sm_60\n.address_size 64\n.visible .entry wild(.param .u64 p0, .param .u64 p1)\n{\n\t.reg .b64 %rd<2>;\n\t.reg .b32 %r<2>;\n\tmov.u64 %rd1, 4096;\n\tmov.u32 %r1, 1;\n\tst.global.u32 [%rd1], %r1;\n\tret;\n}\n"
	data, err := cudaschema.Encode(&cudaschema.Executable{Variants: []cudaschema.Variant{{Arch: "sm_60", PTXVersion: 70, PTX: []byte(ptx),
		Entries: []cudaschema.Entry{{Name: "wild_dispatch", Symbol: "wild", BlockSize: [3]int{1, 1, 1}, Bindings: []cudaschema.Access{cudaschema.Write}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	exe := prepare(t, dev, data)
	b := deviceBuffer(t, dev, 4)
	err = execute(t, dev, func(cb *hal.CommandBuffer) error {
		return cb.Dispatch(exe, 0, [3]int64{1, 1, 1}, nil, []hal.BufferRef{hal.WholeBuffer(b)})
	})
	if err == nil || !strings.Contains(err.Error(), "launching wild_dispatch (grid 1×1×1, block 1×1×1): cuLaunchKernel failed: CUDA_ERROR_LAUNCH_FAILED (719)") {
		t.Errorf("a kernel storing to a wild address: %v", err)
	}
	if errs := cudatest.SimulatorErrors(); len(errs) != 1 || !strings.Contains(errs[0].Error(), "outside every allocation") {
		t.Errorf("simulator errors %v", errs)
	}
}

func TestFakeWithoutExecutingSymbolsStillEnumerates(t *testing.T) {
	path := cudatest.Build(t, "-DFAKE_NO_EXEC")
	spec := libcuda
	spec.Candidates = []string{path}
	d := createFake(t, spec)
	if devs, err := d.QueryAvailableDevices(); err != nil || len(devs) != 2 {
		t.Fatalf("devices %v, %v", devs, err)
	}
	_, err := d.CreateDevice(1, nil)
	if status.CodeOf(err) != status.Unavailable || !strings.Contains(err.Error(), "cuMemAlloc_v2") {
		t.Errorf("creating a device without the executing symbols: %v", err)
	}
}
