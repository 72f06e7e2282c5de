package vulkan

import (
	"bytes"
	"testing"
	"time"

	"github.com/gree-ml/gree/go/runtime/hal"
)

// TestRealPartialWordBinding binds buffers of 7 bytes to a kernel of
// 32-bit words: their ranges are bound rounded up to whole words, so the
// kernel sees two words (OpArrayLength) and computes the partial second
// one too, as a GPU-legalized kernel's packed binding needs.
func TestRealPartialWordBinding(t *testing.T) {
	dev := testDevice(t)
	exe := prepare(t, dev, axpb())
	in := []byte{1, 2, 3, 4, 0xff, 0xff, 0x10}
	src := buffer(t, dev, hal.MemoryTypeDeviceLocal, 7)
	dst := buffer(t, dev, hal.MemoryTypeDeviceLocal, 7)
	must(t, "upload", hal.WriteBuffer(dev, src, 0, in))
	cb, err := hal.NewCommandBuffer(0, hal.CommandCategoryAny, 0)
	must(t, "command buffer", err)
	defer cb.Release()
	must(t, "begin", cb.Begin())
	must(t, "dispatch", cb.Dispatch(exe, 0, [3]int64{1, 1, 1}, []int64{1, 1}, []hal.BufferRef{hal.WholeBuffer(src), hal.WholeBuffer(dst)}))
	must(t, "end", cb.End())
	s := mustSemaphore(t, dev)
	must(t, "execute", dev.QueueExecute(nil, hal.SemaphoreList{{Semaphore: s, Value: 1}}, cb, nil))
	must(t, "wait", s.Wait(1, time.Now().Add(30*time.Second)))
	got, err := hal.ReadBuffer(dev, dst, 0, 7)
	must(t, "read", err)
	// Word 0: 0x04030201 + 1; word 1's three bytes: 0x10ffff + 1.
	if want := []byte{2, 2, 3, 4, 0, 0, 0x11}; !bytes.Equal(got, want) {
		t.Fatalf("got % x, want % x", got, want)
	}
}
