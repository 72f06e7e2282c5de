package status

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
)

// DebugEnv names the environment variable that, when set (GREE_DEBUG=1),
// makes FromPanic print the panicking goroutine's stack to stderr.
const DebugEnv = "GREE_DEBUG"

// debugOut is where FromPanic writes stacks (tests replace it).
var debugOut io.Writer = os.Stderr

// FromPanic returns the INTERNAL error a panic p recovered in what ("the
// compiler", "calling module.fn", …) becomes: one line naming what failed
// and asking for a report. Call it in the deferred function that
// recovered p: with GREE_DEBUG set, it writes the goroutine's stack, which
// still holds the panic's frames there, to stderr.
func FromPanic(p any, what string) error {
	if os.Getenv(DebugEnv) != "" {
		fmt.Fprintf(debugOut, "gree: panic in %s: %v\n%s", what, p, debug.Stack())
	}
	msg := strings.ReplaceAll(fmt.Sprint(p), "\n", " ")
	hint := "set " + DebugEnv + "=1 for the stack trace"
	return Errorf(Internal, "gree internal error in %s (please report it): %s (%s)", what, msg, hint)
}
