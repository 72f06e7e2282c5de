package hugepage

import "golang.org/x/sys/unix"

// advise asks the kernel to back b, whole huge pages, with huge pages.
// Failure (a kernel without THP) leaves ordinary pages.
func advise(b []byte) { _ = unix.Madvise(b, unix.MADV_HUGEPAGE) }
