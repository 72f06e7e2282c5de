package vulkan

import (
	"encoding/binary"
	"fmt"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/schemas/llvmcpu"
	spirvschema "github.com/gree-ml/gree/go/schemas/spirv"
	"github.com/gree-ml/gree/go/status"
)

// span is a resolved buffer range: off is the byte offset in the VkBuffer.
type span struct {
	st  *storage
	off int64
	n   int64
}

// wordRange returns the bytes a dispatch binds of the span: its length
// rounded up to whole 32-bit words, within the VkBuffer (whose size is
// its allocation's rounded up to words, or a whole imported range). A
// kernel that holds elements narrower than a word in i32 words (a GPU
// legalization's packed binding, see kir's package documentation)
// addresses the span's partial last word so.
func (sp span) wordRange() int64 {
	end := min((sp.off+sp.n+3)&^3, (sp.st.base+sp.st.size+3)&^3)
	return max(end-sp.off, sp.n)
}

// op is one recorded command, resolved for the submission.
type op struct {
	kind     hal.CommandKind
	target   span
	source   span
	pattern  []byte
	data     []byte
	exe      *executable
	entry    int
	pipeline uint64
	grid     [3]uint32
	push     []int64
	bindings []span

	// Planned by stage.
	fillOff, fillN int64  // the 4-byte aligned middle of a fill
	fillWord       uint32 // its pattern word
	inline         bool   // an update small and aligned enough for vkCmdUpdateBuffer
	copies         []stagedCopy
	statusOff      int64   // the status buffer's offset in the block
	nullOffs       []int64 // per binding, the block offset standing in for an empty binding (-1: none)
}

// stagedCopy copies n bytes of the staging block at src to dst.
type stagedCopy struct {
	src int64
	dst span
}

// submission is one QueueExecute: the commands resolved against the
// binding table, and what the submission holds until it completes.
type submission struct {
	d      *device
	wait   hal.SemaphoreList
	signal hal.SemaphoreList
	cb     *hal.CommandBuffer
	table  []hal.BufferRef
	ops    []op
	held   []*storage
	seen   map[*storage]bool
	exes   []*executable
	mark   int // the validation errors before the submission

	zero    []*storage // allocations this submission zeroes first
	block   *hostBlock
	vkcb    uintptr
	pool    uint64 // descriptor pool (devices without push descriptors)
	fence   uint64
	natives []*timeline // per signal timepoint, the native timeline (else nil)
	trace   submissionTrace
}

// newSubmission checks and resolves a QueueExecute request, retaining and
// acquiring what it uses.
func (v *device) newSubmission(wait, signal hal.SemaphoreList, cb *hal.CommandBuffer, bindings []hal.BufferRef) (*submission, error) {
	if err := wait.Check("wait"); err != nil {
		return nil, err
	}
	if err := signal.Check("signal"); err != nil {
		return nil, err
	}
	s := &submission{d: v, wait: append(hal.SemaphoreList(nil), wait...), signal: append(hal.SemaphoreList(nil), signal...),
		seen: map[*storage]bool{}, mark: v.driver.validationMark()}
	var cmds []hal.Command
	if cb != nil {
		if err := cb.Submit(); err != nil {
			return nil, err
		}
		s.cb = cb
		cmds, _ = cb.Commands()
	}
	s.table = append([]hal.BufferRef(nil), bindings...)
	for i, r := range s.table {
		if r.Buffer == nil {
			continue
		}
		if err := r.Buffer.Retain(); err != nil {
			s.table = s.table[:i]
			s.release()
			return nil, fmt.Errorf("binding table slot %d: %w", i, err)
		}
	}
	for i := range cmds {
		o, err := s.resolve(&cmds[i])
		if err != nil {
			s.release()
			return nil, err
		}
		if o.kind != hal.CommandBarrier {
			s.ops = append(s.ops, o)
		}
	}
	return s, nil
}

// span resolves a buffer reference to a range of a VkBuffer of this
// device, holding its memory for the submission.
func (s *submission) span(r hal.BufferRef, what string) (span, error) {
	b, off, n, err := r.Resolve(s.table)
	if err != nil {
		return span{}, fmt.Errorf("%s: %w", what, err)
	}
	st := s.d.alloc.lookup(b)
	if st == nil {
		return span{}, status.Errorf(status.InvalidArgument, "%s: the buffer (%s) is not memory of %s: a Vulkan device uses only its own buffers (copy the data into one of them first)", what, b, s.d.describe())
	}
	if !s.seen[st] {
		if !st.acquire() {
			return span{}, status.Errorf(status.FailedPrecondition, "%s: the buffer (%s) was used after its memory was freed", what, b)
		}
		s.seen[st] = true
		s.held = append(s.held, st)
	}
	return span{st: st, off: st.base + b.ByteOffset() + off, n: n}, nil
}

// resolve checks one command and resolves its buffers.
func (s *submission) resolve(c *hal.Command) (op, error) {
	o := op{kind: c.Kind}
	var err error
	switch c.Kind {
	case hal.CommandBarrier:
	case hal.CommandFill:
		o.target, err = s.span(c.Target, "fill target")
		o.pattern = c.Pattern
	case hal.CommandUpdate:
		o.target, err = s.span(c.Target, "update target")
		o.data = c.Data
		if err == nil && o.target.n != int64(len(c.Data)) {
			err = status.Errorf(status.InvalidArgument, "update of %d bytes into %d", len(c.Data), o.target.n)
		}
	case hal.CommandCopy:
		if o.source, err = s.span(c.Source, "copy source"); err == nil {
			o.target, err = s.span(c.Target, "copy target")
		}
		if err == nil && o.source.n != o.target.n {
			err = status.Errorf(status.InvalidArgument, "copy of %d bytes into %d", o.source.n, o.target.n)
		}
	case hal.CommandDispatch:
		err = s.resolveDispatch(c, &o)
	default:
		err = status.Errorf(status.Internal, "unknown command kind %d", c.Kind)
	}
	return o, err
}

func (s *submission) resolveDispatch(c *hal.Command, o *op) error {
	d := s.d
	e, ok := c.Executable.(*executable)
	if !ok || e.d != d {
		return status.Errorf(status.InvalidArgument, "dispatch of an executable that %s did not prepare", d.describe())
	}
	if c.Entry < 0 || c.Entry >= len(e.entries) {
		return status.Errorf(status.OutOfRange, "dispatch of entry point %d of an executable with %d entry points", c.Entry, len(e.entries))
	}
	p := e.entries[c.Entry]
	name := e.entryName(c.Entry)
	lim := d.limits.maxComputeWorkGroupCount
	for i, n := range c.Workgroups {
		if n < 0 || n > int64(lim[i]) {
			return status.Errorf(status.InvalidArgument, "dispatch of %s over (%d, %d, %d) workgroups: %d workgroups in dimension %d exceed the maxComputeWorkGroupCount (%d, %d, %d) of %s; split the grid",
				name, c.Workgroups[0], c.Workgroups[1], c.Workgroups[2], n, i, lim[0], lim[1], lim[2], d.describe())
		}
		o.grid[i] = uint32(n)
	}
	if len(c.Bindings) != p.bindings {
		return status.Errorf(status.InvalidArgument, "dispatch of %s with %d bindings; the entry point has %d", name, len(c.Bindings), p.bindings)
	}
	if len(c.Constants) > p.push {
		return status.Errorf(status.InvalidArgument, "dispatch of %s with %d push constants; the entry point has %d", name, len(c.Constants), p.push)
	}
	o.push = make([]int64, p.push)
	copy(o.push, c.Constants)
	align := int64(d.limits.minStorageBufferOffsetAlignment)
	for i, r := range c.Bindings {
		sp, err := s.span(r, fmt.Sprintf("dispatch of %s: binding %d", name, i))
		if err != nil {
			return err
		}
		if sp.off%align != 0 {
			return status.Errorf(status.InvalidArgument, "dispatch of %s: binding %d starts at byte %d of its VkBuffer, which is not a multiple of %s's minStorageBufferOffsetAlignment %d",
				name, i, sp.off, d.describe(), align)
		}
		if sp.n > int64(d.limits.maxStorageBufferRange) {
			return status.Errorf(status.InvalidArgument, "dispatch of %s: binding %d has %d bytes; %s binds at most %d bytes (maxStorageBufferRange)",
				name, i, sp.n, d.describe(), d.limits.maxStorageBufferRange)
		}
		o.bindings = append(o.bindings, sp)
	}
	if err := e.acquire(); err != nil {
		return fmt.Errorf("dispatch of %s: %w", name, err)
	}
	s.exes = append(s.exes, e)
	o.exe, o.entry = e, c.Entry
	// The entry point's first dispatch creates its pipeline.
	var err error
	o.pipeline, err = d.pipeline(p)
	return err
}

// stage plans the commands: what goes through the staging block (the
// unaligned ends of fills, updates vkCmdUpdateBuffer cannot do, status
// words, stand-ins for empty bindings), then gets a block and writes it.
func (s *submission) stage() error {
	var n int64
	take := func(size, align int64) int64 {
		n = (n + align - 1) / align * align
		off := n
		n += size
		return off
	}
	align := int64(s.d.limits.minStorageBufferOffsetAlignment)
	for i := range s.ops {
		o := &s.ops[i]
		switch o.kind {
		case hal.CommandFill:
			t := o.target
			a0, a1 := (t.off+3)&^3, (t.off+t.n)&^3
			if a1 <= a0 {
				a0, a1 = t.off+t.n, t.off+t.n
			}
			if a0 > t.off {
				o.copies = append(o.copies, stagedCopy{take(a0-t.off, 4), span{t.st, t.off, a0 - t.off}})
			}
			if end := t.off + t.n; end > max(a1, a0) {
				o.copies = append(o.copies, stagedCopy{take(end-a1, 4), span{t.st, a1, end - a1}})
			}
			o.fillOff, o.fillN = a0, a1-a0
			for j := int64(0); j < 4; j++ {
				o.fillWord |= uint32(o.pattern[(a0+j-t.off)%int64(len(o.pattern))]) << (8 * j)
			}
		case hal.CommandUpdate:
			t := o.target
			o.inline = t.off%4 == 0 && t.n%4 == 0 && t.n <= 65536
			if !o.inline && t.n > 0 {
				o.copies = append(o.copies, stagedCopy{take(t.n, 4), t})
			}
		case hal.CommandDispatch:
			p := o.exe.entries[o.entry]
			if p.reports {
				o.statusOff = take(spirvschema.StatusBytes, align)
			}
			o.nullOffs = make([]int64, len(o.bindings))
			for j, b := range o.bindings {
				o.nullOffs[j] = -1
				if b.n == 0 {
					o.nullOffs[j] = take(16, align)
				}
			}
		}
	}
	if n == 0 {
		return nil
	}
	b, err := s.d.getBlock(n)
	if err != nil {
		return err
	}
	s.block = b
	host := b.s.host
	clear(host[:n])
	for i := range s.ops {
		o := &s.ops[i]
		for _, c := range o.copies {
			dst := host[c.src : c.src+c.dst.n]
			switch o.kind {
			case hal.CommandFill:
				for j := range dst {
					dst[j] = o.pattern[(c.dst.off+int64(j)-o.target.off)%int64(len(o.pattern))]
				}
			case hal.CommandUpdate:
				copy(dst, o.data)
			}
		}
	}
	return nil
}

// outcome reads the status words of the dispatches that report errors:
// the first nonzero one fails the submission, naming its entry point.
func (s *submission) outcome() error {
	for i := range s.ops {
		o := &s.ops[i]
		if o.kind != hal.CommandDispatch || !o.exe.entries[o.entry].reports {
			continue
		}
		code := int64(binary.LittleEndian.Uint64(s.block.s.host[o.statusOff:]))
		if code == 0 {
			continue
		}
		kind, _, _ := llvmcpu.DecodeError(code)
		st := status.OutOfRange
		if kind == llvmcpu.ErrStep {
			st = status.InvalidArgument
		}
		return status.Errorf(st, "vulkan: %s (grid %d×%d×%d): %s", o.exe.entryName(o.entry), o.grid[0], o.grid[1], o.grid[2], spirvschema.Describe(code))
	}
	return nil
}

// release lets go of everything the submission holds.
func (s *submission) release() {
	d := s.d
	if s.pool != 0 {
		d.vk.DestroyDescriptorPool(d.handle, s.pool, nil)
		s.pool = 0
	}
	if s.block != nil {
		d.putBlock(s.block)
		s.block = nil
	}
	for _, st := range s.zero {
		st.releaseUse()
	}
	for _, st := range s.held {
		st.releaseUse()
	}
	for _, e := range s.exes {
		e.releaseUse()
	}
	s.zero, s.held, s.exes, s.ops = nil, nil, nil, nil
	for _, r := range s.table {
		if r.Buffer != nil {
			r.Buffer.Release()
		}
	}
	s.table = nil
	if s.cb != nil {
		s.cb.Release()
		s.cb = nil
	}
}
