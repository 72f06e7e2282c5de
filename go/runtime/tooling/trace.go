package tooling

import (
	"fmt"
	"io"

	"github.com/gree-ml/gree/go/runtime/hal/timeline"
)

// FinishTrace writes the timeline that --trace_output recorded, if any,
// and returns the tool's exit code: code, or 1 when writing the trace
// failed on a run that had succeeded. The tools call it on every exit
// after their flags are parsed, errors included.
func FinishTrace(code int, stderr io.Writer) int {
	if err := timeline.Finish(); err != nil {
		fmt.Fprintf(stderr, "--trace_output: %v\n", err)
		if code == 0 {
			return 1
		}
	}
	return code
}
