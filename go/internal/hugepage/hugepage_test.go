package hugepage

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

func TestAllocAlignsLargeBuffers(t *testing.T) {
	for _, n := range []int{MinBytes, MinBytes + 1, 3*Size + 5} {
		b := Alloc(n)
		if len(b) != n || cap(b) != n {
			t.Fatalf("Alloc(%d): len %d cap %d", n, len(b), cap(b))
		}
		if a := uintptr(unsafe.Pointer(unsafe.SliceData(b))); a%Size != 0 {
			t.Errorf("Alloc(%d) starts at %#x, not on a %d-byte boundary", n, a, Size)
		}
		for i, c := range b {
			if c != 0 {
				t.Fatalf("Alloc(%d)[%d] = %d, want zeroed memory", n, i, c)
			}
		}
	}
	if b := Alloc(100); len(b) != 100 || cap(b) != 100 {
		t.Errorf("Alloc(100): len %d cap %d", len(b), cap(b))
	}
}

// TestAllocAdvisesHugePages reads the kernel's own record of the advice:
// the mapping that holds the buffer carries VmFlags "hg" in
// /proc/self/smaps.
func TestAllocAdvisesHugePages(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("madvise(MADV_HUGEPAGE) is Linux only")
	}
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skip("kernel without transparent huge pages: ", err)
	}
	b := Alloc(Size + 1)
	addr := uint64(uintptr(unsafe.Pointer(unsafe.SliceData(b))))
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip("no /proc/self/smaps: ", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	inside := false
	for sc.Scan() {
		line := sc.Text()
		if fields := strings.Fields(line); len(fields) > 0 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":") {
			lo, hi, _ := strings.Cut(fields[0], "-")
			l, err1 := strconv.ParseUint(lo, 16, 64)
			h, err2 := strconv.ParseUint(hi, 16, 64)
			inside = err1 == nil && err2 == nil && l <= addr && addr < h
			continue
		}
		if inside && strings.HasPrefix(line, "VmFlags:") {
			if !strings.Contains(" "+strings.TrimPrefix(line, "VmFlags:")+" ", " hg ") {
				t.Errorf("the mapping holding the buffer is not advised for huge pages: %s", line)
			}
			runtime.KeepAlive(b)
			return
		}
	}
	t.Fatalf("no mapping in /proc/self/smaps holds %#x", addr)
}
