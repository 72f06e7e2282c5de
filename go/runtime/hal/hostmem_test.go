package hal

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/gree-ml/gree/go/status"
)

func TestParseByteSize(t *testing.T) {
	for in, want := range map[string]int64{
		"": 0, "0": 0, "4096": 4096, "1K": 1 << 10, "1k": 1 << 10, "3M": 3 << 20,
		"3MiB": 3 << 20, "3MB": 3 << 20, "2G": 2 << 30, "1T": 1 << 40, " 7 ": 7,
	} {
		if got, err := ParseByteSize(in); err != nil || got != want {
			t.Errorf("ParseByteSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"x", "-1", "1Q", "99999999999T", "B", "K"} {
		if _, err := ParseByteSize(in); status.CodeOf(err) != status.InvalidArgument {
			t.Errorf("ParseByteSize(%q): error %v, want INVALID_ARGUMENT", in, err)
		}
	}
}

// mapped reports whether addr lies in a mapping of /proc/self/maps.
func mapped(t *testing.T, addr uintptr) bool {
	t.Helper()
	data, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Skip("no /proc/self/maps: ", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		var lo, hi uintptr
		if _, err := fmt.Sscanf(line, "%x-%x", &lo, &hi); err == nil && lo <= addr && addr < hi {
			return true
		}
	}
	return false
}

// TestLargeBuffersAreUnmappedOnRelease: a buffer of MapThreshold bytes
// or more is a mapping of its own, gone as soon as the buffer's last
// reference is released (no garbage collection involved).
func TestLargeBuffersAreUnmappedOnRelease(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("gree maps large buffers itself on Linux only")
	}
	a := NewHeapAllocator()
	live := HostBytesLive()
	const n = 64 << 20
	b, err := a.Allocate(BufferParams{Type: MemoryTypeDeviceLocal, Usage: BufferUsageDefault}, n)
	if err != nil {
		t.Fatal(err)
	}
	data := b.HostBytes()
	data[0], data[n-1] = 1, 2
	addr := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
	if addr%(2<<20) != 0 {
		t.Errorf("a %d-byte buffer starts at %#x, not on a huge-page boundary", n, addr)
	}
	if got := HostBytesLive() - live; got != n {
		t.Errorf("HostBytesLive grew by %d, want %d", got, n)
	}
	if !mapped(t, addr) {
		t.Fatal("the buffer's memory is not in /proc/self/maps")
	}
	data = nil
	if err := b.Release(); err != nil {
		t.Fatal(err)
	}
	if mapped(t, addr) {
		t.Error("the buffer's mapping is still there after its release")
	}
	if got := HostBytesLive() - live; got != 0 {
		t.Errorf("HostBytesLive is %d over its start after the release", got)
	}
	if s := a.Statistics(); s.DeviceBytesAllocated != n || s.DeviceBytesFreed != n {
		t.Errorf("statistics %+v, want %d allocated and freed", s, n)
	}
}

// TestAllocationsTheMachineCannotHoldFail: sizes over the per-buffer
// bound or over the machine's memory are RESOURCE_EXHAUSTED errors naming
// the size and what it was for, at once, and nothing is allocated.
func TestAllocationsTheMachineCannotHoldFail(t *testing.T) {
	a := NewHeapAllocator()
	params := BufferParams{Type: MemoryTypeDeviceLocal, Usage: BufferUsageDefault}
	sizes := []int64{maxBufferBytes + 1}
	if avail, ok := availableMemory(); ok && avail < maxBufferBytes {
		sizes = append(sizes, avail+(1<<30))
	}
	for _, n := range sizes {
		_, err := a.Allocate(params, n)
		if status.CodeOf(err) != status.ResourceExhausted || !strings.Contains(err.Error(), fmt.Sprint(n)) || !strings.Contains(err.Error(), "HAL buffer") {
			t.Errorf("Allocate(%d): %v, want RESOURCE_EXHAUSTED naming the size and the buffer", n, err)
		}
	}
	if _, err := NewHostBufferView([]int64{1 << 40}, ElementFloat32); status.CodeOf(err) != status.ResourceExhausted || !strings.Contains(err.Error(), "1099511627776xf32") {
		t.Errorf("a 2^40-element f32 view: %v, want RESOURCE_EXHAUSTED naming its shape", err)
	}
	if _, err := DenseByteSize([]int64{-1}, ElementFloat32); status.CodeOf(err) != status.InvalidArgument {
		t.Errorf("a negative dimension: %v, want INVALID_ARGUMENT", err)
	}
	if s := a.Statistics(); s.DeviceBytesAllocated != 0 {
		t.Errorf("failed allocations were counted: %+v", s)
	}
}

// TestMemoryLimitBoundsLiveBytes: with a limit, an allocation that would
// hold more than it is RESOURCE_EXHAUSTED naming GREE_MEMORY_LIMIT, and
// releasing memory makes room again.
func TestMemoryLimitBoundsLiveBytes(t *testing.T) {
	old := SetMemoryLimit(HostBytesLive() + 3<<20)
	defer SetMemoryLimit(old)
	a := NewHeapAllocator()
	params := BufferParams{Type: MemoryTypeDeviceLocal, Usage: BufferUsageDefault}
	b1, err := a.Allocate(params, 2<<20)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Allocate(params, 2<<20); status.CodeOf(err) != status.ResourceExhausted || !strings.Contains(err.Error(), MemoryLimitEnv) {
		t.Fatalf("an allocation over the limit: %v, want RESOURCE_EXHAUSTED naming %s", err, MemoryLimitEnv)
	}
	b1.Release()
	b2, err := a.Allocate(params, 2<<20)
	if err != nil {
		t.Fatalf("after a release the allocation still fails: %v", err)
	}
	b2.Release()
}
