package timeline

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gree-ml/gree/go/runtime/flags"
	"github.com/gree-ml/gree/go/status"
)

// Event categories ("cat"): Perfetto and chrome://tracing filter by them.
const (
	CatDispatch = "dispatch"
	CatTransfer = "transfer"
	CatQueue    = "queue"
	CatWait     = "wait"
	CatAlloc    = "alloc"
)

// Arg is one named detail of an event (its "args").
type Arg struct {
	Key   string
	Value any
}

// Int returns an integer Arg.
func Int(key string, v int64) Arg { return Arg{key, v} }

// Str returns a string Arg.
func Str(key, v string) Arg { return Arg{key, v} }

// Track names where events go: Key identifies the device (its pointer, so
// two devices of one driver are two processes), Device names it, Queue
// names the queue (the thread).
type Track struct {
	Key    any
	Device string
	Queue  string
}

// HostTrack is where host-side waits go: the "host" process.
func HostTrack(queue string) Track { return Track{Key: hostKey{}, Device: "host", Queue: queue} }

type hostKey struct{}

// event is one recorded trace event. Events of a device Clock hold device
// nanoseconds in ts and dur until they are written.
type event struct {
	name, cat string
	ph        byte
	pid, tid  int
	ts, dur   float64
	clock     *Clock
	args      []Arg
}

// Recorder collects the events of one recording.
type Recorder struct {
	path string
	base time.Time

	mu     sync.Mutex
	events []event
	procs  map[any]*proc
	names  map[string]int // process names used, for "name (2)"
	ntid   int
	// dropped counts the events past MaxEvents.
	dropped int64
}

type proc struct {
	pid     int
	queues  map[string]*lanes
	clocks  map[any]*Clock
	devName string
}

// lanes are the threads of one queue: lane i is busy while a span holds
// it, and taken until until[i] (µs) by the last event placed on it.
type lanes struct {
	busy  []bool
	until []float64
	tids  []int
}

var active atomic.Pointer[Recorder]

// Active returns the recording in progress, nil when none: instrumented
// code does nothing more when it is nil.
func Active() *Recorder { return active.Load() }

// startMu orders Start and Finish.
var startMu sync.Mutex

// Start begins a recording that Finish writes to path as JSON; an empty
// path records in memory only (Stop returns it). It fails while another
// recording is in progress.
func Start(path string) error {
	startMu.Lock()
	defer startMu.Unlock()
	if r := active.Load(); r != nil {
		return status.Errorf(status.FailedPrecondition, "a trace is already being recorded (to %q); finish it first (gree_trace_end, iree_go.runtime.trace_end)", r.path)
	}
	if path != "" {
		// Fail now, not at the end of a long run, when the file cannot be written.
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			code := status.PermissionDenied
			if os.IsNotExist(err) {
				code = status.NotFound
			}
			return status.Errorf(code, "the trace file cannot be written: %v; name a file in an existing, writable directory", err)
		}
		f.Close()
	}
	active.Store(newRecorder(path))
	return nil
}

func newRecorder(path string) *Recorder {
	return &Recorder{path: path, base: time.Now(), procs: map[any]*proc{}, names: map[string]int{}}
}

// Stop ends the recording in progress and returns it (nil when none)
// without writing it.
func Stop() *Recorder {
	startMu.Lock()
	defer startMu.Unlock()
	return active.Swap(nil)
}

// Finish ends the recording in progress and writes it to its path; it
// does nothing when none is in progress.
func Finish() error {
	r := Stop()
	if r == nil || r.path == "" {
		return nil
	}
	return r.WriteFile(r.path)
}

// Path returns the file the recording is written to ("" for memory only).
func (r *Recorder) Path() string { return r.path }

// since converts a host time to microseconds since the recording began.
func (r *Recorder) since(t time.Time) float64 {
	return float64(t.Sub(r.base).Nanoseconds()) / 1e3
}

// procLocked returns t's process, naming it on first use (r.mu held).
func (r *Recorder) procLocked(t Track) *proc {
	if p := r.procs[t.Key]; p != nil {
		return p
	}
	name := t.Device
	r.names[t.Device]++
	if n := r.names[t.Device]; n > 1 {
		name = fmt.Sprintf("%s (%d)", t.Device, n)
	}
	p := &proc{pid: len(r.procs) + 1, queues: map[string]*lanes{}, clocks: map[any]*Clock{}, devName: name}
	r.procs[t.Key] = p
	r.events = append(r.events, event{ph: 'M', name: "process_name", pid: p.pid, args: []Arg{Str("name", name)}})
	return p
}

// laneLocked takes the first lane of t's queue that is free at time at
// (µs) and returns its process, thread and lane (r.mu held).
func (r *Recorder) laneLocked(t Track, at float64) (pid, tid int, l *lanes, i int) {
	p := r.procLocked(t)
	l = p.queues[t.Queue]
	if l == nil {
		l = &lanes{}
		p.queues[t.Queue] = l
	}
	for i = 0; i < len(l.busy) && (l.busy[i] || l.until[i] > at); i++ {
	}
	if i == len(l.busy) {
		r.ntid++
		name := t.Queue
		if i > 0 {
			name = fmt.Sprintf("%s #%d", t.Queue, i+1)
		}
		l.busy, l.until, l.tids = append(l.busy, false), append(l.until, 0), append(l.tids, r.ntid)
		r.events = append(r.events, event{ph: 'M', name: "thread_name", pid: p.pid, tid: r.ntid, args: []Arg{Str("name", name)}})
	}
	l.busy[i] = true
	return p.pid, l.tids[i], l, i
}

// MaxEvents bounds a recording's memory (about 150 bytes an event): the
// complete events after it are counted, not kept ("dropped_events" in the
// file's otherData).
const MaxEvents = 1 << 22

// maxEvents is MaxEvents (tests lower it).
var maxEvents = MaxEvents

// appendLocked keeps a complete event, or counts it past MaxEvents (r.mu held).
func (r *Recorder) appendLocked(e event) {
	if len(r.events) >= maxEvents {
		r.dropped++
		return
	}
	r.events = append(r.events, e)
}

// Span is an operation in progress on a queue lane; End records it. A nil
// Span (recording off) does nothing.
type Span struct {
	r         *Recorder
	pid, tid  int
	lane      *lanes
	lanei     int
	name, cat string
	start     time.Time
}

// Begin starts an operation on t's first free lane; nil when r is nil.
func (r *Recorder) Begin(t Track, cat, name string) *Span {
	if r == nil {
		return nil
	}
	start := time.Now()
	r.mu.Lock()
	pid, tid, l, i := r.laneLocked(t, r.since(start))
	r.mu.Unlock()
	return &Span{r: r, pid: pid, tid: tid, lane: l, lanei: i, name: name, cat: cat, start: start}
}

// Begin starts an operation inside s, on its lane; nil when s is nil.
func (s *Span) Begin(cat, name string) *Span {
	if s == nil {
		return nil
	}
	return &Span{r: s.r, pid: s.pid, tid: s.tid, name: name, cat: cat, start: time.Now()}
}

// End records s as a complete event with args, and frees its lane.
func (s *Span) End(args ...Arg) {
	if s == nil {
		return
	}
	end := time.Now()
	r := s.r
	r.mu.Lock()
	r.appendLocked(event{ph: 'X', name: s.name, cat: s.cat, pid: s.pid, tid: s.tid,
		ts: r.since(s.start), dur: float64(end.Sub(s.start).Nanoseconds()) / 1e3, args: args})
	if s.lane != nil {
		s.lane.busy[s.lanei] = false
		s.lane.until[s.lanei] = r.since(end)
	}
	r.mu.Unlock()
}

func init() {
	flags.Callback("trace_output", "gree: write a timeline of the devices' work to this file when the program ends:\n"+
		"every dispatch, transfer, fill, copy, queue allocation and wait, per device\n"+
		"(process) and queue (thread), as Chrome trace-event JSON; open it in\n"+
		"ui.perfetto.dev or chrome://tracing.", func(v string) error {
		if v == "" {
			return status.New(status.InvalidArgument, "--trace_output needs a file path: --trace_output=run.json")
		}
		return Start(v)
	})
}
