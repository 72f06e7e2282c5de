package cts

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/status"
)

// oneShot returns a begun one-shot command buffer.
func oneShot(t *testing.T) *hal.CommandBuffer {
	t.Helper()
	cb, err := hal.NewCommandBuffer(hal.CommandBufferOneShot, hal.CommandCategoryAny, 0)
	must(t, "create command buffer", err)
	must(t, "begin", cb.Begin())
	return cb
}

// execute submits cb and waits for it.
func execute(t *testing.T, dev hal.Device, cb *hal.CommandBuffer, table []hal.BufferRef) error {
	t.Helper()
	s := semaphore(t, dev)
	if err := dev.QueueExecute(nil, at(s, 1), cb, table); err != nil {
		return err
	}
	return s.Wait(1, time.Now().Add(30*time.Second))
}

func testCommandBufferStates(t *testing.T, dev hal.Device) {
	b := deviceBuffer(t, dev, 16)
	cb, err := hal.NewCommandBuffer(hal.CommandBufferOneShot, hal.CommandCategoryAny, 0)
	must(t, "create", err)
	wantCode(t, "fill before begin", cb.Fill(hal.WholeBuffer(b), []byte{1}), status.FailedPrecondition)
	wantCode(t, "end before begin", cb.End(), status.FailedPrecondition)
	wantCode(t, "submit before begin", dev.QueueExecute(nil, nil, cb, nil), status.FailedPrecondition)
	must(t, "begin", cb.Begin())
	wantCode(t, "begin twice", cb.Begin(), status.FailedPrecondition)
	wantCode(t, "submit while recording", dev.QueueExecute(nil, nil, cb, nil), status.FailedPrecondition)
	wantCode(t, "fill pattern of 3 bytes", cb.Fill(hal.WholeBuffer(b), []byte{1, 2, 3}), status.InvalidArgument)
	wantCode(t, "fill past the end", cb.Fill(hal.BufferRef{Buffer: b, Offset: 8, Length: 16}, []byte{1}), status.OutOfRange)
	wantCode(t, "copy of unequal lengths", cb.Copy(hal.BufferRef{Buffer: b, Length: 4}, hal.BufferRef{Buffer: deviceBuffer(t, dev, 8), Length: 8}), status.InvalidArgument)
	wantCode(t, "copy of overlapping ranges", cb.Copy(hal.BufferRef{Buffer: b, Length: 8}, hal.BufferRef{Buffer: b, Offset: 4, Length: 8}), status.InvalidArgument)
	wantCode(t, "slot past the binding capacity", cb.Fill(hal.BufferRef{Slot: 0, Length: 4}, []byte{1}), status.OutOfRange)
	must(t, "fill", cb.Fill(hal.WholeBuffer(b), []byte{7}))
	must(t, "end", cb.End())
	wantCode(t, "end twice", cb.End(), status.FailedPrecondition)
	wantCode(t, "record after end", cb.Fill(hal.WholeBuffer(b), []byte{1}), status.FailedPrecondition)
	must(t, "execute", execute(t, dev, cb, nil))
	wantCode(t, "a one-shot command buffer submitted twice", dev.QueueExecute(nil, nil, cb, nil), status.FailedPrecondition)
	must(t, "release", cb.Release())
	wantCode(t, "release twice", cb.Release(), status.FailedPrecondition)
	if got := read(t, dev, b); !bytes.Equal(got, bytes.Repeat([]byte{7}, 16)) {
		t.Errorf("fill wrote %v", got)
	}
	// Categories are enforced.
	tr, err := hal.NewCommandBuffer(hal.CommandBufferOneShot, hal.CommandCategoryTransfer, 0)
	must(t, "create transfer-only", err)
	defer tr.Release()
	must(t, "begin", tr.Begin())
	wantCode(t, "dispatch in a transfer-only command buffer", tr.Dispatch(nil, 0, [3]int64{1, 1, 1}, nil, nil), status.FailedPrecondition)
}

func testTransfers(t *testing.T, dev hal.Device) {
	a, b, c := deviceBuffer(t, dev, 64), deviceBuffer(t, dev, 64), deviceBuffer(t, dev, 64)
	cb := oneShot(t)
	defer cb.Release()
	must(t, "fill u32", cb.Fill(hal.BufferRef{Buffer: a, Offset: 0, Length: 32}, []byte{1, 2, 3, 4}))
	must(t, "fill u16", cb.Fill(hal.BufferRef{Buffer: a, Offset: 32, Length: 32}, []byte{5, 6}))
	must(t, "barrier", cb.ExecutionBarrier())
	must(t, "copy", cb.Copy(hal.WholeBuffer(a), hal.WholeBuffer(b)))
	must(t, "barrier", cb.ExecutionBarrier())
	must(t, "update", cb.Update([]byte("update"), hal.BufferRef{Buffer: b, Offset: 10}))
	must(t, "barrier", cb.ExecutionBarrier())
	must(t, "copy range", cb.Copy(hal.BufferRef{Buffer: b, Offset: 8, Length: 16}, hal.BufferRef{Buffer: c, Offset: 48, Length: 16}))
	must(t, "end", cb.End())
	must(t, "execute", execute(t, dev, cb, nil))
	wantA := append(bytes.Repeat([]byte{1, 2, 3, 4}, 8), bytes.Repeat([]byte{5, 6}, 16)...)
	if got := read(t, dev, a); !bytes.Equal(got, wantA) {
		t.Errorf("fills: %v", got)
	}
	wantB := slices.Clone(wantA)
	copy(wantB[10:], "update")
	if got := read(t, dev, b); !bytes.Equal(got, wantB) {
		t.Errorf("copy then update: %v", got)
	}
	wantC := make([]byte, 64)
	copy(wantC[48:], wantB[8:24])
	if got := read(t, dev, c); !bytes.Equal(got, wantC) {
		t.Errorf("copy of a range: %v", got)
	}
	// The device's queue operations do the same without a command buffer.
	d := deviceBuffer(t, dev, 64)
	s := semaphore(t, dev)
	must(t, "queue fill", hal.QueueFill(dev, nil, at(s, 1), hal.WholeBuffer(d), []byte{9}))
	must(t, "queue update", hal.QueueUpdate(dev, at(s, 1), at(s, 2), []byte("xy"), hal.BufferRef{Buffer: d, Offset: 62}))
	must(t, "queue copy", hal.QueueCopy(dev, at(s, 2), at(s, 3), hal.BufferRef{Buffer: d, Offset: 60, Length: 4}, hal.BufferRef{Buffer: c, Length: 4}))
	must(t, "queue barrier", hal.QueueBarrier(dev, at(s, 3), at(s, 4)))
	must(t, "wait", s.Wait(4, time.Now().Add(30*time.Second)))
	if got := read(t, dev, c)[:4]; string(got) != "\x09\x09xy" {
		t.Errorf("queue fill, update, copy: %q", got)
	}
}

func testReusable(t *testing.T, dev hal.Device) {
	cb, err := hal.NewCommandBuffer(0, hal.CommandCategoryAny, 2)
	must(t, "create reusable", err)
	defer cb.Release()
	must(t, "begin", cb.Begin())
	must(t, "fill slot 0", cb.Fill(hal.BufferRef{Slot: 0, Length: -1}, []byte{3}))
	must(t, "barrier", cb.ExecutionBarrier())
	must(t, "copy slot 0 to slot 1", cb.Copy(hal.BufferRef{Slot: 0, Offset: 4, Length: 4}, hal.BufferRef{Slot: 1, Length: 4}))
	must(t, "end", cb.End())
	for rep := 0; rep < 3; rep++ {
		a, b := deviceBuffer(t, dev, 8), deviceBuffer(t, dev, 4)
		must(t, "execute", execute(t, dev, cb, []hal.BufferRef{hal.WholeBuffer(a), hal.WholeBuffer(b)}))
		if got := read(t, dev, b); !bytes.Equal(got, []byte{3, 3, 3, 3}) {
			t.Fatalf("execution %d: %v", rep, got)
		}
	}
	// A binding table without the slot fails the submission's signal.
	s := semaphore(t, dev)
	err = dev.QueueExecute(nil, at(s, 1), cb, []hal.BufferRef{hal.WholeBuffer(deviceBuffer(t, dev, 8))})
	if err == nil {
		err = s.Wait(1, time.Now().Add(30*time.Second))
	}
	wantCode(t, "executing with a short binding table", err, status.OutOfRange)
}

// prepareScale loads the suite's scale kernel in a format the device
// loads (vmvx, else vulkan-spirv), or skips when it loads neither.
func prepareScale(t *testing.T, dev hal.Device) hal.Executable {
	t.Helper()
	format, kernel, ok := scaleKernel(dev.Formats())
	if !ok {
		t.Skipf("%s does not load %s executables (formats %v)", dev.ID(), VMVXFormat, dev.Formats())
	}
	exe, err := dev.PrepareExecutable(format, kernel())
	must(t, "prepare", err)
	t.Cleanup(func() { exe.Close() })
	if exe.NumEntries() != 1 || exe.EntryName(0) != "scale" {
		t.Errorf("executable: %d entries, first %q", exe.NumEntries(), exe.EntryName(0))
	}
	return exe
}

func testDispatch(t *testing.T, dev hal.Device) {
	exe := prepareScale(t, dev)
	grid := [3]int64{7, 5, 3}
	n := grid[0] * grid[1] * grid[2]
	in := ScaleInput(n)
	src, dst := deviceBuffer(t, dev, int64(len(in))), deviceBuffer(t, dev, int64(len(in)))
	cb := oneShot(t)
	defer cb.Release()
	must(t, "upload", cb.Update(in, hal.WholeBuffer(src)))
	must(t, "barrier", cb.ExecutionBarrier())
	must(t, "dispatch", cb.Dispatch(exe, 0, grid, nil, []hal.BufferRef{hal.WholeBuffer(src), hal.WholeBuffer(dst)}))
	must(t, "end", cb.End())
	must(t, "execute", execute(t, dev, cb, nil))
	if got := read(t, dev, dst); !bytes.Equal(got, ScaleExpected(in)) {
		t.Fatal("dispatch results differ from the kernel's definition")
	}
}

func testDispatchFailure(t *testing.T, dev hal.Device) {
	exe := prepareScale(t, dev)
	in := ScaleInput(4)
	src := deviceBuffer(t, dev, int64(len(in)))
	short := deviceBuffer(t, dev, int64(len(in))-64) // the last workgroup stores past its end
	cb := oneShot(t)
	defer cb.Release()
	must(t, "dispatch", cb.Dispatch(exe, 0, [3]int64{4, 1, 1}, nil, []hal.BufferRef{hal.WholeBuffer(src), hal.WholeBuffer(short)}))
	must(t, "end", cb.End())
	err := execute(t, dev, cb, nil)
	if status.CodeOf(err) != status.OutOfRange || !strings.Contains(err.Error(), "scale") {
		t.Errorf("a dispatch storing out of bounds: %v, want OUT_OF_RANGE naming the entry point", err)
	}
	bad := oneShot(t)
	defer bad.Release()
	must(t, "dispatch of a missing entry point", bad.Dispatch(exe, 3, [3]int64{1, 1, 1}, nil, []hal.BufferRef{hal.WholeBuffer(src), hal.WholeBuffer(src)}))
	must(t, "end", bad.End())
	wantCode(t, "executing a dispatch of a missing entry point", execute(t, dev, bad, nil), status.OutOfRange)
}

func testQueueOrder(t *testing.T, dev hal.Device) {
	gate := semaphore(t, dev)
	done := semaphore(t, dev)
	b := deviceBuffer(t, dev, 4)
	// Submitted first, runs second: it waits for the gate.
	must(t, "queue fill after the gate", hal.QueueFill(dev, at(gate, 1), at(done, 2), hal.WholeBuffer(b), []byte{2}))
	// Submitted second, independent: it runs now.
	other := deviceBuffer(t, dev, 4)
	s := semaphore(t, dev)
	must(t, "independent fill", hal.QueueFill(dev, nil, at(s, 1), hal.WholeBuffer(other), []byte{5}))
	must(t, "independent fill completes while the other waits", s.Wait(1, time.Now().Add(30*time.Second)))
	wantCode(t, "the gated fill has not run", done.Wait(2, hal.Immediate), status.DeadlineExceeded)
	// A host call queued after the gated fill sees its result.
	var seen []byte
	must(t, "host call", dev.QueueHostCall(at(done, 2), at(done, 3), func() error {
		var err error
		seen, err = hal.ReadBuffer(nil, b, 0, 4)
		return err
	}))
	must(t, "open the gate", gate.Signal(1))
	must(t, "wait", done.Wait(3, time.Now().Add(30*time.Second)))
	if !bytes.Equal(seen, []byte{2, 2, 2, 2}) {
		t.Errorf("host call after the fill saw %v", seen)
	}
}

func testFailurePropagation(t *testing.T, dev hal.Device) {
	// A failed wait fails the work's signal list with its code.
	a, out := semaphore(t, dev), semaphore(t, dev)
	b := deviceBuffer(t, dev, 4)
	must(t, "fill waiting on a", hal.QueueFill(dev, at(a, 1), at(out, 1), hal.WholeBuffer(b), []byte{1}))
	a.Fail(status.New(status.DataLoss, "upstream failed"))
	err := out.Wait(1, time.Now().Add(30*time.Second))
	if status.CodeOf(err) != status.DataLoss || !strings.Contains(err.Error(), "upstream failed") {
		t.Errorf("the failure of a waited semaphore: %v", err)
	}
	if got := read(t, dev, b); !bytes.Equal(got, make([]byte, 4)) {
		t.Error("work ran although its wait failed")
	}
	// A host call's error fails its signal list.
	s := semaphore(t, dev)
	must(t, "failing host call", dev.QueueHostCall(nil, at(s, 1), func() error {
		return status.New(status.Unavailable, "host call failed")
	}))
	wantCode(t, "host call failure", s.Wait(1, time.Now().Add(30*time.Second)), status.Unavailable)
}

func testInFlightRelease(t *testing.T, dev hal.Device) {
	a := dev.Allocator()
	gate, done := semaphore(t, dev), semaphore(t, dev)
	src, dst := deviceBuffer(t, dev, 1<<16), deviceBuffer(t, dev, 1<<16)
	must(t, "fill", hal.QueueFill(dev, nil, nil, hal.WholeBuffer(src), []byte{6}))
	before := a.Statistics()
	cb := oneShot(t)
	must(t, "copy", cb.Copy(hal.WholeBuffer(src), hal.WholeBuffer(dst)))
	must(t, "end", cb.End())
	must(t, "submit behind the gate", dev.QueueExecute(at(gate, 1), at(done, 1), cb, nil))
	// The caller lets go of everything while the copy waits.
	must(t, "release command buffer", cb.Release())
	must(t, "release source", src.Release())
	if mid := a.Statistics(); mid.DeviceBytesFreed+mid.HostBytesFreed != before.DeviceBytesFreed+before.HostBytesFreed {
		t.Fatal("a buffer was freed while queued work still uses it")
	}
	must(t, "open the gate", gate.Signal(1))
	must(t, "wait", done.Wait(1, time.Now().Add(30*time.Second)))
	if got := read(t, dev, dst); !bytes.Equal(got, bytes.Repeat([]byte{6}, 1<<16)) {
		t.Fatal("the copy read a buffer released while it was queued")
	}
	if after := a.Statistics(); !hal.KeepsReleasedMemory(a) && after.DeviceBytesFreed+after.HostBytesFreed < before.DeviceBytesFreed+before.HostBytesFreed+1<<16 {
		t.Errorf("the released buffer was not freed once the work completed: %+v then %+v", before, after)
	}
}

func testAllocaDealloca(t *testing.T, dev hal.Device) {
	s := semaphore(t, dev)
	b, err := hal.QueueAlloca(dev, nil, at(s, 1), hal.BufferParams{Type: hal.MemoryTypeDeviceLocal, Usage: hal.BufferUsageDefault}, 1024)
	must(t, "alloca", err)
	if b.ByteLength() != 1024 {
		t.Fatalf("alloca gave %d bytes", b.ByteLength())
	}
	must(t, "fill", hal.QueueFill(dev, at(s, 1), at(s, 2), hal.WholeBuffer(b), []byte{1}))
	must(t, "dealloca", hal.QueueDealloca(dev, at(s, 2), at(s, 3), b))
	must(t, "wait", s.Wait(3, time.Now().Add(30*time.Second)))
	_, err = hal.ReadBuffer(dev, b, 0, 4)
	wantCode(t, "reading a deallocated buffer", err, status.FailedPrecondition)
	wantCode(t, "deallocating twice", hal.QueueDealloca(dev, nil, nil, b), status.FailedPrecondition)
}

func testReadWrite(t *testing.T, dev hal.Device) {
	file := &hal.MemoryFile{Data: []byte("....file contents...."), Readable: true, Writable: true}
	b := deviceBuffer(t, dev, 13)
	s := semaphore(t, dev)
	must(t, "queue read", hal.QueueRead(dev, nil, at(s, 1), file, 4, hal.WholeBuffer(b)))
	must(t, "queue write", hal.QueueWrite(dev, at(s, 1), at(s, 2), hal.BufferRef{Buffer: b, Length: 4}, file, 0))
	must(t, "wait", s.Wait(2, time.Now().Add(30*time.Second)))
	if got := read(t, dev, b); string(got) != "file contents" {
		t.Errorf("queue read: %q", got)
	}
	if string(file.Data[:4]) != "file" {
		t.Errorf("queue write: %q", file.Data)
	}
	wantCode(t, "reading past the file's end", hal.QueueRead(dev, nil, nil, file, 10, hal.WholeBuffer(b)), status.OutOfRange)
}

func testCloseCancels(t *testing.T, d hal.Driver) {
	dev, err := d.CreateDeviceByPath("", nil)
	must(t, "create device", err)
	gate, done := semaphore(t, dev), semaphore(t, dev)
	must(t, "queue barrier behind the gate", hal.QueueBarrier(dev, at(gate, 1), at(done, 1)))
	closed := make(chan error, 1)
	go func() { closed <- dev.Close() }()
	select {
	case err := <-closed:
		must(t, "close", err)
	case <-time.After(30 * time.Second):
		t.Fatal("closing a device with queued work waiting for a semaphore hangs")
	}
	wantCode(t, "the waiting work after close", done.Wait(1, time.Now().Add(30*time.Second)), status.Cancelled)
	wantCode(t, "queue work on a closed device", hal.QueueBarrier(dev, nil, nil), status.FailedPrecondition)
}
