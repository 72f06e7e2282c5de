//go:build !linux

package hal

import "github.com/gree-ml/gree/go/internal/hugepage"

// mapAnonymous takes the memory from the Go heap where gree does not map
// memory itself; freeing it leaves it to the garbage collector.
func mapAnonymous(n int64) ([]byte, func(), error) { return hugepage.Alloc(int(n)), func() {}, nil }

// availableMemory is unknown here.
func availableMemory() (int64, bool) { return 0, false }
