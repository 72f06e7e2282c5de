package vmvx

import (
	"fmt"
	"unsafe"

	"github.com/gree-ml/gree/go/schemas/vmvx"
	"github.com/gree-ml/gree/go/status"
)

// State is the per-goroutine execution state: register frames and
// workgroup memory, grown on demand and reused by every workgroup run with
// it, so that running workgroups allocates nothing in steady state. A
// State may be used with any entry of any Executable, by one goroutine at
// a time.
type State struct {
	mem     []uint64
	threads []thread
	shared  [][]byte
	run     runCtx
	gather  [vmvx.MaxSubgroupSize]uint64
}

// NewState returns an empty State.
func NewState() *State { return &State{} }

// setup sizes st for p and points the threads at their frames.
func (st *State) setup(p *program) {
	words := p.frameBytes / 8
	if need := max(1, words*p.threads); len(st.mem) < need {
		st.mem = make([]uint64, need)
	}
	if len(st.threads) < p.threads {
		st.threads = make([]thread, p.threads)
	}
	ws := p.ws
	for i := range p.threads {
		t := &st.threads[i]
		l := int64(i)
		*t = thread{
			p:      unsafe.Pointer(&st.mem[i*words]),
			run:    &st.run,
			linear: l,
			tid:    [3]int64{l % ws[0], l / ws[0] % ws[1], l / (ws[0] * ws[1])},
		}
	}
	for len(st.shared) < len(p.entry.Shared) {
		st.shared = append(st.shared, nil)
	}
	for i, s := range p.entry.Shared {
		n := int(s.Count) * s.Elem.ByteSize()
		if cap(st.shared[i]) >= n {
			st.shared[i] = st.shared[i][:n]
			clear(st.shared[i])
		} else {
			st.shared[i] = make([]byte, n)
		}
	}
}

// RunWorkgroup runs workgroup wgID of a dispatch of entry over a grid of
// wgCount workgroups. bindings are the entry's buffers in ordinal order
// (little-endian elements); workgroups of one dispatch may run concurrently
// on different goroutines, each with its own State, sharing bindings as
// long as they write disjoint parts. Out-of-bounds accesses are
// OUT_OF_RANGE errors naming the entry, instruction, binding and offset;
// RunWorkgroup does not panic on any verified executable.
//
// Workgroups of several threads run their threads in turn on this
// goroutine: each runs until it reaches a barrier or subgroup operation;
// when every thread of a subgroup waits at the same subgroup operation it
// is performed, and when every thread waits at a barrier they all go on.
// A barrier or subgroup operation not every thread of its group reaches is
// a FAILED_PRECONDITION error.
func (x *Executable) RunWorkgroup(st *State, entry int, wgID, wgCount [3]int64, pushConstants []int64, bindings [][]byte) (err error) {
	if entry < 0 || entry >= len(x.progs) {
		return status.Errorf(status.InvalidArgument, "vmvx: entry %d of %d", entry, len(x.progs))
	}
	p := x.progs[entry]
	if len(pushConstants) < int(p.entry.NumPushConstants) {
		return status.Errorf(status.InvalidArgument, "vmvx: entry %q needs %d push constants, got %d", p.entry.Name, p.entry.NumPushConstants, len(pushConstants))
	}
	if len(bindings) != len(p.entry.Bindings) {
		return status.Errorf(status.InvalidArgument, "vmvx: entry %q has %d bindings, got %d", p.entry.Name, len(p.entry.Bindings), len(bindings))
	}
	defer func() {
		if r := recover(); r != nil {
			err = status.Errorf(status.Internal, "vmvx: entry %q workgroup %v: internal error: %v", p.entry.Name, wgID, r)
		}
	}()
	st.setup(p)
	st.run = runCtx{prog: p, wg: wgID, count: wgCount, pcs: pushConstants, bindings: bindings, shared: st.shared[:len(p.entry.Shared)], single: p.threads == 1}
	if p.threads == 1 {
		_, err = st.threads[0].exec()
	} else {
		err = st.runThreads(p)
	}
	st.run = runCtx{} // do not keep the caller's buffers alive
	if err != nil {
		return fmt.Errorf("workgroup (%d, %d, %d): %w", wgID[0], wgID[1], wgID[2], err)
	}
	return nil
}
