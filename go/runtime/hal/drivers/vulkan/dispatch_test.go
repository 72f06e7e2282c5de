package vulkan

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/hal/cts"
	"github.com/gree-ml/gree/go/schemas/spirv"
	"github.com/gree-ml/gree/go/status"
)

func prepare(t *testing.T, dev hal.Device, data []byte) hal.Executable {
	t.Helper()
	exe, err := dev.PrepareExecutable(spirv.Format, data)
	must(t, "prepare", err)
	t.Cleanup(func() { exe.Close() })
	return exe
}

func axpbExpected(in []byte, a, b uint32) []byte {
	out := make([]byte, len(in))
	for i := 0; i < len(in)/4; i++ {
		binary.LittleEndian.PutUint32(out[4*i:], binary.LittleEndian.Uint32(in[4*i:])*a+b)
	}
	return out
}

// TestRealBindingTableDispatch executes one reusable command buffer whose
// dispatch binds binding-table slots, with two tables and two sets of push
// constants, with push descriptors and with descriptor pools.
func TestRealBindingTableDispatch(t *testing.T) {
	for _, disabled := range [][]string{nil, {"pushDescriptor"}} {
		dev := testDevice(t, disabled...)
		exe := prepare(t, dev, axpb())
		const n = 1000
		cb, err := hal.NewCommandBuffer(0, hal.CommandCategoryAny, 2)
		must(t, "command buffer", err)
		must(t, "begin", cb.Begin())
		must(t, "dispatch", cb.Dispatch(exe, 0, [3]int64{(n + 63) / 64, 1, 1}, []int64{3, 7}, []hal.BufferRef{{Slot: 0, Length: -1}, {Slot: 1, Length: -1}}))
		must(t, "barrier", cb.ExecutionBarrier())
		// A second dispatch in the same submission: out = out*2+1.
		must(t, "dispatch", cb.Dispatch(exe, 0, [3]int64{(n + 63) / 64, 1, 1}, []int64{2, 1}, []hal.BufferRef{{Slot: 1, Length: -1}, {Slot: 1, Length: -1}}))
		must(t, "end", cb.End())
		for rep := uint32(0); rep < 2; rep++ {
			in := make([]byte, 4*n)
			for i := 0; i < n; i++ {
				binary.LittleEndian.PutUint32(in[4*i:], uint32(i)*(rep+1))
			}
			src := buffer(t, dev, hal.MemoryTypeDeviceLocal, 4*n)
			// The output is a subspan at an aligned offset of a larger buffer.
			big := buffer(t, dev, hal.MemoryTypeDeviceLocal, 4*n+256)
			must(t, "upload", hal.WriteBuffer(dev, src, 0, in))
			s := mustSemaphore(t, dev)
			table := []hal.BufferRef{hal.WholeBuffer(src), {Buffer: big, Offset: 256, Length: 4 * n}}
			must(t, "execute", dev.QueueExecute(nil, hal.SemaphoreList{{Semaphore: s, Value: 1}}, cb, table))
			must(t, "wait", s.Wait(1, time.Now().Add(30*time.Second)))
			got, err := hal.ReadBuffer(dev, big, 256, 4*n)
			must(t, "read", err)
			if want := axpbExpected(axpbExpected(in, 3, 7), 2, 1); !bytes.Equal(got, want) {
				t.Errorf("disabled %v, execution %d: results differ at byte %d", disabled, rep, firstDiff(got, want))
			}
		}
		cb.Release()
	}
}

// TestRealDispatchErrors checks the status buffer error path and the
// checks of a dispatch's request.
func TestRealDispatchErrors(t *testing.T) {
	dev := testDevice(t)
	scale := prepare(t, dev, cts.ScaleSPIRV())
	in := cts.ScaleInput(3)
	src := buffer(t, dev, hal.MemoryTypeDeviceLocal, int64(len(in)))
	short := buffer(t, dev, hal.MemoryTypeDeviceLocal, int64(len(in))-4)
	must(t, "upload", hal.WriteBuffer(dev, src, 0, in))
	err := run(t, dev, nil, func(cb *hal.CommandBuffer) error {
		return cb.Dispatch(scale, 0, [3]int64{1, 3, 1}, nil, []hal.BufferRef{hal.WholeBuffer(src), hal.WholeBuffer(short)})
	})
	wantError(t, "a store out of bounds", err, status.OutOfRange, "@scale", "outside binding 1 (check 2)")
	// The workgroups that stayed in bounds wrote their results.
	got := read(t, dev, short)
	if want := cts.ScaleExpected(in)[:len(got)-60]; !bytes.Equal(got[:len(want)], want) {
		t.Error("in-bounds results are wrong")
	}
	// A load out of bounds is check 1 of binding 0.
	err = run(t, dev, nil, func(cb *hal.CommandBuffer) error {
		return cb.Dispatch(scale, 0, [3]int64{4, 1, 1}, nil, []hal.BufferRef{hal.WholeBuffer(src), hal.WholeBuffer(buffer(t, dev, hal.MemoryTypeDeviceLocal, 4*64))})
	})
	wantError(t, "a load out of bounds", err, status.OutOfRange, "@scale", "outside binding 0 (check 1)")

	lim := dev.limits.maxComputeWorkGroupCount
	err = run(t, dev, nil, func(cb *hal.CommandBuffer) error {
		return cb.Dispatch(scale, 0, [3]int64{1, int64(lim[1]) + 1, 1}, nil, []hal.BufferRef{hal.WholeBuffer(src), hal.WholeBuffer(src)})
	})
	wantError(t, "a grid past the device's limits", err, status.InvalidArgument, "@scale", "maxComputeWorkGroupCount", fmt.Sprint(lim[1]+1))

	err = run(t, dev, nil, func(cb *hal.CommandBuffer) error {
		return cb.Dispatch(scale, 0, [3]int64{1, 1, 1}, nil, []hal.BufferRef{hal.WholeBuffer(src)})
	})
	wantError(t, "too few bindings", err, status.InvalidArgument, "2")

	err = run(t, dev, nil, func(cb *hal.CommandBuffer) error {
		return cb.Dispatch(scale, 0, [3]int64{1, 1, 1}, nil, []hal.BufferRef{{Buffer: src, Offset: 4, Length: 64}, hal.WholeBuffer(src)})
	})
	wantError(t, "a binding at a misaligned offset", err, status.InvalidArgument, "minStorageBufferOffsetAlignment")

	host, err := hal.NewHeapAllocator().Allocate(hal.BufferParams{Type: hal.MemoryTypeHostLocal | hal.MemoryTypeDeviceVisible, Usage: hal.BufferUsageDefault}, 64)
	must(t, "heap buffer", err)
	defer host.Release()
	err = run(t, dev, nil, func(cb *hal.CommandBuffer) error {
		return cb.Copy(hal.WholeBuffer(host), hal.BufferRef{Buffer: src, Length: 64})
	})
	wantError(t, "a buffer of host memory", err, status.InvalidArgument, "64 bytes", "not memory of vulkan://")

	other := testDevice(t)
	otherExe := prepare(t, other, cts.ScaleSPIRV())
	err = run(t, dev, nil, func(cb *hal.CommandBuffer) error {
		return cb.Dispatch(otherExe, 0, [3]int64{1, 1, 1}, nil, []hal.BufferRef{hal.WholeBuffer(src), hal.WholeBuffer(src)})
	})
	wantError(t, "an executable of another device", err, status.InvalidArgument, "did not prepare")
	otherBuf := buffer(t, other, hal.MemoryTypeDeviceLocal, 64)
	err = run(t, dev, nil, func(cb *hal.CommandBuffer) error {
		return cb.Copy(hal.WholeBuffer(otherBuf), hal.BufferRef{Buffer: src, Length: 64})
	})
	wantError(t, "a buffer of another device", err, status.InvalidArgument, "copy source", "not memory of")

	// Too many push constants for the entry point.
	axpbExe := prepare(t, dev, axpb())
	err = run(t, dev, nil, func(cb *hal.CommandBuffer) error {
		return cb.Dispatch(axpbExe, 0, [3]int64{1, 1, 1}, []int64{1, 2, 3}, []hal.BufferRef{hal.WholeBuffer(src), hal.WholeBuffer(src)})
	})
	wantError(t, "too many push constants", err, status.InvalidArgument, "3 push constants")
}

// TestRealPrepareChecks checks executables against the device.
func TestRealPrepareChecks(t *testing.T) {
	dev := testDevice(t, "shaderInt64", "subgroupSizeControl")
	base := scaleEntry(t)
	with := func(f func(e *spirv.Entry)) []byte {
		e := base
		e.Capabilities = append([]string(nil), base.Capabilities...)
		f(&e)
		return encode(e)
	}
	prepareErr := func(data []byte) error {
		exe, err := dev.PrepareExecutable(spirv.Format, data)
		if err == nil {
			exe.Close()
		}
		return err
	}
	wantError(t, "a capability the device lacks", prepareErr(with(func(e *spirv.Entry) { e.Capabilities = append(e.Capabilities, "Int64") })),
		status.FailedPrecondition, "Int64", "shaderInt64", "@scale", dev.info.Path)
	wantError(t, "an unknown capability", prepareErr(with(func(e *spirv.Entry) { e.Capabilities = append(e.Capabilities, "CooperativeMatrixKHR") })),
		status.FailedPrecondition, "CooperativeMatrixKHR", "@scale")
	wantError(t, "too many push constants", prepareErr(with(func(e *spirv.Entry) { e.NumPushConstants = int(dev.limits.maxPushConstantsSize)/8 + 1 })),
		status.FailedPrecondition, "maxPushConstantsSize", "@scale")
	wantError(t, "a workgroup too large", prepareErr(with(func(e *spirv.Entry) { e.WorkgroupSize = [3]int{int(dev.limits.maxComputeWorkGroupSize[0]) + 1, 1, 1} })),
		status.FailedPrecondition, "maxComputeWorkGroupSize")
	wantError(t, "too many invocations", prepareErr(with(func(e *spirv.Entry) {
		e.WorkgroupSize = [3]int{int(dev.limits.maxComputeWorkGroupSize[0]), int(dev.limits.maxComputeWorkGroupSize[1]), 1}
	})), status.FailedPrecondition, "maxComputeWorkGroupInvocations")
	wantError(t, "too much shared memory", prepareErr(with(func(e *spirv.Entry) { e.SharedBytes = int(dev.limits.maxComputeSharedMemorySize) + 1 })),
		status.FailedPrecondition, "maxComputeSharedMemorySize")
	other := int(dev.limits.subgroupSize) * 2
	wantError(t, "a subgroup size the device cannot require", prepareErr(with(func(e *spirv.Entry) { e.SubgroupSize = other })),
		status.FailedPrecondition, "subgroups of")
	if err := prepareErr(with(func(e *spirv.Entry) { e.SubgroupSize = int(dev.limits.subgroupSize) })); err != nil {
		t.Errorf("the device's own subgroup size: %v", err)
	}
	wantError(t, "another format", func() error { _, err := dev.PrepareExecutable("vmvx-bytecode", nil); return err }(), status.Unimplemented, "vulkan-spirv-fb")
	wantError(t, "damaged bytes", prepareErr([]byte("GSPV")), status.DataLoss)

	// With subgroup size control, a supported size is required.
	full := testDevice(t)
	if full.canRequireSubgroupSize(int(full.limits.subgroupSize)) {
		exe, err := full.PrepareExecutable(spirv.Format, with(func(e *spirv.Entry) { e.SubgroupSize = int(full.limits.subgroupSize) }))
		must(t, "prepare with a required subgroup size", err)
		in := cts.ScaleInput(2)
		src, dst := buffer(t, full, hal.MemoryTypeDeviceLocal, int64(len(in))), buffer(t, full, hal.MemoryTypeDeviceLocal, int64(len(in)))
		must(t, "upload", hal.WriteBuffer(full, src, 0, in))
		must(t, "dispatch", run(t, full, nil, func(cb *hal.CommandBuffer) error {
			return cb.Dispatch(exe, 0, [3]int64{2, 1, 1}, nil, []hal.BufferRef{hal.WholeBuffer(src), hal.WholeBuffer(dst)})
		}))
		if !bytes.Equal(read(t, full, dst), cts.ScaleExpected(in)) {
			t.Error("a pipeline with a required subgroup size computed wrong results")
		}
		exe.Close()
	}
}

// TestRealSemaphoresAcrossQueues chains work through native semaphores,
// host semaphores of the local devices, and failures.
func TestRealSemaphoresAcrossQueues(t *testing.T) {
	dev := testDevice(t)
	b := buffer(t, dev, hal.MemoryTypeDeviceLocal, 16)
	host := hal.NewHostSemaphore(0)    // another device's semaphore
	hostOut := hal.NewHostSemaphore(0) // signaled from the host
	gate, mid, done := mustSemaphore(t, dev), mustSemaphore(t, dev), mustSemaphore(t, dev)
	// Submitted in reverse order of execution.
	must(t, "third", hal.QueueUpdate(dev, hal.SemaphoreList{{Semaphore: mid, Value: 1}}, hal.SemaphoreList{{Semaphore: done, Value: 5}, {Semaphore: hostOut, Value: 2}}, []byte("ccc"), hal.BufferRef{Buffer: b, Offset: 8}))
	must(t, "second", hal.QueueFill(dev, hal.SemaphoreList{{Semaphore: gate, Value: 1}, {Semaphore: host, Value: 3}}, hal.SemaphoreList{{Semaphore: mid, Value: 1}}, hal.BufferRef{Buffer: b, Length: 12}, []byte{9}))
	must(t, "not yet", func() error {
		if err := done.Wait(5, time.Now().Add(20*time.Millisecond)); status.CodeOf(err) != status.DeadlineExceeded {
			return fmt.Errorf("work ran before its waits: %v", err)
		}
		return nil
	}())
	must(t, "open the gate", gate.Signal(1))
	must(t, "signal the host semaphore", host.Signal(3))
	must(t, "wait", done.Wait(5, time.Now().Add(30*time.Second)))
	must(t, "host semaphore signaled", hostOut.Wait(2, time.Now().Add(30*time.Second)))
	if got := read(t, dev, b); string(got) != "\t\t\t\t\t\t\t\tccc\t\x00\x00\x00\x00" {
		t.Errorf("chained work: %q", got)
	}
	// The native semaphore really is signaled on the device (by the time
	// the host sees the value).
	var v uint64
	tl := done.(*timeline)
	must(t, "counter", check(dev.vk.GetSemaphoreCounterValue(dev.handle, tl.handle, &v), "vkGetSemaphoreCounterValue"))
	if v != 5 {
		t.Errorf("the VkSemaphore is at %d, want 5", v)
	}
	// A failed host semaphore fails the work waiting on it and what
	// waits on that work.
	failing, after, last := hal.NewHostSemaphore(0), mustSemaphore(t, dev), mustSemaphore(t, dev)
	must(t, "fill after a failing wait", hal.QueueFill(dev, hal.SemaphoreList{{Semaphore: failing, Value: 1}}, hal.SemaphoreList{{Semaphore: after, Value: 1}}, hal.WholeBuffer(b), []byte{1}))
	must(t, "host call after it", dev.QueueHostCall(hal.SemaphoreList{{Semaphore: after, Value: 1}}, hal.SemaphoreList{{Semaphore: last, Value: 1}}, func() error {
		t.Error("a host call ran after a failed wait")
		return nil
	}))
	failing.Fail(status.New(status.Aborted, "upstream aborted"))
	wantError(t, "failure propagated through the queue", last.Wait(1, time.Now().Add(30*time.Second)), status.Aborted, "upstream aborted")
	// A dispatch error fails its signals, and work that waited for them on
	// the GPU.
	scale := prepare(t, dev, cts.ScaleSPIRV())
	src := buffer(t, dev, hal.MemoryTypeDeviceLocal, 64)
	e1, e2 := mustSemaphore(t, dev), mustSemaphore(t, dev)
	cb, err := hal.NewCommandBuffer(hal.CommandBufferOneShot, hal.CommandCategoryAny, 0)
	must(t, "cb", err)
	must(t, "begin", cb.Begin())
	must(t, "dispatch", cb.Dispatch(scale, 0, [3]int64{2, 1, 1}, nil, []hal.BufferRef{hal.WholeBuffer(src), hal.WholeBuffer(src)}))
	must(t, "end", cb.End())
	must(t, "execute", dev.QueueExecute(nil, hal.SemaphoreList{{Semaphore: e1, Value: 1}}, cb, nil))
	cb.Release()
	must(t, "dependent", hal.QueueFill(dev, hal.SemaphoreList{{Semaphore: e1, Value: 1}}, hal.SemaphoreList{{Semaphore: e2, Value: 1}}, hal.WholeBuffer(b), []byte{2}))
	wantError(t, "the failing dispatch", e1.Wait(1, time.Now().Add(30*time.Second)), status.OutOfRange, "@scale")
	wantError(t, "work after the failing dispatch", e2.Wait(1, time.Now().Add(30*time.Second)), status.OutOfRange, "@scale")
}

// TestRealImportHostMemory imports Go memory at an unaligned address and
// uses it in queue copies both ways.
func TestRealImportHostMemory(t *testing.T) {
	dev := testDevice(t)
	if !dev.features.externalMemoryHost {
		t.Skip("no VK_EXT_external_memory_host")
	}
	backing := make([]byte, 10000)
	host := backing[37 : 37+5000]
	for i := range host {
		host[i] = byte(i * 7)
	}
	released := 0
	params := hal.BufferParams{Type: hal.MemoryTypeDeviceLocal, Usage: hal.BufferUsageDefault}
	imp, err := dev.Allocator().Import(params, host, func() { released++ })
	must(t, "import", err)
	dst := buffer(t, dev, hal.MemoryTypeDeviceLocal, 5000)
	must(t, "copy from imported memory", run(t, dev, nil, func(cb *hal.CommandBuffer) error {
		return cb.Copy(hal.WholeBuffer(imp), hal.WholeBuffer(dst))
	}))
	if !bytes.Equal(read(t, dev, dst), host) {
		t.Error("the device read other bytes than the host memory's")
	}
	must(t, "fill imported memory", run(t, dev, nil, func(cb *hal.CommandBuffer) error {
		return cb.Fill(hal.BufferRef{Buffer: imp, Offset: 1, Length: 6}, []byte{0xee})
	}))
	if !bytes.Equal(host[:8], []byte{0, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee, 49}) || backing[36] != 0 {
		t.Errorf("the device's writes are not in the host memory: %v", backing[36:45])
	}
	must(t, "release", imp.Release())
	if released != 1 {
		t.Errorf("release callback called %d times", released)
	}
	empty, err := dev.Allocator().Import(params, nil, nil)
	must(t, "import of nothing", err)
	empty.Release()
	noImport := testDevice(t, "externalMemoryHost")
	if c, _ := noImport.Allocator().QueryCompatibility(params, 16); c&hal.BufferCompatibilityImportable != 0 {
		t.Error("importable without VK_EXT_external_memory_host")
	}
	_, err = noImport.Allocator().Import(params, host, nil)
	wantError(t, "import without the extension", err, status.Unimplemented, "VK_EXT_external_memory_host")
}

// TestRealLifetimes closes executables while dispatches of them are
// queued, and uses buffers after their device closed.
func TestRealLifetimes(t *testing.T) {
	opts := currentOptions()
	d := realDriver(t, opts)
	devices, _ := d.QueryAvailableDevices()
	if len(devices) == 0 {
		t.Skip("no Vulkan devices")
	}
	hd, err := d.CreateDevice(devices[0].ID, nil)
	must(t, "device", err)
	dev := hd.(*device)
	exe, err := dev.PrepareExecutable(spirv.Format, cts.ScaleSPIRV())
	must(t, "prepare", err)
	in := cts.ScaleInput(2)
	src, dst := buffer(t, dev, hal.MemoryTypeDeviceLocal, int64(len(in))), buffer(t, dev, hal.MemoryTypeDeviceLocal, int64(len(in)))
	must(t, "upload", hal.WriteBuffer(dev, src, 0, in))
	gate, done := mustSemaphore(t, dev), mustSemaphore(t, dev)
	cb, _ := hal.NewCommandBuffer(hal.CommandBufferOneShot, hal.CommandCategoryAny, 0)
	must(t, "begin", cb.Begin())
	must(t, "dispatch", cb.Dispatch(exe, 0, [3]int64{2, 1, 1}, nil, []hal.BufferRef{hal.WholeBuffer(src), hal.WholeBuffer(dst)}))
	must(t, "end", cb.End())
	must(t, "execute", dev.QueueExecute(hal.SemaphoreList{{Semaphore: gate, Value: 1}}, hal.SemaphoreList{{Semaphore: done, Value: 1}}, cb, nil))
	cb.Release()
	must(t, "close the executable", exe.Close())
	must(t, "open the gate", gate.Signal(1))
	must(t, "wait", done.Wait(1, time.Now().Add(30*time.Second)))
	if !bytes.Equal(read(t, dev, dst), cts.ScaleExpected(in)) {
		t.Error("a dispatch of an executable closed while it was queued")
	}
	if !exe.(*executable).released {
		t.Error("the closed executable was not released after the dispatch")
	}
	// Buffers outlive the device (their host view stays valid); the
	// VkDevice goes with the last one.
	keep := buffer(t, dev, hal.MemoryTypeHostLocal|hal.MemoryTypeDeviceVisible, 8)
	must(t, "write", keep.WriteData(0, []byte("kept8888")))
	must(t, "close", dev.Close())
	wantError(t, "allocating on a closed device", func() error {
		_, err := dev.Allocator().Allocate(hal.BufferParams{Type: hal.MemoryTypeDeviceLocal}, 4)
		return err
	}(), status.FailedPrecondition, "closed")
	wantError(t, "a semaphore from a closed device", func() error { _, err := dev.CreateSemaphore(0); return err }(), status.FailedPrecondition)
	m, err := keep.Map(0, 8, hal.MemoryAccessRead)
	must(t, "map after close", err)
	if string(m) != "kept8888" {
		t.Errorf("after close: %q", m)
	}
	if done.Signal(2) != nil {
		t.Error("a semaphore of a closed device cannot be signaled from the host")
	}
	if dev.handle == 0 {
		t.Fatal("the VkDevice was destroyed while buffers live")
	}
	for _, b := range []*hal.Buffer{keep, src, dst} {
		b.Release()
	}
	if dev.handle != 0 {
		t.Error("the VkDevice outlived its last buffer")
	}
	d.Close()
	if d.instance != 0 {
		t.Error("the instance outlived the driver and its devices")
	}
}

// TestRealUnreachableSemaphores lets semaphores become garbage: their
// VkSemaphores are destroyed.
func TestRealUnreachableSemaphores(t *testing.T) {
	dev := testDevice(t)
	for i := 0; i < 100; i++ {
		mustSemaphore(t, dev)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		dev.objMu.Lock()
		n := len(dev.timelines)
		dev.objMu.Unlock()
		if n < 100 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d semaphores still live", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestCapabilitiesTable(t *testing.T) {
	f := features{shaderInt64: true}
	l := limits{subgroupStages: shaderStageComputeBit, subgroupOperations: subgroupBasic | subgroupArithmetic}
	for c, want := range map[string]bool{"Shader": true, "Int64": true, "Float64": false, "GroupNonUniformArithmetic": true, "GroupNonUniformShuffle": false} {
		if got := capabilities[c].ok(&f, &l); got != want {
			t.Errorf("%s: %v", c, got)
		}
	}
	if !strings.Contains(capabilities["Float16"].needs, "shaderFloat16") {
		t.Error(capabilities["Float16"].needs)
	}
}
