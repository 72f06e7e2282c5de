package vulkan

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/hal/cts"
	"github.com/gree-ml/gree/go/schemas/spirv"
	"github.com/gree-ml/gree/go/status"
)

// twoEntries is an executable of two axpb entry points; target makes the
// bytes differ.
func twoEntries(target string) []byte {
	e := spirv.Entry{Name: "axpb", WorkgroupSize: [3]int{64, 1, 1}, NumPushConstants: 2,
		Bindings: []spirv.Access{spirv.Read, spirv.Write}, Capabilities: []string{"Shader"}, SPIRV: axpbModule}
	f := e
	f.Name = "axpb2"
	data, err := spirv.Encode(&spirv.Executable{Target: target, Entries: []spirv.Entry{e, f}})
	if err != nil {
		panic(err)
	}
	return data
}

// dispatchAxpb runs entry point entry of exe on n words and checks the
// results.
func dispatchAxpb(t *testing.T, dev hal.Device, exe hal.Executable, entry int, a, b uint32) {
	t.Helper()
	const n = 256
	in := make([]byte, 4*n)
	for i := range n {
		binary.LittleEndian.PutUint32(in[4*i:], uint32(i))
	}
	src, dst := buffer(t, dev, hal.MemoryTypeDeviceLocal, 4*n), buffer(t, dev, hal.MemoryTypeDeviceLocal, 4*n)
	must(t, "upload", hal.WriteBuffer(dev, src, 0, in))
	must(t, "dispatch", run(t, dev, nil, func(cb *hal.CommandBuffer) error {
		return cb.Dispatch(exe, entry, [3]int64{n / 64, 1, 1}, []int64{int64(a), int64(b)}, []hal.BufferRef{hal.WholeBuffer(src), hal.WholeBuffer(dst)})
	}))
	if got := read(t, dev, dst); !bytes.Equal(got, axpbExpected(in, a, b)) {
		t.Errorf("entry %d: results differ at byte %d", entry, firstDiff(got, axpbExpected(in, a, b)))
	}
	src.Release()
	dst.Release()
}

// TestRealLazyPipelines checks that preparing creates the shader modules
// and layouts but no pipeline, and a dispatch creates its entry point's
// pipeline only, once.
func TestRealLazyPipelines(t *testing.T) {
	for _, disabled := range [][]string{nil, {"pushDescriptor"}} {
		dev := testDevice(t, disabled...)
		exe := prepare(t, dev, twoEntries("lazy"))
		entries := exe.(*executable).entries
		for _, e := range entries {
			if e.module == 0 || e.setLayout == 0 || e.layout == 0 {
				t.Errorf("%s: prepared without its shader module or layouts", e.name)
			}
		}
		if n := dev.pipelines.Load(); n != 0 {
			t.Fatalf("preparing created %d pipelines", n)
		}
		dispatchAxpb(t, dev, exe, 1, 3, 7)
		dispatchAxpb(t, dev, exe, 1, 2, 1)
		if n := dev.pipelines.Load(); n != 1 {
			t.Errorf("two dispatches of one entry point created %d pipelines", n)
		}
		if entries[0].pipeline.Load() != 0 || entries[1].pipeline.Load() == 0 {
			t.Errorf("pipelines %#x %#x: want only the dispatched entry point's", entries[0].pipeline.Load(), entries[1].pipeline.Load())
		}
		dispatchAxpb(t, dev, exe, 0, 5, 2)
		if n := dev.pipelines.Load(); n != 2 {
			t.Errorf("%d pipelines after both entry points ran", n)
		}
	}
}

// TestRealPrepareStillValidates checks that what preparing checked before
// pipelines were lazy still fails the prepare: the device's features and
// limits, and (with the validation layer) a SPIR-V module Vulkan rejects.
// A failed prepare leaves nothing behind.
func TestRealPrepareStillValidates(t *testing.T) {
	dev := testDevice(t, "shaderInt64")
	e := scaleEntry(t)
	e.Capabilities = append(append([]string(nil), e.Capabilities...), "Int64")
	_, err := dev.PrepareExecutable(spirv.Format, encode(e))
	wantError(t, "a capability the device lacks", err, status.FailedPrecondition, "Int64", "@scale")

	if os.Getenv("GREE_VULKAN_VALIDATION_CHILD") == "1" {
		t.Skip("TestNoValidationErrors's child must report no validation error")
	}
	opts := currentOptions()
	opts.validationLayers = true
	saved := debugLog
	debugLog = func(string) {}
	defer func() { debugLog = saved }()
	d := realDriver(t, opts)
	if len(d.layers) == 0 || d.messenger == 0 {
		t.Skipf("%s is not installed", validationLayer)
	}
	devices, _ := d.QueryAvailableDevices()
	hd, err := d.CreateDevice(devices[0].ID, nil)
	must(t, "device", err)
	defer hd.Close()
	vdev := hd.(*device)
	// The module's header, then an instruction of an unknown opcode.
	bad := append(append([]byte(nil), axpbModule[:20]...), words(0x0001ffff)...)
	good := spirv.Entry{Name: "axpb", WorkgroupSize: [3]int{64, 1, 1}, NumPushConstants: 2,
		Bindings: []spirv.Access{spirv.Read, spirv.Write}, Capabilities: []string{"Shader"}, SPIRV: axpbModule}
	broken := good
	broken.Name, broken.SPIRV = "broken", bad
	vdev.lifeMu.Lock()
	refs := vdev.refs
	vdev.lifeMu.Unlock()
	_, err = vdev.PrepareExecutable(spirv.Format, encode(good, broken))
	wantError(t, "an invalid SPIR-V module", err, status.Internal, "SPIR-V module not valid")
	vdev.lifeMu.Lock()
	after := vdev.refs
	vdev.lifeMu.Unlock()
	vdev.objMu.Lock()
	n := len(vdev.programs)
	vdev.objMu.Unlock()
	if after != refs || n != 0 {
		t.Errorf("a failed prepare left %d device references (had %d) and %d programs", after, refs, n)
	}
	if vdev.pipelines.Load() != 0 {
		t.Error("a failed prepare created pipelines")
	}
}

// TestRealProgramCache checks that preparing the same bytes again (after
// the first executable closed) shares the pipelines built, and other
// bytes do not.
func TestRealProgramCache(t *testing.T) {
	dev := testDevice(t)
	data := twoEntries("cache")
	first, err := dev.PrepareExecutable(spirv.Format, data)
	must(t, "prepare", err)
	dispatchAxpb(t, dev, first, 0, 3, 7)
	prog := first.(*executable).prog
	must(t, "close", first.Close())
	if !first.(*executable).released {
		t.Error("a closed executable kept its program")
	}
	wantError(t, "a dispatch of a closed executable", run(t, dev, nil, func(cb *hal.CommandBuffer) error {
		return cb.Dispatch(first, 0, [3]int64{1, 1, 1}, []int64{1, 1}, []hal.BufferRef{hal.WholeBuffer(buffer(t, dev, hal.MemoryTypeDeviceLocal, 256)), hal.WholeBuffer(buffer(t, dev, hal.MemoryTypeDeviceLocal, 256))})
	}), status.FailedPrecondition, "closed")

	// The same bytes, in a new slice: the same program, its pipeline built.
	second := prepare(t, dev, bytes.Clone(data))
	if second.(*executable).prog != prog {
		t.Fatal("the same bytes got a new program")
	}
	if second.(*executable).entries[0].pipeline.Load() == 0 {
		t.Error("the pipeline built before is not there")
	}
	third := prepare(t, dev, data) // while second is open
	dispatchAxpb(t, dev, second, 0, 2, 1)
	dispatchAxpb(t, dev, third, 0, 4, 4)
	if n := dev.pipelines.Load(); n != 1 {
		t.Errorf("%d pipelines for one entry point of one executable prepared three times", n)
	}

	// Other bytes: another program and pipeline.
	other := prepare(t, dev, twoEntries("other"))
	if other.(*executable).prog == prog {
		t.Fatal("different bytes share a program")
	}
	dispatchAxpb(t, dev, other, 0, 3, 7)
	if n := dev.pipelines.Load(); n != 2 {
		t.Errorf("%d pipelines, want 2", n)
	}
	if got := other.NumEntries(); got != 2 || other.EntryName(1) != "axpb2" {
		t.Errorf("entries %d %q", got, other.EntryName(1))
	}
}

// TestRealIdlePrograms checks the bound on programs no executable uses,
// and that unreachable executables let go of theirs.
func TestRealIdlePrograms(t *testing.T) {
	dev := testDevice(t)
	var firstProg *program
	for i := range maxIdlePrograms + 3 {
		exe, err := dev.PrepareExecutable(spirv.Format, twoEntries(fmt.Sprint("idle", i)))
		must(t, "prepare", err)
		if i == 0 {
			firstProg = exe.(*executable).prog
			dispatchAxpb(t, dev, exe, 0, 1, 1)
		}
		must(t, "close", exe.Close())
	}
	dev.objMu.Lock()
	progs, idle := len(dev.programs), len(dev.idle)
	_, kept := dev.programs[firstProg.key]
	dev.objMu.Unlock()
	if progs != maxIdlePrograms || idle != maxIdlePrograms || kept {
		t.Errorf("%d programs, %d idle, the oldest kept %v; want %d, %d, false", progs, idle, kept, maxIdlePrograms, maxIdlePrograms)
	}
	if firstProg.entries[0].pipeline.Load() != 0 || firstProg.entries[0].module != 0 {
		t.Error("an evicted program's objects were not destroyed")
	}

	// Executables nobody references are released by the collector.
	for range 10 {
		_, err := dev.PrepareExecutable(spirv.Format, twoEntries("garbage"))
		must(t, "prepare", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		dev.objMu.Lock()
		n := len(dev.executables)
		refs := dev.programs[programKey(sha256.Sum256(twoEntries("garbage")))].refs
		dev.objMu.Unlock()
		if n == 0 && refs == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d executables still live, the program has %d references", n, refs)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestRealProgramsConcurrently prepares, dispatches and closes the same
// and different executables from many goroutines (run with -race): each
// entry point's pipeline is created once per program.
func TestRealProgramsConcurrently(t *testing.T) {
	dev := testDevice(t)
	datas := [][]byte{twoEntries("c0"), twoEntries("c1")}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 4 {
				exe, err := dev.PrepareExecutable(spirv.Format, datas[(g+i)%2])
				if err != nil {
					errs <- err
					return
				}
				entry := (g / 2) % 2
				if err := dispatchOnce(dev, exe, entry, uint32(g), uint32(i)); err != nil {
					errs <- err
				}
				exe.Close()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := dev.pipelines.Load(); n != 4 {
		t.Errorf("%d pipelines created, want 4 (2 executables × 2 entry points)", n)
	}
	dev.objMu.Lock()
	defer dev.objMu.Unlock()
	if len(dev.programs) != 2 || len(dev.executables) != 0 {
		t.Errorf("%d programs, %d executables", len(dev.programs), len(dev.executables))
	}
	for _, p := range dev.programs {
		if p.refs != 0 {
			t.Errorf("a program keeps %d references", p.refs)
		}
	}
}

// dispatchOnce is dispatchAxpb without testing.T (for goroutines).
func dispatchOnce(dev hal.Device, exe hal.Executable, entry int, a, b uint32) error {
	const n = 128
	in := make([]byte, 4*n)
	for i := range n {
		binary.LittleEndian.PutUint32(in[4*i:], uint32(i))
	}
	params := hal.BufferParams{Type: hal.MemoryTypeDeviceLocal, Usage: hal.BufferUsageDefault}
	src, err := dev.Allocator().Allocate(params, 4*n)
	if err != nil {
		return err
	}
	defer src.Release()
	dst, err := dev.Allocator().Allocate(params, 4*n)
	if err != nil {
		return err
	}
	defer dst.Release()
	if err := hal.WriteBuffer(dev, src, 0, in); err != nil {
		return err
	}
	cb, err := hal.NewCommandBuffer(hal.CommandBufferOneShot, hal.CommandCategoryAny, 0)
	if err != nil {
		return err
	}
	defer cb.Release()
	if err := cb.Begin(); err != nil {
		return err
	}
	if err := cb.Dispatch(exe, entry, [3]int64{n / 64, 1, 1}, []int64{int64(a), int64(b)}, []hal.BufferRef{hal.WholeBuffer(src), hal.WholeBuffer(dst)}); err != nil {
		return err
	}
	if err := cb.End(); err != nil {
		return err
	}
	s, err := dev.CreateSemaphore(0)
	if err != nil {
		return err
	}
	if err := dev.QueueExecute(nil, hal.SemaphoreList{{Semaphore: s, Value: 1}}, cb, nil); err != nil {
		return err
	}
	if err := s.Wait(1, time.Now().Add(30*time.Second)); err != nil {
		return err
	}
	got, err := hal.ReadBuffer(dev, dst, 0, 4*n)
	if err != nil {
		return err
	}
	if !bytes.Equal(got, axpbExpected(in, a, b)) {
		return fmt.Errorf("entry %d, a=%d b=%d: results differ at byte %d", entry, a, b, firstDiff(got, axpbExpected(in, a, b)))
	}
	return nil
}

// TestRealCloseWithExecutables closes a device whose executables are
// still open: their objects go, later dispatches fail, names stay.
func TestRealCloseWithExecutables(t *testing.T) {
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
	idle, err := dev.PrepareExecutable(spirv.Format, axpb())
	must(t, "prepare", err)
	must(t, "close the executable", idle.Close())
	must(t, "close", dev.Close())
	if !exe.(*executable).released || exe.EntryName(0) != "scale" {
		t.Errorf("after the device closed: released %v, entry %q", exe.(*executable).released, exe.EntryName(0))
	}
	if dev.handle != 0 {
		t.Error("the VkDevice outlived Close with no memory allocated")
	}
	_, err = dev.PrepareExecutable(spirv.Format, cts.ScaleSPIRV())
	wantError(t, "preparing on a closed device", err, status.FailedPrecondition, "closed")
	must(t, "close the executable after its device", exe.Close())
}
