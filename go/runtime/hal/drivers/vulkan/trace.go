package vulkan

import (
	"math"
	"time"
	"unsafe"

	"github.com/gree-ml/gree/go/runtime/hal"
	tl "github.com/gree-ml/gree/go/runtime/hal/timeline"
)

// The --trace_output timeline (package timeline). While a trace is
// recorded, a submission with commands writes a timestamp before and
// after each command (vkCmdWriteTimestamp into a query pool of its own);
// when it completes, the completer reads them, converts them to
// nanoseconds with the device's timestampPeriod and records each command
// as an event timed by the device on the thread "queue 0", mapped onto
// the host timeline by the submission's host submit and completion
// times. Every submission is also recorded as the host saw it, from
// vkQueueSubmit to the completer seeing its fence, on "queue 0 (host
// submit→complete)": the only timing on a device without timestamps.

// queryPoolCreateInfo is VkQueryPoolCreateInfo (32 bytes).
type queryPoolCreateInfo struct {
	sType              uint32
	pNext              unsafe.Pointer
	flags              uint32
	queryType          uint32
	queryCount         uint32
	pipelineStatistics uint32
}

const (
	sTypeQueryPoolCreateInfo = 11
	queryTypeTimestamp       = 2
	queryResult64Wait        = 0x1 | 0x2 // VK_QUERY_RESULT_64_BIT | WAIT_BIT
	stageTopOfPipe           = 0x1
	stageBottomOfPipe        = 0x2000
)

// timestamps is what a device needs to read its queue's timestamps.
type timestamps struct {
	period float64 // nanoseconds per tick; 0: no timestamps
	mask   uint64  // the valid bits
}

// initTimestamps enables timestamps when the queue family has them and
// the device gave the query commands.
func (v *device) initTimestamps(period float32, validBits uint32) {
	f := &v.vk
	if period <= 0 || validBits == 0 || f.CreateQueryPool == nil || f.DestroyQueryPool == nil ||
		f.CmdResetQueryPool == nil || f.CmdWriteTimestamp == nil || f.GetQueryPoolResults == nil {
		return
	}
	v.ts = timestamps{period: float64(period), mask: math.MaxUint64}
	if validBits < 64 {
		v.ts.mask = 1<<validBits - 1
	}
}

// submissionTrace is a traced submission's state.
type submissionTrace struct {
	rec       *tl.Recorder
	pool      uint64 // the timestamp query pool; 0: none
	submitted time.Time
}

// track is where the device's queue work goes on the timeline.
func (v *device) track(queue string) tl.Track { return hal.DeviceTrack(v, queue) }

// beginTimestamps creates the submission's query pool and resets it in
// cb, when a trace is recorded and the device has timestamps.
func (s *submission) beginTimestamps(cb uintptr) {
	d := s.d
	s.trace.rec = tl.Active()
	if s.trace.rec == nil || d.ts.period == 0 || len(s.ops) == 0 {
		return
	}
	n := uint32(2 * len(s.ops))
	info := &queryPoolCreateInfo{sType: sTypeQueryPoolCreateInfo, queryType: queryTypeTimestamp, queryCount: n}
	if d.vk.CreateQueryPool(d.handle, info, nil, &s.trace.pool) != 0 {
		s.trace.pool = 0
		return
	}
	d.vk.CmdResetQueryPool(cb, s.trace.pool, 0, n)
}

// stamp writes timestamp query q at stage in cb, when the submission
// has a query pool.
func (s *submission) stamp(cb uintptr, stage uint32, q int) {
	if s.trace.pool != 0 {
		s.d.vk.CmdWriteTimestamp(cb, stage, s.trace.pool, uint32(q))
	}
}

// endTrace drops the query pool (record failed, or the submission is done).
func (s *submission) endTrace() {
	if s.trace.pool != 0 {
		s.d.vk.DestroyQueryPool(s.d.handle, s.trace.pool, nil)
		s.trace.pool = 0
	}
}

// traceDone records the completed submission (before it is released):
// done is when the completer saw its fence.
func (s *submission) traceDone(done time.Time) {
	r := s.trace.rec
	if r == nil {
		return
	}
	defer s.endTrace()
	d := s.d
	r.HostEvent(d.track("queue 0 (host submit→complete)"), tl.CatQueue, "submission", s.trace.submitted, done,
		tl.Int("commands", int64(len(s.ops))), tl.Str("clock", "host"))
	if s.trace.pool == 0 {
		return
	}
	ticks := make([]uint64, 2*len(s.ops))
	if d.vk.GetQueryPoolResults(d.handle, s.trace.pool, 0, uint32(len(ticks)), uintptr(8*len(ticks)), unsafe.Pointer(&ticks[0]), 8, queryResult64Wait) != 0 {
		return
	}
	ns := func(i int) float64 { return float64(ticks[i]&d.ts.mask) * d.ts.period }
	c := r.Clock(d.track("queue 0"))
	r.Observe(c, s.trace.submitted, done, ns(0), ns(len(ticks)-1))
	for i := range s.ops {
		o := &s.ops[i]
		name, cat, args := describeOp(o)
		args = append(args, tl.Str("clock", "device"))
		r.DeviceEvent(d.track("queue 0"), c, cat, name, ns(2*i), max(ns(2*i+1), ns(2*i)), args...)
	}
}

// describeOp names a command for the timeline, with its size in args.
func describeOp(o *op) (name, cat string, args []tl.Arg) {
	var bytes int64
	for _, b := range o.bindings {
		bytes += b.n
	}
	return hal.RecordedCommandTrace(o.kind, func() string { return o.exe.EntryName(o.entry) }, o.target.n, o.grid, len(o.bindings), bytes)
}
