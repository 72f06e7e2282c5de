package hal

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/gree-ml/gree/go/internal/hugepage"
)

// mapAnonymous maps n zeroed bytes of anonymous private memory and
// returns them with the function that unmaps them. Mappings of a huge page
// or more start on a huge-page boundary and are advised for huge pages
// (see hugepage): the mapping is made a huge page longer, and the excess
// at each end is unmapped at once.
func mapAnonymous(n int64) ([]byte, func(), error) {
	const page = 4096
	length := uintptr(n+page-1) &^ (page - 1)
	extra := uintptr(0)
	if n >= hugepage.Size {
		extra = hugepage.Size
	}
	p, err := unix.MmapPtr(-1, 0, nil, length+extra, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, nil, err
	}
	if extra != 0 {
		head := (hugepage.Size - uintptr(p)%hugepage.Size) % hugepage.Size
		if head != 0 {
			unix.MunmapPtr(p, head)
		}
		if tail := extra - head; tail != 0 {
			unix.MunmapPtr(unsafe.Add(p, head+length), tail)
		}
		p = unsafe.Add(p, head)
		_ = unix.Madvise(unsafe.Slice((*byte)(p), length), unix.MADV_HUGEPAGE)
	}
	b := unsafe.Slice((*byte)(p), int(n))
	return b, func() { unix.MunmapPtr(p, length) }, nil
}

// availableMemory returns the memory the machine can still give (its
// MemAvailable plus free swap, from /proc/meminfo), or false when unknown.
func availableMemory() (int64, bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	var avail, swap int64
	found := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		key, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || (key != "MemAvailable" && key != "SwapFree") {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		if err != nil {
			continue
		}
		if key == "MemAvailable" {
			avail, found = kb<<10, true
		} else {
			swap = kb << 10
		}
	}
	return avail + swap, found
}
