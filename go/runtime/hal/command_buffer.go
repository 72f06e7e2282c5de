package hal

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/gree-ml/gree/go/status"
)

// CommandBufferMode is IREE's iree_hal_command_buffer_mode_t (same bits).
type CommandBufferMode uint32

// Command buffer modes.
const (
	// CommandBufferOneShot: executed once (else reusable: executed any
	// number of times, each with its own binding table).
	CommandBufferOneShot CommandBufferMode = 1 << 0
	// CommandBufferAllowInlineExecution: the device may execute commands
	// as they are recorded.
	CommandBufferAllowInlineExecution CommandBufferMode = 1 << 4
	// CommandBufferUnvalidated: skip validation (gree validates anyway:
	// checks are cheap next to the work).
	CommandBufferUnvalidated CommandBufferMode = 1 << 5
	// CommandBufferUnretained: the command buffer does not retain the
	// buffers it refers to; the caller keeps them alive until execution
	// completes.
	CommandBufferUnretained CommandBufferMode = 1 << 6
)

// CommandCategory is IREE's iree_hal_command_category_t.
type CommandCategory uint32

// Command categories.
const (
	CommandCategoryTransfer CommandCategory = 1 << 0
	CommandCategoryDispatch CommandCategory = 1 << 1
	CommandCategoryAny                      = CommandCategoryTransfer | CommandCategoryDispatch
)

// CommandKind is the kind of one recorded command.
type CommandKind uint8

// Command kinds.
const (
	CommandBarrier CommandKind = iota
	CommandFill
	CommandUpdate
	CommandCopy
	CommandDispatch
)

// Command is one recorded command. Drivers execute the list in order; a
// barrier orders everything before it before everything after it (the
// local devices run commands one after another anyway).
type Command struct {
	Kind CommandKind
	// Fill: Target, Pattern (1, 2 or 4 bytes). Update: Data into Target.
	// Copy: Source into Target.
	Target, Source BufferRef
	Pattern        []byte
	Data           []byte
	// Dispatch: entry Entry of Executable over Workgroups, with push
	// Constants and Bindings (in binding order).
	Executable Executable
	Entry      int
	Workgroups [3]int64
	Constants  []int64
	Bindings   []BufferRef
}

// CommandBuffer records commands for a queue to execute (IREE's
// iree_hal_command_buffer_t). It is recorded between Begin and End by one
// goroutine at a time, then submitted with Device.QueueExecute: a one-shot
// command buffer once, a reusable one any number of times. Commands are
// validated as they are recorded (ranges, usage, released buffers), so a
// driver executes only well-formed lists. Every driver shares this
// recorder; a driver translates the recorded list when it executes it.
type CommandBuffer struct {
	mode            CommandBufferMode
	categories      CommandCategory
	bindingCapacity int

	mu       sync.Mutex
	state    cbState
	cmds     []Command
	retained []*Buffer
	// ints and refArena hold the dispatches' push constants and bindings.
	ints      []int64
	refArena  []BufferRef
	submitted bool
	refs      atomic.Int32
}

type cbState uint8

const (
	cbInitial cbState = iota
	cbRecording
	cbExecutable
	cbReleased
)

// NewCommandBuffer returns a command buffer in the initial state (call
// Begin). bindingCapacity is the size of the binding table a reusable
// command buffer's slot references index. The caller owns one reference.
func NewCommandBuffer(mode CommandBufferMode, categories CommandCategory, bindingCapacity int) (*CommandBuffer, error) {
	if bindingCapacity < 0 {
		return nil, status.Errorf(status.InvalidArgument, "binding capacity %d is negative", bindingCapacity)
	}
	if categories == 0 {
		categories = CommandCategoryAny
	}
	cb := &CommandBuffer{mode: mode, categories: categories, bindingCapacity: bindingCapacity}
	cb.refs.Store(1)
	return cb, nil
}

// Reserve makes room for n more commands (and the buffers they retain,
// up to four each) so that recording them does not grow the lists.
func (cb *CommandBuffer) Reserve(n int) {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	cb.cmds = slices.Grow(cb.cmds, n)
	cb.ints = slices.Grow(cb.ints, 4*n)
	cb.refArena = slices.Grow(cb.refArena, 4*n)
	if cb.mode&CommandBufferUnretained == 0 {
		cb.retained = slices.Grow(cb.retained, 4*n)
	}
}

// Mode returns the command buffer's mode.
func (cb *CommandBuffer) Mode() CommandBufferMode { return cb.mode }

// BindingCapacity returns the binding table size slot references use.
func (cb *CommandBuffer) BindingCapacity() int { return cb.bindingCapacity }

// Begin starts recording; a command buffer is begun once.
func (cb *CommandBuffer) Begin() error {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	switch cb.state {
	case cbInitial:
		cb.state = cbRecording
		return nil
	case cbReleased:
		return cb.releasedErr()
	}
	return status.New(status.FailedPrecondition, "command buffer has already begun recording (begin is called once)")
}

// End finishes recording; the command buffer can then be submitted.
func (cb *CommandBuffer) End() error {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	if err := cb.recordingLocked("end"); err != nil {
		return err
	}
	cb.state = cbExecutable
	return nil
}

func (cb *CommandBuffer) releasedErr() error {
	return status.New(status.FailedPrecondition, "command buffer used after it was released")
}

func (cb *CommandBuffer) recordingLocked(what string) error {
	switch cb.state {
	case cbRecording:
		return nil
	case cbInitial:
		return status.Errorf(status.FailedPrecondition, "command buffer %s before begin", what)
	case cbReleased:
		return cb.releasedErr()
	}
	return status.Errorf(status.FailedPrecondition, "command buffer %s after end: recording has finished", what)
}

// checkRef validates a buffer reference for a command needing usage;
// slot references are checked against the binding capacity (their buffers
// come with each submission).
func (cb *CommandBuffer) checkRef(r BufferRef, usage BufferUsage, what string) error {
	if r.Buffer == nil {
		if r.Slot < 0 || r.Slot >= cb.bindingCapacity {
			return status.Errorf(status.OutOfRange, "%s: binding table slot %d is out of range (capacity %d)", what, r.Slot, cb.bindingCapacity)
		}
		return nil
	}
	if err := r.Buffer.Check(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	n := r.Length
	if n < 0 {
		n = r.Buffer.ByteLength() - r.Offset
	}
	if err := r.Buffer.CheckRange(r.Offset, n); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if usage != 0 {
		if err := r.Buffer.CheckUsage(usage, what); err != nil {
			return err
		}
	}
	return nil
}

func (cb *CommandBuffer) needs(c CommandCategory, what string) error {
	if cb.categories&c == 0 {
		return status.Errorf(status.FailedPrecondition, "%s is not allowed in a command buffer created for categories 0x%x", what, uint32(cb.categories))
	}
	return nil
}

// record appends a command after its checks, retaining its buffers.
func (cb *CommandBuffer) record(c Command, refs ...BufferRef) error {
	if cb.mode&CommandBufferUnretained == 0 {
		for _, r := range refs {
			if r.Buffer == nil {
				continue
			}
			if err := r.Buffer.Retain(); err != nil {
				return err
			}
			cb.retained = append(cb.retained, r.Buffer)
		}
	}
	cb.cmds = append(cb.cmds, c)
	return nil
}

// ExecutionBarrier orders the commands before it before those after it.
func (cb *CommandBuffer) ExecutionBarrier() error {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	if err := cb.recordingLocked("barrier"); err != nil {
		return err
	}
	return cb.record(Command{Kind: CommandBarrier})
}

// Fill fills target with a repeated pattern of 1, 2 or 4 bytes; the
// target's offset and length must be multiples of the pattern's size.
func (cb *CommandBuffer) Fill(target BufferRef, pattern []byte) error {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	if err := cb.recordingLocked("fill"); err != nil {
		return err
	}
	if err := cb.needs(CommandCategoryTransfer, "fill"); err != nil {
		return err
	}
	if n := len(pattern); n != 1 && n != 2 && n != 4 {
		return status.Errorf(status.InvalidArgument, "fill pattern of %d bytes: it must be 1, 2 or 4", n)
	}
	if err := cb.checkRef(target, BufferUsageTransferTarget, "fill target"); err != nil {
		return err
	}
	p := int64(len(pattern))
	if target.Offset%p != 0 || (target.Length > 0 && target.Length%p != 0) {
		return status.Errorf(status.InvalidArgument, "fill of a %d-byte pattern at offset %d, length %d: both must be multiples of the pattern size", p, target.Offset, target.Length)
	}
	return cb.record(Command{Kind: CommandFill, Target: target, Pattern: append([]byte(nil), pattern...)}, target)
}

// Update copies data (copied now) into target.
func (cb *CommandBuffer) Update(data []byte, target BufferRef) error {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	if err := cb.recordingLocked("update"); err != nil {
		return err
	}
	if err := cb.needs(CommandCategoryTransfer, "update"); err != nil {
		return err
	}
	target.Length = int64(len(data))
	if err := cb.checkRef(target, BufferUsageTransferTarget, "update target"); err != nil {
		return err
	}
	return cb.record(Command{Kind: CommandUpdate, Target: target, Data: append([]byte(nil), data...)}, target)
}

// Copy copies source into target; the lengths must match (a negative
// length on either takes the other's).
func (cb *CommandBuffer) Copy(source, target BufferRef) error {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	if err := cb.recordingLocked("copy"); err != nil {
		return err
	}
	if err := cb.needs(CommandCategoryTransfer, "copy"); err != nil {
		return err
	}
	if source.Length < 0 && target.Length >= 0 {
		source.Length = target.Length
	} else if target.Length < 0 && source.Length >= 0 {
		target.Length = source.Length
	}
	if source.Length >= 0 && source.Length != target.Length {
		return status.Errorf(status.InvalidArgument, "copy of %d bytes into %d: the lengths must match", source.Length, target.Length)
	}
	if err := cb.checkRef(source, BufferUsageTransferSource, "copy source"); err != nil {
		return err
	}
	if err := cb.checkRef(target, BufferUsageTransferTarget, "copy target"); err != nil {
		return err
	}
	if source.Buffer != nil && source.Length < 0 && target.Buffer != nil {
		sn, tn := source.Buffer.ByteLength()-source.Offset, target.Buffer.ByteLength()-target.Offset
		if sn != tn {
			return status.Errorf(status.InvalidArgument, "copy of %d bytes into %d: the lengths must match", sn, tn)
		}
	}
	if source.Buffer != nil && target.Buffer != nil && source.Buffer.SameAllocation(target.Buffer) {
		n := source.Length
		if n < 0 {
			n = source.Buffer.ByteLength() - source.Offset
		}
		s, t := source.Buffer.ByteOffset()+source.Offset, target.Buffer.ByteOffset()+target.Offset
		if s < t+n && t < s+n {
			return status.Errorf(status.InvalidArgument, "copy between overlapping ranges [%d, %d) and [%d, %d) of one allocation", s, s+n, t, t+n)
		}
	}
	return cb.record(Command{Kind: CommandCopy, Source: source, Target: target}, source, target)
}

// Dispatch records a dispatch of entry of exe over workgroups, with push
// constants and bindings (both copied).
func (cb *CommandBuffer) Dispatch(exe Executable, entry int, workgroups [3]int64, constants []int64, bindings []BufferRef) error {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	if err := cb.recordingLocked("dispatch"); err != nil {
		return err
	}
	if err := cb.needs(CommandCategoryDispatch, "dispatch"); err != nil {
		return err
	}
	if exe == nil {
		return status.New(status.InvalidArgument, "dispatch of a null executable")
	}
	for i, n := range workgroups {
		if n < 0 || n > 1<<31 {
			return status.Errorf(status.InvalidArgument, "dispatch workgroup count %d in dimension %d is out of range", n, i)
		}
	}
	for i, r := range bindings {
		if cb.checkRef(r, 0, "") != nil {
			// Checked again to name the binding (only on failure: a
			// dispatch does not pay for formatting the phrase).
			return cb.checkRef(r, 0, fmt.Sprintf("dispatch binding %d", i))
		}
	}
	c := Command{Kind: CommandDispatch, Executable: exe, Entry: entry, Workgroups: workgroups}
	// The command's copies of constants and bindings are pieces of the
	// command buffer's own lists (a piece never grows: its capacity is
	// its length), so that recording a dispatch allocates nothing once
	// Reserve made room.
	n := len(cb.ints)
	cb.ints = append(cb.ints, constants...)
	c.Constants = cb.ints[n:len(cb.ints):len(cb.ints)]
	n = len(cb.refArena)
	cb.refArena = append(cb.refArena, bindings...)
	c.Bindings = cb.refArena[n:len(cb.refArena):len(cb.refArena)]
	return cb.record(c, bindings...)
}

// Commands returns the recorded commands for a driver to execute. It is
// valid once the command buffer has ended.
func (cb *CommandBuffer) Commands() ([]Command, error) {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	switch cb.state {
	case cbExecutable:
		return cb.cmds, nil
	case cbReleased:
		return nil, cb.releasedErr()
	}
	return nil, status.New(status.FailedPrecondition, "command buffer submitted before it ended recording (call end first)")
}

// Submit marks a submission: a one-shot command buffer is submitted once.
// It retains the command buffer until the submission completes (the caller
// releases then).
func (cb *CommandBuffer) Submit() error {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	switch {
	case cb.state == cbReleased:
		return cb.releasedErr()
	case cb.state != cbExecutable:
		return status.New(status.FailedPrecondition, "command buffer submitted before it ended recording (call end first)")
	case cb.submitted && cb.mode&CommandBufferOneShot != 0:
		return status.New(status.FailedPrecondition, "one-shot command buffer submitted twice")
	}
	cb.submitted = true
	cb.refs.Add(1)
	return nil
}

// Retain adds a reference.
func (cb *CommandBuffer) Retain() { cb.refs.Add(1) }

// Release drops a reference; the last one releases the buffers the
// command buffer retains. A second release of the last reference is a
// FAILED_PRECONDITION error.
func (cb *CommandBuffer) Release() error {
	n := cb.refs.Add(-1)
	if n < 0 {
		cb.refs.Add(1)
		return status.New(status.FailedPrecondition, "command buffer released twice")
	}
	if n > 0 {
		return nil
	}
	cb.mu.Lock()
	defer cb.mu.Unlock()
	cb.state = cbReleased
	for _, b := range cb.retained {
		b.Release()
	}
	cb.retained, cb.cmds, cb.ints, cb.refArena = nil, nil, nil, nil
	return nil
}
