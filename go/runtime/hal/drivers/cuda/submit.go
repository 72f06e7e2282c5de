package cuda

import (
	"fmt"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/status"
)

// span is a resolved buffer range: off is the byte offset into the
// allocation.
type span struct {
	st  *storage
	off int64
	n   int64
}

// op is one recorded command, resolved for the submission.
type op struct {
	kind     hal.CommandKind
	target   span
	source   span
	pattern  []byte
	data     []byte // an update's bytes
	exe      *executable
	entry    int
	grid     [3]uint32
	push     []int64
	bindings []span

	stagingOff int64 // an update's (or misaligned fill's) bytes in the staging block
	statusIdx  int   // a reporting dispatch's status slot (-1: none)
}

// submission is one queue operation: the commands resolved against the
// binding table (or a stream-ordered allocation), and what it holds until
// it completes.
type submission struct {
	d      *device
	wait   hal.SemaphoreList
	signal hal.SemaphoreList
	cb     *hal.CommandBuffer
	held   []*hal.Buffer
	exes   []*executable
	ops    []op
	alloca *storage // a QueueAlloca's memory

	stagingBytes int64 // staging block size: updates, fills, then status words
	statusCount  int

	// Made when enqueued, freed when finished.
	event   uintptr
	exec    uintptr  // the CUgraphExec of the commands (--cuda_use_streams=false)
	staging []byte   // pinned host memory (pool.go)
	status  devBlock // device memory of the status words
	trace   submissionTrace
}

// newSubmission checks and resolves a QueueExecute request, retaining
// what it uses.
func (v *device) newSubmission(wait, signal hal.SemaphoreList, cb *hal.CommandBuffer, table []hal.BufferRef) (*submission, error) {
	if err := wait.Check("wait"); err != nil {
		return nil, err
	}
	if err := signal.Check("signal"); err != nil {
		return nil, err
	}
	s := &submission{d: v, wait: append(hal.SemaphoreList(nil), wait...), signal: append(hal.SemaphoreList(nil), signal...)}
	if cb == nil {
		return s, nil
	}
	if err := cb.Submit(); err != nil {
		return nil, err
	}
	s.cb = cb
	cmds, err := cb.Commands()
	for i := 0; err == nil && i < len(cmds); i++ {
		err = s.resolve(&cmds[i], table)
	}
	if err != nil {
		s.release()
		return nil, err
	}
	return s, nil
}

// span resolves a buffer reference to a range of this device's memory,
// retaining the buffer for the submission.
func (s *submission) span(r hal.BufferRef, table []hal.BufferRef, what string) (span, error) {
	b, off, n, err := r.Resolve(table)
	if err != nil {
		return span{}, fmt.Errorf("%s: %w", what, err)
	}
	st := s.d.alloc.lookup(b)
	if st == nil {
		return span{}, status.Errorf(status.InvalidArgument, "%s: the buffer (%s) is not memory of %s: a CUDA device uses only its own buffers (copy the data into one of them first)", what, b, s.d.describe())
	}
	if err := b.Retain(); err != nil {
		return span{}, fmt.Errorf("%s: %w", what, err)
	}
	s.held = append(s.held, b)
	return span{st: st, off: b.ByteOffset() + off, n: n}, nil
}

// resolve resolves one command and plans its staging.
func (s *submission) resolve(c *hal.Command, table []hal.BufferRef) error {
	o := op{kind: c.Kind, statusIdx: -1}
	var err error
	switch c.Kind {
	case hal.CommandBarrier:
		return nil // the stream runs commands in order
	case hal.CommandFill:
		o.pattern = c.Pattern
		if o.target, err = s.span(c.Target, table, "fill target"); err != nil {
			return err
		}
		if o.target.off%int64(len(o.pattern)) != 0 { // cuMemsetD16/D32 need aligned targets
			o.stagingOff = s.stage(o.target.n)
		}
	case hal.CommandUpdate:
		o.data = c.Data
		if o.target, err = s.span(c.Target, table, "update target"); err != nil {
			return err
		}
		o.stagingOff = s.stage(int64(len(o.data)))
	case hal.CommandCopy:
		if o.source, err = s.span(c.Source, table, "copy source"); err != nil {
			return err
		}
		if o.target, err = s.span(c.Target, table, "copy target"); err != nil {
			return err
		}
		if o.source.n != o.target.n {
			return status.Errorf(status.InvalidArgument, "copy of %d bytes into %d: the lengths must match", o.source.n, o.target.n)
		}
	case hal.CommandDispatch:
		if err := s.resolveDispatch(&o, c, table); err != nil {
			return err
		}
	}
	s.ops = append(s.ops, o)
	return nil
}

// stage reserves n bytes (8-aligned) of the staging block.
func (s *submission) stage(n int64) int64 {
	off := s.stagingBytes
	s.stagingBytes += (n + 7) &^ 7
	return off
}

// resolveDispatch checks a dispatch against its entry point and the
// device's grid limits.
func (s *submission) resolveDispatch(o *op, c *hal.Command, table []hal.BufferRef) error {
	e, ok := c.Executable.(*executable)
	if !ok || e.d != s.d {
		return status.Errorf(status.InvalidArgument, "dispatch of an executable that %s did not prepare", s.d.describe())
	}
	if c.Entry < 0 || c.Entry >= len(e.entries) {
		return status.Errorf(status.OutOfRange, "dispatch of entry point %d of an executable with %d", c.Entry, len(e.entries))
	}
	ent := &e.entries[c.Entry]
	if len(c.Bindings) != len(ent.Bindings) || len(c.Constants) != ent.NumPushConstants {
		return status.Errorf(status.InvalidArgument, "dispatch of %s with %d bindings and %d push constants; it takes %d and %d",
			ent.Name, len(c.Bindings), len(c.Constants), len(ent.Bindings), ent.NumPushConstants)
	}
	lim := s.d.limits
	for d, n := range c.Workgroups {
		if n > int64(lim.maxGrid[d]) {
			return status.Errorf(status.OutOfRange, "dispatch of %s over %d×%d×%d workgroups: %s launches at most %d×%d×%d",
				ent.Name, c.Workgroups[0], c.Workgroups[1], c.Workgroups[2], s.d.describe(), lim.maxGrid[0], lim.maxGrid[1], lim.maxGrid[2])
		}
		o.grid[d] = uint32(n)
	}
	if err := e.acquire(); err != nil {
		return err
	}
	s.exes = append(s.exes, e)
	o.exe, o.entry, o.push = e, c.Entry, c.Constants
	for i, r := range c.Bindings {
		sp, err := s.span(r, table, fmt.Sprintf("%s binding %d", ent.Name, i))
		if err != nil {
			return err
		}
		o.bindings = append(o.bindings, sp)
	}
	if ent.Reports() {
		o.statusIdx = s.statusCount
		s.statusCount++
	}
	return nil
}

// release lets go of everything the submission holds.
func (s *submission) release() {
	for _, b := range s.held {
		b.Release()
	}
	s.held = nil
	for _, e := range s.exes {
		e.releaseUse()
	}
	s.exes = nil
	if s.cb != nil {
		s.cb.Release()
		s.cb = nil
	}
}

// fail fails the signal list of a submission that did not run.
func (s *submission) fail(err error) {
	if st := s.alloca; st != nil {
		st.mu.Lock()
		if st.failed == nil {
			st.failed = err
		}
		st.mu.Unlock()
	}
	s.release()
	s.signal.Fail(err)
}
