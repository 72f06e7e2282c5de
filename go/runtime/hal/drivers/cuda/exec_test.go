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

// scalePTX is the conformance suite's scale kernel (cts.ScalePTX).
var scalePTX = func() []byte {
	x, err := cudaschema.Decode(cts.ScalePTX())
	if err != nil {
		panic(err)
	}
	return x.Variants[0].PTX
}()

// scaleExecutable is cts.ScalePTX with one variant per architecture
// (sm_60 when none is given).
func scaleExecutable(t testing.TB, archs ...string) []byte {
	t.Helper()
	if len(archs) == 0 {
		archs = []string{"sm_60"}
	}
	base, err := cudaschema.Decode(cts.ScalePTX())
	if err != nil {
		t.Fatal(err)
	}
	x := &cudaschema.Executable{}
	for _, a := range archs {
		v := base.Variants[0]
		v.Arch = a
		x.Variants = append(x.Variants, v)
	}
	data, err := cudaschema.Encode(x)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// openFake creates device 1 (compute capability 9.0) of d, closed when
// the test ends.
func openFake(t testing.TB, d *driver) *device {
	t.Helper()
	dev, err := d.CreateDevice(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	return dev.(*device)
}

// deviceBuffer allocates n device-local bytes, released when the test ends.
func deviceBuffer(t testing.TB, dev hal.Device, n int64) *hal.Buffer {
	t.Helper()
	b, err := dev.Allocator().Allocate(hal.BufferParams{Type: hal.MemoryTypeDeviceLocal, Usage: hal.BufferUsageDefault}, n)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !b.Released() {
			b.Release()
		}
	})
	return b
}

// execute records cmds into a one-shot command buffer, submits it and
// waits; the error is the submission's (returned or its signal's).
func execute(t testing.TB, dev hal.Device, rec func(cb *hal.CommandBuffer) error) error {
	t.Helper()
	cb, err := hal.NewCommandBuffer(hal.CommandBufferOneShot, hal.CommandCategoryAny, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Release()
	if err := cb.Begin(); err != nil {
		t.Fatal(err)
	}
	if err := rec(cb); err != nil {
		t.Fatal(err)
	}
	if err := cb.End(); err != nil {
		t.Fatal(err)
	}
	s, err := dev.CreateSemaphore(0)
	if err != nil {
		t.Fatal(err)
	}
	if err := dev.QueueExecute(nil, hal.SemaphoreList{{Semaphore: s, Value: 1}}, cb, nil); err != nil {
		return err
	}
	return s.Wait(1, time.Now().Add(30*time.Second))
}

// runScale uploads in, dispatches scale over grid into a dstLen-byte
// buffer and returns what it holds.
func runScale(t testing.TB, dev hal.Device, exe hal.Executable, grid [3]int64, in []byte, dstLen int64) ([]byte, error) {
	t.Helper()
	params := hal.BufferParams{Type: hal.MemoryTypeDeviceLocal, Usage: hal.BufferUsageDefault}
	src, err := dev.Allocator().Allocate(params, int64(len(in)))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Release()
	dst, err := dev.Allocator().Allocate(params, dstLen)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Release()
	if err := hal.WriteBuffer(dev, src, 0, in); err != nil {
		t.Fatal(err)
	}
	err = execute(t, dev, func(cb *hal.CommandBuffer) error {
		return cb.Dispatch(exe, 0, grid, nil, []hal.BufferRef{hal.WholeBuffer(src), hal.WholeBuffer(dst)})
	})
	if err != nil {
		return nil, err
	}
	return hal.ReadBuffer(dev, dst, 0, dstLen)
}

func prepare(t testing.TB, dev hal.Device, data []byte) hal.Executable {
	t.Helper()
	exe, err := dev.PrepareExecutable(cudaschema.Format, data)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { exe.Close() })
	return exe
}

func TestFakeDispatchScale(t *testing.T) {
	spec, ctl := fakeLibcuda(t)
	dev := openFake(t, createFake(t, spec))
	exe := prepare(t, dev, scaleExecutable(t))
	grid := [3]int64{7, 5, 3}
	in := cts.ScaleInput(grid[0] * grid[1] * grid[2])
	got, err := runScale(t, dev, exe, grid, in, int64(len(in)))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, cts.ScaleExpected(in)) {
		t.Error("dispatch results differ from the kernel's definition")
	}
	if errs := cudatest.SimulatorErrors(); len(errs) > 0 {
		t.Errorf("the simulator failed launches: %v", errs)
	}
	if n := ctl.Launches(); n != 1 || ctl.LastEntry() != "scale" {
		t.Fatalf("%d launches, last %q", n, ctl.LastEntry())
	}
	var dims [7]uint32
	for i := range dims {
		dims[i] = ctl.LastDim(int32(i))
	}
	if dims != [7]uint32{7, 5, 3, 16, 1, 1, 0} {
		t.Errorf("launch grid, block, shared = %v", dims)
	}
	if n := ctl.LastNParams(); n != 5 {
		t.Fatalf("%d parameters, want 5 (2 pointers, 2 lengths, the status word)", n)
	}
	if ctl.LastParam(2) != uint64(len(in)) || ctl.LastParam(3) != uint64(len(in)) || ctl.LastParam(4) == 0 {
		t.Errorf("parameters %#x %#x %#x", ctl.LastParam(2), ctl.LastParam(3), ctl.LastParam(4))
	}
}

func TestFakeDispatchFailureIsTheSubmissions(t *testing.T) {
	spec, _ := fakeLibcuda(t)
	dev := openFake(t, createFake(t, spec))
	exe := prepare(t, dev, scaleExecutable(t))
	in := cts.ScaleInput(4)
	_, err := runScale(t, dev, exe, [3]int64{4, 1, 1}, in, int64(len(in))-64)
	if status.CodeOf(err) != status.OutOfRange || !strings.Contains(err.Error(), "scale (grid 4×1×1): load or store outside binding 1 (check 2)") {
		t.Errorf("a dispatch storing out of bounds: %v", err)
	}
	// The device goes on working.
	if _, err := runScale(t, dev, exe, [3]int64{4, 1, 1}, in, int64(len(in))); err != nil {
		t.Errorf("the next dispatch: %v", err)
	}
}

func TestFakeDispatchRequestErrors(t *testing.T) {
	spec, ctl := fakeLibcuda(t)
	ctl.SetAttribute(0, attrMaxGridDimY, 4)
	dev := openFake(t, createFake(t, spec))
	exe := prepare(t, dev, scaleExecutable(t))
	b := deviceBuffer(t, dev, 1024)
	refs := []hal.BufferRef{hal.WholeBuffer(b), hal.WholeBuffer(b)}
	for _, c := range []struct {
		name  string
		entry int
		grid  [3]int64
		refs  []hal.BufferRef
		push  []int64
		code  status.Code
		msg   string
	}{
		{"missing entry point", 3, [3]int64{1, 1, 1}, refs, nil, status.OutOfRange, "entry point 3 of an executable with 1"},
		{"grid past the device's", 0, [3]int64{1, 5, 1}, refs, nil, status.OutOfRange, "launches at most 2147483647×4×65535"},
		{"too few bindings", 0, [3]int64{1, 1, 1}, refs[:1], nil, status.InvalidArgument, "with 1 bindings and 0 push constants; it takes 2 and 0"},
		{"push constants", 0, [3]int64{1, 1, 1}, refs, []int64{1}, status.InvalidArgument, "it takes 2 and 0"},
	} {
		err := execute(t, dev, func(cb *hal.CommandBuffer) error { return cb.Dispatch(exe, c.entry, c.grid, c.push, c.refs) })
		if status.CodeOf(err) != c.code || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want %s with %q", c.name, err, c.code, c.msg)
		}
	}
	// An empty grid launches nothing.
	before := ctl.Launches()
	if err := execute(t, dev, func(cb *hal.CommandBuffer) error { return cb.Dispatch(exe, 0, [3]int64{3, 0, 1}, nil, refs) }); err != nil {
		t.Fatal(err)
	}
	if ctl.Launches() != before {
		t.Error("an empty grid was launched")
	}
}

func TestFakeDispatchParameters(t *testing.T) {
	spec, ctl := fakeLibcuda(t)
	dev := openFake(t, createFake(t, spec))
	ptx := ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p0, .param .u64 p1, .param .u64 p2, .param .u64 p3)\n{\n\tret;\n}\n"
	data, err := cudaschema.Encode(&cudaschema.Executable{Variants: []cudaschema.Variant{{Arch: "sm_80", PTXVersion: 70, PTX: []byte(ptx),
		Entries: []cudaschema.Entry{{Name: "k_dispatch", Symbol: "k", BlockSize: [3]int{32, 2, 1}, NumPushConstants: 2, Bindings: []cudaschema.Access{cudaschema.ReadWrite}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	exe := prepare(t, dev, data)
	b := deviceBuffer(t, dev, 64)
	var addrs []uint64
	for _, off := range []int64{0, 8} {
		err := execute(t, dev, func(cb *hal.CommandBuffer) error {
			return cb.Dispatch(exe, 0, [3]int64{2, 1, 1}, []int64{-1, 7}, []hal.BufferRef{{Buffer: b, Offset: off, Length: 16}})
		})
		if err != nil {
			t.Fatal(err)
		}
		if n := ctl.LastNParams(); n != 4 {
			t.Fatalf("%d parameters, want 4", n)
		}
		if ctl.LastParam(1) != 16 || ctl.LastParam(2) != ^uint64(0) || ctl.LastParam(3) != 7 {
			t.Errorf("length and push constants: %#x %#x %#x", ctl.LastParam(1), ctl.LastParam(2), ctl.LastParam(3))
		}
		if ctl.LastDim(3) != 32 || ctl.LastDim(4) != 2 {
			t.Errorf("block %d×%d, want the entry's 32×2", ctl.LastDim(3), ctl.LastDim(4))
		}
		addrs = append(addrs, ctl.LastParam(0))
	}
	if addrs[1]-addrs[0] != 8 {
		t.Errorf("binding addresses %#x, %#x: the offset is not applied", addrs[0], addrs[1])
	}
}

func TestFakeFillsUpdatesCopies(t *testing.T) {
	spec, _ := fakeLibcuda(t)
	dev := openFake(t, createFake(t, spec))
	a := deviceBuffer(t, dev, 40)
	odd, err := a.Subspan(1, 36) // cuMemsetD16/D32 cannot fill it: staged
	if err != nil {
		t.Fatal(err)
	}
	defer odd.Release()
	c := deviceBuffer(t, dev, 8)
	err = execute(t, dev, func(cb *hal.CommandBuffer) error {
		if err := cb.Fill(hal.WholeBuffer(a), []byte{0xee}); err != nil {
			return err
		}
		if err := cb.Fill(hal.BufferRef{Buffer: odd, Length: 16}, []byte{1, 2, 3, 4}); err != nil {
			return err
		}
		if err := cb.Fill(hal.BufferRef{Buffer: odd, Offset: 16, Length: 8}, []byte{5, 6}); err != nil {
			return err
		}
		if err := cb.Update([]byte("xyz"), hal.BufferRef{Buffer: odd, Offset: 30}); err != nil {
			return err
		}
		return cb.Copy(hal.BufferRef{Buffer: a, Offset: 8, Length: 8}, hal.WholeBuffer(c))
	})
	if err != nil {
		t.Fatal(err)
	}
	want := bytes.Repeat([]byte{0xee}, 40)
	copy(want[1:], bytes.Repeat([]byte{1, 2, 3, 4}, 4))
	copy(want[17:], bytes.Repeat([]byte{5, 6}, 4))
	copy(want[31:], "xyz")
	if got, _ := hal.ReadBuffer(dev, a, 0, 40); !bytes.Equal(got, want) {
		t.Errorf("fills and update:\n got %v\nwant %v", got, want)
	}
	if got, _ := hal.ReadBuffer(dev, c, 0, 8); !bytes.Equal(got, want[8:16]) {
		t.Errorf("copy: %v", got)
	}
}

// TestFakeStagingOfUnmappedMemory covers what the suite (run on mapped
// memory, see TestFakeLibcudaConformance) does not: the host reaching
// device memory it cannot map through staging copies, and reusable
// command buffers with binding tables over such memory.
func TestFakeStagingOfUnmappedMemory(t *testing.T) {
	spec, _ := fakeLibcuda(t)
	dev := openFake(t, createFake(t, spec))
	b := deviceBuffer(t, dev, 13)
	if _, err := b.Map(0, 13, hal.MemoryAccessRead); status.CodeOf(err) != status.PermissionDenied {
		t.Fatalf("mapping device memory: %v, want PERMISSION_DENIED", err)
	}
	file := &hal.MemoryFile{Data: []byte("....file contents...."), Readable: true}
	s, _ := dev.CreateSemaphore(0)
	if err := hal.QueueRead(dev, nil, hal.SemaphoreList{{Semaphore: s, Value: 1}}, file, 4, hal.WholeBuffer(b)); err != nil {
		t.Fatal(err)
	}
	if err := s.Wait(1, time.Now().Add(30*time.Second)); err != nil {
		t.Fatal(err)
	}
	if got, err := hal.ReadBuffer(dev, b, 0, 13); err != nil || string(got) != "file contents" {
		t.Errorf("queue read into device memory: %q, %v", got, err)
	}
	cb, err := hal.NewCommandBuffer(0, hal.CommandCategoryAny, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Release()
	cb.Begin()
	cb.Fill(hal.BufferRef{Slot: 0, Length: -1}, []byte{3})
	cb.Copy(hal.BufferRef{Slot: 0, Offset: 4, Length: 4}, hal.BufferRef{Slot: 1, Length: 4})
	cb.End()
	for rep := 0; rep < 3; rep++ {
		a, c := deviceBuffer(t, dev, 8), deviceBuffer(t, dev, 4)
		sem, _ := dev.CreateSemaphore(0)
		if err := dev.QueueExecute(nil, hal.SemaphoreList{{Semaphore: sem, Value: 1}}, cb, []hal.BufferRef{hal.WholeBuffer(a), hal.WholeBuffer(c)}); err != nil {
			t.Fatal(err)
		}
		if err := sem.Wait(1, time.Now().Add(30*time.Second)); err != nil {
			t.Fatal(err)
		}
		if got, _ := hal.ReadBuffer(dev, c, 0, 4); !bytes.Equal(got, []byte{3, 3, 3, 3}) {
			t.Fatalf("execution %d: %v", rep, got)
		}
	}
}
