package hal

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gree-ml/gree/go/internal/hugepage"
	"github.com/gree-ml/gree/go/status"
)

// Host memory. Every host allocation whose size comes from data (a HAL
// buffer, a tensor parsed from --input text or a file, a module file)
// goes through AllocHost, which can fail: the Go heap cannot (an
// allocation it cannot satisfy ends the process with "fatal error: out
// of memory"), so sizes are checked before anything is allocated, and
// large allocations are not taken from the Go heap at all.
//
//   - A size over maxBufferBytes (1 TiB), over what GREE_MEMORY_LIMIT
//     still allows, or (for MapThreshold bytes and more) over the memory
//     the machine has available (MemAvailable plus free swap) is
//     RESOURCE_EXHAUSTED, naming the size and what it was for.
//   - Allocations of MapThreshold bytes and more are anonymous private
//     mappings (mmap): the kernel's refusal (ENOMEM) is RESOURCE_EXHAUSTED
//     too, and the memory goes back to the system (munmap) the moment the
//     allocation is freed, not at a garbage collection.
//   - Smaller allocations come from the Go heap (see hugepage.Alloc).

// MapThreshold is the size from which host allocations are mappings of
// their own rather than Go heap memory.
const MapThreshold = 1 << 20

// MemoryLimitEnv names the environment variable that bounds the host
// memory gree's allocations hold at once, in bytes or with a suffix K, M,
// G or T (powers of 1024, "MiB" and "GB" spellings accepted): an
// allocation that would go over it is RESOURCE_EXHAUSTED. Unset or 0: no
// limit besides the machine's.
const MemoryLimitEnv = "GREE_MEMORY_LIMIT"

var (
	// hostLive counts the bytes AllocHost handed out and not yet freed.
	hostLive  atomic.Int64
	limitOnce sync.Once
	limit     atomic.Int64 // read from the environment on first use
)

// SetMemoryLimit sets the bound GREE_MEMORY_LIMIT sets (0: none) and
// returns the previous one.
func SetMemoryLimit(n int64) int64 {
	old := MemoryLimit()
	limit.Store(max(n, 0))
	return old
}

// MemoryLimit returns the bound on the host memory gree's allocations hold
// at once (0: none).
func MemoryLimit() int64 {
	limitOnce.Do(func() {
		n, err := ParseByteSize(os.Getenv(MemoryLimitEnv))
		if err != nil {
			fmt.Fprintf(os.Stderr, "gree: ignoring %s: %v\n", MemoryLimitEnv, err)
			n = 0
		}
		limit.CompareAndSwap(0, n)
	})
	return limit.Load()
}

// HostBytesLive returns the bytes of host memory AllocHost handed out that
// are not yet freed.
func HostBytesLive() int64 { return hostLive.Load() }

// ParseByteSize parses a byte count: digits, optionally followed by K, M,
// G or T (powers of 1024; "KiB", "KB" and lower case mean the same). ""
// is 0.
func ParseByteSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	u := strings.ToUpper(s)
	u = strings.TrimSuffix(strings.TrimSuffix(u, "B"), "I")
	shift := 0
	if u == "" {
		u = "x" // "B" alone: not a count
	}
	if k := strings.IndexByte("KMGT", u[len(u)-1]); k >= 0 {
		shift = 10 * (k + 1)
		u = u[:len(u)-1]
	}
	n, err := strconv.ParseInt(strings.TrimSpace(u), 10, 64)
	if err != nil || n < 0 || n > (1<<62)>>shift {
		return 0, status.Errorf(status.InvalidArgument, "%q is not a byte count (digits and an optional K, M, G or T)", s)
	}
	return n << shift, nil
}

// FormatBytes spells n as a byte count with its binary-unit value, for
// messages: "4398046511104 bytes (4 TiB)".
func FormatBytes(n int64) string {
	units := []string{"KiB", "MiB", "GiB", "TiB", "PiB"}
	if n < 1<<10 {
		return fmt.Sprintf("%d bytes", n)
	}
	v, u := float64(n)/1024, 0
	for v >= 1024 && u < len(units)-1 {
		v, u = v/1024, u+1
	}
	return fmt.Sprintf("%d bytes (%.4g %s)", n, v, units[u])
}

// CheckHostAllocation returns the error an allocation of n bytes of host
// memory for what would fail with, or nil: RESOURCE_EXHAUSTED when n is
// over maxBufferBytes, over what the memory limit still allows, or (for
// MapThreshold bytes and more) over the memory the machine has available;
// INVALID_ARGUMENT when n is negative. It allocates nothing.
func CheckHostAllocation(n int64, what string) error {
	return checkHost(n, func() string { return what })
}

// checkHost is CheckHostAllocation with the phrase made only for an error.
func checkHost(n int64, phrase func() string) error {
	switch {
	case n < 0:
		return status.Errorf(status.InvalidArgument, "cannot allocate %d bytes for %s: the size is negative", n, phrase())
	case n > maxBufferBytes:
		return status.Errorf(status.ResourceExhausted, "cannot allocate %s for %s: gree allocates at most %s per buffer", FormatBytes(n), phrase(), FormatBytes(maxBufferBytes))
	}
	if lim := MemoryLimit(); lim > 0 {
		if live := hostLive.Load(); n > lim-live {
			return status.Errorf(status.ResourceExhausted, "cannot allocate %s for %s: %s=%d allows %s more (%s in use)", FormatBytes(n), phrase(), MemoryLimitEnv, lim, FormatBytes(max(lim-live, 0)), FormatBytes(live))
		}
	}
	if n >= MapThreshold {
		if avail, ok := availableMemory(); ok && n > avail {
			return status.Errorf(status.ResourceExhausted, "cannot allocate %s for %s: the machine has %s available (MemAvailable plus free swap)", FormatBytes(n), phrase(), FormatBytes(avail))
		}
	}
	return nil
}

// AllocHost returns n zeroed bytes of host memory for what (a phrase for
// error messages: "a 4x8xf32 tensor") and the function that frees them,
// which must be called exactly once and after which the bytes must not be
// used. Failure (see CheckHostAllocation, and a mapping the kernel
// refuses) is an error; the process never runs out of memory here.
func AllocHost(n int64, what string) ([]byte, func(), error) {
	return allocHost(n, func() string { return what })
}

// allocHost is AllocHost with the phrase made only for an error (a
// buffer allocated per dispatch does not pay for formatting it).
func allocHost(n int64, phrase func() string) ([]byte, func(), error) {
	if err := checkHost(n, phrase); err != nil {
		return nil, nil, err
	}
	if n < MapThreshold {
		hostLive.Add(n)
		return hugepage.Alloc(int(n)), func() { hostLive.Add(-n) }, nil
	}
	b, unmap, err := mapAnonymous(n)
	if err != nil {
		return nil, nil, status.Errorf(status.ResourceExhausted, "cannot allocate %s for %s: the system refused the mapping: %v", FormatBytes(n), phrase(), err)
	}
	hostLive.Add(n)
	return b, func() { hostLive.Add(-n); unmap() }, nil
}

// newHostStorage returns storage of n zeroed bytes (see AllocHost) whose
// Free reports to freed, when not nil.
func newHostStorage(n int64, phrase func() string, freed func(int64)) (*hostStorage, error) {
	b, free, err := allocHost(n, phrase)
	if err != nil {
		return nil, err
	}
	return &hostStorage{b: b, freed: freed, release: free}, nil
}
