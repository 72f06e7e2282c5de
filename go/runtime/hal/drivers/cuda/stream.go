package cuda

import (
	"encoding/binary"
	"time"
	"unsafe"

	"github.com/gree-ml/gree/go/runtime/hal"
	cudaschema "github.com/gree-ml/gree/go/schemas/cuda"
	"github.com/gree-ml/gree/go/schemas/llvmcpu"
	"github.com/gree-ml/gree/go/status"
)

// enqueue puts the submission's work on the device's stream (as a graph
// with --cuda_use_streams=false) and records its event (on the worker).
// Status words are zeroed first and copied to the staging block last, so
// the completer reads them from host memory.
func (s *submission) enqueue() error {
	d := s.d
	cu, stream := d.cu, d.stream
	s.traceEnqueue()
	if s.alloca != nil {
		if err := s.enqueueAlloca(); err != nil {
			return err
		}
	}
	if err := s.allocBlocks(); err != nil {
		return err
	}
	if !d.opts.useStreams && len(s.ops) > 0 {
		if err := s.captureGraph(func() error { return s.enqueueCommands() }); err != nil {
			return err
		}
	} else if err := s.enqueueCommands(); err != nil {
		return err
	}
	if err := cu.check(cu.EventCreate(&s.event, eventDisableTiming|eventBlockingSync), "cuEventCreate"); err != nil {
		return err
	}
	return cu.check(cu.EventRecord(s.event, stream), "cuEventRecord")
}

// allocBlocks takes the submission's staging block (updates, staged
// fills, then the status words) and device status words from the
// device's pool.
func (s *submission) allocBlocks() error {
	d := s.d
	if n := s.stagingBytes + int64(s.statusCount)*cudaschema.StatusBytes; n > 0 {
		b, err := d.hostBlock(n)
		if err != nil {
			return err
		}
		s.staging = b
	}
	if s.statusCount > 0 {
		b, err := d.devBlock(int64(s.statusCount * cudaschema.StatusBytes))
		if err != nil {
			return err
		}
		s.status = b
	}
	return nil
}

// enqueueCommands enqueues the commands: zeroing the status words, the
// commands, copying the status words to the staging block. It makes only
// stream-ordered calls, which a graph capture records.
func (s *submission) enqueueCommands() error {
	d := s.d
	cu, stream := d.cu, d.stream
	statusOff := s.stagingBytes
	if s.statusCount > 0 {
		n := uintptr(s.statusCount * cudaschema.StatusBytes)
		if err := cu.check(cu.MemsetD8Async(s.status.ptr, 0, n, stream), "cuMemsetD8Async"); err != nil {
			return err
		}
	}
	for i := range s.ops {
		s.stamp(2 * i)
		if err := s.enqueueOp(&s.ops[i]); err != nil {
			return err
		}
		s.stamp(2*i + 1)
	}
	if s.statusCount > 0 {
		n := uintptr(s.statusCount * cudaschema.StatusBytes)
		return cu.check(cu.MemcpyAsync(s.stagingAddr(statusOff), s.status.ptr, n, stream), "cuMemcpyAsync")
	}
	return nil
}

// captureGraph records what enqueue does into a CUDA graph by stream
// capture (--cuda_use_streams=false), then instantiates the graph and
// launches it on the stream. The instance is destroyed when the
// submission completes.
func (s *submission) captureGraph(enqueue func() error) error {
	d := s.d
	cu := d.cu
	if err := cu.check(cu.StreamBeginCapture(d.stream, captureModeThreadLocal), "cuStreamBeginCapture_v2"); err != nil {
		return err
	}
	err := enqueue()
	var graph uintptr
	if eerr := cu.check(cu.StreamEndCapture(d.stream, &graph), "cuStreamEndCapture"); err == nil {
		err = eerr
	}
	if graph != 0 {
		defer cu.GraphDestroy(graph)
	}
	if err != nil {
		return err
	}
	if err := cu.check(cu.GraphInstantiate(&s.exec, graph, 0), "cuGraphInstantiateWithFlags"); err != nil {
		return err
	}
	return cu.check(cu.GraphLaunch(s.exec, d.stream), "cuGraphLaunch")
}

// stagingAddr is the device address of staging byte off (pinned host
// memory is addressed by its host pointer under unified addressing).
func (s *submission) stagingAddr(off int64) uint64 {
	return uint64(uintptr(unsafe.Pointer(unsafe.SliceData(s.staging)))) + uint64(off)
}

// addr returns a span's device address.
func (sp span) addr() (uint64, error) {
	p, err := sp.st.address()
	return p + uint64(sp.off), err
}

// enqueueOp enqueues one command.
func (s *submission) enqueueOp(o *op) error {
	cu, stream := s.d.cu, s.d.stream
	switch o.kind {
	case hal.CommandFill:
		dst, err := o.target.addr()
		if err != nil || o.target.n == 0 {
			return err
		}
		n := uintptr(o.target.n)
		p := o.pattern
		switch {
		case o.target.off%int64(len(p)) != 0:
			buf := s.staging[o.stagingOff : o.stagingOff+o.target.n]
			for i := range buf {
				buf[i] = p[i%len(p)]
			}
			return cu.check(cu.MemcpyAsync(dst, s.stagingAddr(o.stagingOff), n, stream), "cuMemcpyAsync")
		case len(p) == 1:
			return cu.check(cu.MemsetD8Async(dst, p[0], n, stream), "cuMemsetD8Async")
		case len(p) == 2:
			return cu.check(cu.MemsetD16(dst, binary.LittleEndian.Uint16(p), n/2, stream), "cuMemsetD16Async")
		default:
			return cu.check(cu.MemsetD32(dst, binary.LittleEndian.Uint32(p), n/4, stream), "cuMemsetD32Async")
		}
	case hal.CommandUpdate:
		dst, err := o.target.addr()
		if err != nil || len(o.data) == 0 {
			return err
		}
		copy(s.staging[o.stagingOff:], o.data)
		return cu.check(cu.MemcpyAsync(dst, s.stagingAddr(o.stagingOff), uintptr(len(o.data)), stream), "cuMemcpyAsync")
	case hal.CommandCopy:
		src, err := o.source.addr()
		if err != nil {
			return err
		}
		dst, err := o.target.addr()
		if err != nil || o.target.n == 0 {
			return err
		}
		return cu.check(cu.MemcpyAsync(dst, src, uintptr(o.target.n), stream), "cuMemcpyAsync")
	case hal.CommandDispatch:
		return s.launch(o)
	}
	return nil
}

// launch enqueues a dispatch with the kernel ABI's parameters: binding
// addresses, binding lengths, the status word's address (entries that
// report errors) and the push constants, each a .u64. An empty grid
// launches nothing.
func (s *submission) launch(o *op) error {
	ent := &o.exe.entries[o.entry]
	if o.grid[0] == 0 || o.grid[1] == 0 || o.grid[2] == 0 {
		return nil
	}
	vals := make([]uint64, 0, ent.NumParams())
	for _, b := range o.bindings {
		p, err := b.addr()
		if err != nil {
			return err
		}
		vals = append(vals, p)
	}
	for _, b := range o.bindings {
		vals = append(vals, uint64(b.n))
	}
	if o.statusIdx >= 0 {
		vals = append(vals, s.status.ptr+uint64(o.statusIdx*cudaschema.StatusBytes))
	}
	for _, c := range o.push {
		vals = append(vals, uint64(c))
	}
	ptrs := make([]unsafe.Pointer, len(vals))
	var params *unsafe.Pointer
	var pin pinner
	defer pin.unpin()
	if len(vals) > 0 {
		pin.pin(&vals[0])
		for i := range vals {
			ptrs[i] = unsafe.Pointer(&vals[i])
		}
		pin.pin(&ptrs[0])
		params = &ptrs[0]
	}
	b := ent.BlockSize
	r := s.d.cu.LaunchKernel(ent.fn, o.grid[0], o.grid[1], o.grid[2], uint32(b[0]), uint32(b[1]), uint32(b[2]), 0, s.d.stream, params, nil)
	if r != cudaSuccess {
		return status.Errorf(resultCode(r), "cuda: launching %s (grid %d×%d×%d, block %d×%d×%d): cuLaunchKernel failed: %s (%d)",
			ent.Name, o.grid[0], o.grid[1], o.grid[2], b[0], b[1], b[2], s.d.cu.errorName(r), r)
	}
	return nil
}

// finish waits for the submission's event (on the completer), reads its
// status words, frees its CUDA objects, lets go of what it held and
// signals or fails its signal list.
func (s *submission) finish() {
	cu := s.d.cu
	err := cu.check(cu.EventSynchronize(s.event), "cuEventSynchronize")
	s.traceDone(time.Now())
	cu.EventDestroy(s.event)
	if s.exec != 0 {
		cu.GraphExecDestroy(s.exec)
	}
	if err == nil {
		err = s.outcome()
	}
	s.freeStaging()
	s.release()
	for _, p := range s.signal {
		p.SignalOrFail(err)
	}
}

// outcome is the error of the first reporting dispatch whose status word
// is nonzero.
func (s *submission) outcome() error {
	base := s.stagingBytes
	for i := range s.ops {
		o := &s.ops[i]
		if o.statusIdx < 0 {
			continue
		}
		code := int64(binary.LittleEndian.Uint64(s.staging[base+int64(o.statusIdx*cudaschema.StatusBytes):]))
		if code == 0 {
			continue
		}
		st := status.OutOfRange
		if kind, _, _ := llvmcpu.DecodeError(code); kind == llvmcpu.ErrStep {
			st = status.InvalidArgument
		}
		return status.Errorf(st, "cuda: %s (grid %d×%d×%d): %s", o.exe.EntryName(o.entry), o.grid[0], o.grid[1], o.grid[2], cudaschema.Describe(code))
	}
	return nil
}

// freeStaging gives back the staging block and the status words (not on
// the worker).
func (s *submission) freeStaging() {
	if s.staging != nil {
		s.d.putHostBlock(s.staging)
		s.staging = nil
	}
	if s.status.ptr != 0 {
		s.d.putDevBlock(s.status)
		s.status = devBlock{}
	}
}
