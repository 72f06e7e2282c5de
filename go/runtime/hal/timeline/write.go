package timeline

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/gree-ml/gree/go/status"
)

// jsonEvent is an event as Chrome's trace-event format spells it.
type jsonEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"`
	Dur  *float64       `json:"dur,omitempty"`
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	Args map[string]any `json:"args,omitempty"`
}

// jsonEvents returns the recorded events as written: metadata first, then by
// start time.
func (r *Recorder) jsonEvents() []jsonEvent {
	r.mu.Lock()
	out := make([]jsonEvent, 0, len(r.events))
	for _, e := range r.events {
		j := jsonEvent{Name: e.name, Cat: e.cat, Ph: string(e.ph), Ts: e.ts, Pid: e.pid, Tid: e.tid}
		if e.ph == 'X' {
			dur := e.dur
			if e.clock != nil {
				j.Ts, dur = (e.ts+e.clock.offset())/1e3, dur/1e3
			}
			j.Dur = &dur
		}
		if len(e.args) > 0 {
			j.Args = make(map[string]any, len(e.args))
			for _, a := range e.args {
				j.Args[a.Key] = a.Value
			}
		}
		out = append(out, j)
	}
	r.mu.Unlock()
	sort.SliceStable(out, func(i, k int) bool {
		mi, mk := out[i].Ph == "M", out[k].Ph == "M"
		if mi != mk {
			return mi
		}
		return out[i].Ts < out[k].Ts
	})
	return out
}

// WriteJSON writes the recording as Chrome trace-event JSON.
func (r *Recorder) WriteJSON(w io.Writer) error {
	bw := bufio.NewWriter(w)
	events := r.jsonEvents()
	r.mu.Lock()
	dropped := r.dropped
	r.mu.Unlock()
	fmt.Fprintf(bw, `{"displayTimeUnit":"ms","otherData":{"dropped_events":%d},"traceEvents":[`, dropped)
	for i, e := range events {
		if i > 0 {
			bw.WriteString(",")
		}
		bw.WriteString("\n")
		b, err := json.Marshal(e)
		if err != nil {
			return status.Errorf(status.Internal, "timeline: encoding event %q: %v", e.Name, err)
		}
		bw.Write(b)
	}
	bw.WriteString("\n]}\n")
	return bw.Flush()
}

// WriteFile writes the recording to path.
func (r *Recorder) WriteFile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return status.Errorf(status.PermissionDenied, "writing the trace: %v", err)
	}
	if err := r.WriteJSON(f); err != nil {
		f.Close()
		return status.Errorf(status.DataLoss, "writing the trace %s: %v", path, err)
	}
	if err := f.Close(); err != nil {
		return status.Errorf(status.DataLoss, "writing the trace %s: %v", path, err)
	}
	return nil
}
