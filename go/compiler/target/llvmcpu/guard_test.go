package llvmcpu_test

import (
	"testing"

	"golang.org/x/sys/unix"
)

// guardedCopy returns a copy of b in memory that has an inaccessible page
// right before it (atEnd false) or right after it (atEnd true), so that a
// kernel reading or writing past that edge of a binding faults instead of
// touching a neighbour; the memory is unmapped when the test ends.
func guardedCopy(t *testing.T, b []byte, atEnd bool) []byte {
	t.Helper()
	page := unix.Getpagesize()
	n := (len(b) + page - 1) / page * page
	mem, err := unix.Mmap(-1, 0, n+2*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Munmap(mem) })
	if err := unix.Mprotect(mem[:page], unix.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mprotect(mem[page+n:], unix.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	start := page
	if atEnd {
		start = page + n - len(b)
	}
	out := mem[start : start+len(b) : start+len(b)]
	copy(out, b)
	return out
}

// guardedBindings copies every binding next to a guard page: all at their
// starts, or all at their ends.
func guardedBindings(t *testing.T, bufs [][]byte, atEnd bool) [][]byte {
	out := make([][]byte, len(bufs))
	for i, b := range bufs {
		out[i] = guardedCopy(t, b, atEnd)
	}
	return out
}
