package localtask

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/runtime/hal/cts"
	"github.com/gree-ml/gree/go/runtime/hal/timeline"
)

// TestConformanceTraced runs the conformance suite while a timeline is
// recorded: tracing changes no result, and the suite's dispatches,
// transfers and waits are in the trace.
func TestConformanceTraced(t *testing.T) {
	timeline.Stop()
	if err := timeline.Start(""); err != nil {
		t.Fatal(err)
	}
	cts.Run(t, Factory)
	r := timeline.Stop()
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"cat":"dispatch"`, `"name":"fill"`, `"name":"copy"`, `"name":"update"`, `"cat":"wait"`, `"name":"host call"`, `"name":"queue alloca"`, `"name":"queue dealloca"`} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("the trace has no %s event", want)
		}
	}
}
