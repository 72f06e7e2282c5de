package hal

import (
	"runtime"
	"runtime/metrics"
	"testing"
)

// heapFree reads the bytes of Go heap pages that are free and still
// backed by memory (not yet given back to the system).
func heapFree() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/free:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// The heap allocator's buffers under MapThreshold come from the Go heap:
// once released, their pages stay with the heap until its scavenger gives
// them back in the background; Trim gives them back at once.
func TestHeapAllocatorTrimGivesFreePagesBack(t *testing.T) {
	h := NewHeapAllocator()
	params := BufferParams{Type: MemoryTypeDeviceLocal | MemoryTypeHostVisible, Usage: BufferUsageDefault}
	var bufs []*Buffer
	for range 128 {
		b, err := h.Allocate(params, 256<<10)
		if err != nil {
			t.Fatal(err)
		}
		m, err := b.Map(0, 256<<10, MemoryAccessWrite)
		if err != nil {
			t.Fatal(err)
		}
		for i := range m {
			m[i] = 1
		}
		bufs = append(bufs, b)
	}
	for _, b := range bufs {
		b.Release()
	}
	bufs = nil
	runtime.GC()
	before := heapFree()
	if err := h.Trim(); err != nil {
		t.Fatal(err)
	}
	after := heapFree()
	t.Logf("free heap pages backed by memory: %d KiB before Trim, %d KiB after", before>>10, after>>10)
	if before < 16<<20 {
		t.Skipf("the collector kept only %d KiB of free pages: nothing to give back", before>>10)
	}
	if after > before/8 {
		t.Fatalf("Trim left %d of %d KiB of free heap pages backed by memory", after>>10, before>>10)
	}
}
