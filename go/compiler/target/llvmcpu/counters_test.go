package llvmcpu_test

import (
	"testing"

	"github.com/gree-ml/gree/go/compiler/target/targettest"
)

// TestCounters runs workgroups that share tickets through FetchAdd and
// wait for each other with SpinUntil (targettest.Tickets): one after
// another in one call, and each on its own goroutine, the marks in
// ticket order and the counters at the interpreter's values either way.
func TestCounters(t *testing.T) {
	const n = 400
	diff(t, targettest.Tickets(), [3]int64{3, 1, 1}, []int64{n}, [][]byte{make([]byte, 4*32), make([]byte, 4*n*targettest.TicketRow)}, 0)
}
