package cts

import (
	"testing"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/status"
)

// runExecution runs the execution suites (memory, synchronization, command
// buffers and queues) on the driver's default device. A device that does
// not execute yet (hal.Unexecuting) skips them with its reason.
func runExecution(t *testing.T, d hal.Driver) {
	dev, err := d.CreateDeviceByPath("", nil)
	if err != nil {
		t.Fatalf("creating the default device: %v", err)
	}
	t.Cleanup(func() { dev.Close() })
	if _, err := dev.CreateSemaphore(0); status.CodeOf(err) == status.Unimplemented {
		t.Skipf("%s does not execute yet: %v", d.Name(), err)
	}
	t.Run("Allocator", func(t *testing.T) { testAllocator(t, dev) })
	t.Run("Buffer", func(t *testing.T) { testBuffer(t, dev) })
	t.Run("BufferLifetime", func(t *testing.T) { testBufferLifetime(t, dev) })
	t.Run("Semaphore", func(t *testing.T) { testSemaphore(t, dev) })
	t.Run("SemaphoreAcrossGoroutines", func(t *testing.T) { testSemaphoreAcrossGoroutines(t, dev) })
	t.Run("Fence", func(t *testing.T) { testFence(t, dev) })
	t.Run("CommandBufferStates", func(t *testing.T) { testCommandBufferStates(t, dev) })
	t.Run("Transfers", func(t *testing.T) { testTransfers(t, dev) })
	t.Run("ReusableCommandBuffer", func(t *testing.T) { testReusable(t, dev) })
	t.Run("Dispatch", func(t *testing.T) { testDispatch(t, dev) })
	t.Run("DispatchFailure", func(t *testing.T) { testDispatchFailure(t, dev) })
	t.Run("QueueOrder", func(t *testing.T) { testQueueOrder(t, dev) })
	t.Run("FailurePropagation", func(t *testing.T) { testFailurePropagation(t, dev) })
	t.Run("InFlightRelease", func(t *testing.T) { testInFlightRelease(t, dev) })
	t.Run("QueueAllocaDealloca", func(t *testing.T) { testAllocaDealloca(t, dev) })
	t.Run("QueueReadWrite", func(t *testing.T) { testReadWrite(t, dev) })
	t.Run("CloseCancelsWaitingWork", func(t *testing.T) { testCloseCancels(t, d) })
}

// wantCode fails the test unless err has code want.
func wantCode(t *testing.T, what string, err error, want status.Code) {
	t.Helper()
	if status.CodeOf(err) != want {
		t.Errorf("%s: got %v, want %s", what, err, want)
	}
}

// must fails the test on err.
func must(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// deviceBuffer allocates a device-local buffer for transfers and dispatches.
func deviceBuffer(t *testing.T, dev hal.Device, n int64) *hal.Buffer {
	t.Helper()
	b, err := dev.Allocator().Allocate(hal.BufferParams{Type: hal.MemoryTypeDeviceLocal, Usage: hal.BufferUsageDefault}, n)
	must(t, "allocate", err)
	t.Cleanup(func() {
		if !b.Released() {
			b.Release()
		}
	})
	return b
}

// semaphore creates a semaphore at 0.
func semaphore(t *testing.T, dev hal.Device) hal.Semaphore {
	t.Helper()
	s, err := dev.CreateSemaphore(0)
	must(t, "create semaphore", err)
	return s
}

// at is one timepoint as a list.
func at(s hal.Semaphore, v uint64) hal.SemaphoreList {
	return hal.SemaphoreList{{Semaphore: s, Value: v}}
}

// read returns a copy of b's bytes, through the device when the host
// cannot map it.
func read(t *testing.T, dev hal.Device, b *hal.Buffer) []byte {
	t.Helper()
	data, err := hal.ReadBuffer(dev, b, 0, b.ByteLength())
	must(t, "read back", err)
	return data
}
