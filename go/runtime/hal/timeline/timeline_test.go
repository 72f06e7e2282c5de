package timeline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/gree-ml/gree/go/status"
)

type traceFile struct {
	DisplayTimeUnit string      `json:"displayTimeUnit"`
	TraceEvents     []jsonEvent `json:"traceEvents"`
	OtherData       struct {
		DroppedEvents int64 `json:"dropped_events"`
	} `json:"otherData"`
}

func decode(t *testing.T, r *Recorder) traceFile {
	t.Helper()
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var f traceFile
	dec := json.NewDecoder(&buf)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		t.Fatalf("the trace is not valid JSON: %v\n%s", err, buf.String())
	}
	if f.DisplayTimeUnit != "ms" {
		t.Errorf("displayTimeUnit = %q", f.DisplayTimeUnit)
	}
	return f
}

// names maps (pid, tid) to "process/thread" from the metadata events.
func names(f traceFile) map[[2]int]string {
	procs, out := map[int]string{}, map[[2]int]string{}
	for _, e := range f.TraceEvents {
		if e.Ph == "M" && e.Name == "process_name" {
			procs[e.Pid] = e.Args["name"].(string)
		}
	}
	for _, e := range f.TraceEvents {
		if e.Ph == "M" && e.Name == "thread_name" {
			out[[2]int{e.Pid, e.Tid}] = procs[e.Pid] + "/" + e.Args["name"].(string)
		}
	}
	return out
}

func TestOffIsNil(t *testing.T) {
	Stop()
	if Active() != nil {
		t.Fatal("a recorder is active without Start")
	}
	// Every entry point is a no-op on nil.
	var r *Recorder
	sp := r.Begin(Track{Key: 1, Device: "d", Queue: "q"}, CatQueue, "x")
	sp.Begin(CatDispatch, "y").End()
	sp.End()
	r.HostEvent(HostTrack("w"), CatWait, "w", time.Now(), time.Now())
	r.DeviceEvent(HostTrack("w"), r.Clock(HostTrack("w")), CatWait, "w", 0, 1)
}

func TestTracksNestingAndOrder(t *testing.T) {
	r := newRecorder("")
	devA, devB := Track{Key: new(int), Device: "local-task", Queue: "queue 0"}, Track{Key: new(int), Device: "local-task", Queue: "queue 0"}
	ex := r.Begin(devA, CatQueue, "execute")
	d1 := ex.Begin(CatDispatch, "main$async_dispatch_0")
	time.Sleep(time.Millisecond)
	d1.End(Int("workgroups", 4), Int("binding_bytes", 64))
	f2 := ex.Begin(CatTransfer, "fill")
	f2.End(Int("bytes", 16))
	// Overlapping work on the same queue takes a second lane.
	other := r.Begin(devA, CatQueue, "host call")
	ex.End(Int("commands", 2))
	other.End()
	r.Begin(devB, CatQueue, "execute").End()
	f := decode(t, r)

	threads := names(f)
	want := map[string]bool{"local-task/queue 0": true, "local-task/queue 0 #2": true, "local-task (2)/queue 0": true}
	got := map[string]bool{}
	for _, n := range threads {
		got[n] = true
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("threads %v, want %v", got, want)
	}
	byName := map[string]jsonEvent{}
	var last float64
	seenX := false
	for _, e := range f.TraceEvents {
		if e.Ph == "M" {
			if seenX {
				t.Errorf("metadata event %q after a complete event", e.Name)
			}
			continue
		}
		seenX = true
		if e.Ph != "X" || e.Dur == nil || *e.Dur < 0 || e.Ts < last {
			t.Errorf("event %+v: not a complete event in start order", e)
		}
		last = e.Ts
		byName[e.Name+"@"+threads[[2]int{e.Pid, e.Tid}]] = e
	}
	exe := byName["execute@local-task/queue 0"]
	disp := byName["main$async_dispatch_0@local-task/queue 0"]
	fill := byName["fill@local-task/queue 0"]
	if exe.Dur == nil || disp.Dur == nil || fill.Dur == nil || byName["host call@local-task/queue 0 #2"].Dur == nil || byName["execute@local-task (2)/queue 0"].Dur == nil {
		t.Fatalf("events missing: %v", byName)
	}
	if disp.Ts < exe.Ts || disp.Ts+*disp.Dur > exe.Ts+*exe.Dur || fill.Ts < disp.Ts+*disp.Dur {
		t.Errorf("children not nested in order: execute %v+%v, dispatch %v+%v, fill %v", exe.Ts, *exe.Dur, disp.Ts, *disp.Dur, fill.Ts)
	}
	if *disp.Dur < 900 {
		t.Errorf("dispatch lasted %vµs, slept 1ms", *disp.Dur)
	}
	if disp.Args["workgroups"] != float64(4) || disp.Cat != CatDispatch || exe.Args["commands"] != float64(2) {
		t.Errorf("args: dispatch %v (%s), execute %v", disp.Args, disp.Cat, exe.Args)
	}
	// A freed lane is reused: the next span on devA goes to lane 1 again.
	n := len(names(decode(t, r)))
	r.Begin(devA, CatQueue, "again").End()
	if got := len(names(decode(t, r))); got != n {
		t.Errorf("a free lane was not reused: %d threads, then %d", n, got)
	}
}

func TestDeviceClock(t *testing.T) {
	r := newRecorder("")
	tr := Track{Key: "gpu", Device: "vulkan", Queue: "queue 0"}
	c := r.Clock(tr)
	if c != r.Clock(tr) {
		t.Fatal("one device has two clocks")
	}
	submit := r.base.Add(10 * time.Millisecond)
	done := submit.Add(5 * time.Millisecond)
	const dev0 = 1e12 // device ns, on an unrelated epoch
	r.Observe(c, submit, done, dev0+1e6, dev0+3e6)
	r.DeviceEvent(tr, c, CatDispatch, "k", dev0+1e6, dev0+3e6, Int("workgroups", 1))
	f := decode(t, r)
	for _, e := range f.TraceEvents {
		if e.Name == "k" {
			// Placed at the submit time (the tightest causal bound), 2 ms long.
			if e.Ts != 10000 || *e.Dur != 2000 {
				t.Errorf("device event at %vµs for %vµs, want 10000 for 2000", e.Ts, *e.Dur)
			}
			return
		}
	}
	t.Fatal("device event missing")
}

func TestConcurrent(t *testing.T) {
	r := newRecorder("")
	const goroutines, each = 8, 200
	var wg sync.WaitGroup
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			tr := Track{Key: g % 2, Device: fmt.Sprintf("dev%d", g%2), Queue: "queue 0"}
			for i := 0; i < each; i++ {
				sp := r.Begin(tr, CatQueue, "execute")
				sp.Begin(CatDispatch, "d").End(Int("i", int64(i)))
				sp.End()
			}
		}(g)
	}
	wg.Wait()
	f := decode(t, r)
	count := 0
	type lane struct{ pid, tid int }
	spans := map[lane][][2]float64{}
	for _, e := range f.TraceEvents {
		if e.Ph == "X" {
			count++
			if e.Name == "execute" {
				spans[lane{e.Pid, e.Tid}] = append(spans[lane{e.Pid, e.Tid}], [2]float64{e.Ts, e.Ts + *e.Dur})
			}
		}
	}
	if count != 2*goroutines*each {
		t.Fatalf("%d events, want %d", count, 2*goroutines*each)
	}
	// Queue operations on one lane never overlap (they are sorted by start).
	for l, s := range spans {
		for i := 1; i < len(s); i++ {
			if s[i][0] < s[i-1][1]-0.001 {
				t.Fatalf("lane %v: execute at %v overlaps the one ending at %v", l, s[i][0], s[i-1][1])
			}
		}
	}
}

func TestStartFinish(t *testing.T) {
	Stop()
	path := filepath.Join(t.TempDir(), "run.json")
	if err := Start(path); err != nil {
		t.Fatal(err)
	}
	if err := Start(path); status.CodeOf(err) != status.FailedPrecondition {
		t.Errorf("a second Start: %v, want FAILED_PRECONDITION", err)
	}
	Active().Begin(HostTrack("host waits"), CatWait, "semaphore wait").End(Int("value", 1))
	if err := Finish(); err != nil {
		t.Fatal(err)
	}
	if Active() != nil {
		t.Error("still active after Finish")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f traceFile
	if err := json.Unmarshal(data, &f); err != nil || len(f.TraceEvents) != 3 {
		t.Errorf("trace file: %v, %d events:\n%s", err, len(f.TraceEvents), data)
	}
	if err := Start(filepath.Join(t.TempDir(), "no", "such", "dir.json")); status.CodeOf(err) != status.NotFound || Active() != nil {
		t.Errorf("Start into a missing directory: %v", err)
	}
	if err := Finish(); err != nil {
		t.Errorf("Finish with nothing recorded: %v", err)
	}
}

func TestDroppedPastMax(t *testing.T) {
	defer func(n int) { maxEvents = n }(maxEvents)
	maxEvents = 10
	r := newRecorder("")
	tr := Track{Key: 1, Device: "local-sync", Queue: "queue 0"}
	for i := 0; i < 20; i++ {
		r.Begin(tr, CatQueue, "execute").End()
	}
	f := decode(t, r)
	// Two metadata events and eight complete ones are kept.
	if len(f.TraceEvents) != 10 || f.OtherData.DroppedEvents != 12 {
		t.Errorf("%d events kept, %d dropped; want 10 and 12", len(f.TraceEvents), f.OtherData.DroppedEvents)
	}
}

func TestHostEventsOverlapTakeLanes(t *testing.T) {
	r := newRecorder("")
	tr := Track{Key: 1, Device: "cuda", Queue: "queue 0 (host submit→complete)"}
	at := func(ms int) time.Time { return r.base.Add(time.Duration(ms) * time.Millisecond) }
	r.HostEvent(tr, CatQueue, "a", at(1), at(5))
	r.HostEvent(tr, CatQueue, "b", at(2), at(6)) // overlaps a: a second lane
	r.HostEvent(tr, CatQueue, "c", at(7), at(8)) // after both: the first lane
	f := decode(t, r)
	threads := names(f)
	lane := map[string]string{}
	for _, e := range f.TraceEvents {
		if e.Ph == "X" {
			lane[e.Name] = threads[[2]int{e.Pid, e.Tid}]
		}
	}
	first, second := "cuda/queue 0 (host submit→complete)", "cuda/queue 0 (host submit→complete) #2"
	if lane["a"] != first || lane["b"] != second || lane["c"] != first {
		t.Errorf("lanes %v", lane)
	}
}
