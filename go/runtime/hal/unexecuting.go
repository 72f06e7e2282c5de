package hal

import "github.com/gree-ml/gree/go/status"

// Unexecuting is embedded by devices whose driver discovers and opens the
// hardware but does not execute on it yet: every execution method answers
// UNIMPLEMENTED naming the driver. It is where a new driver starts.
type Unexecuting struct {
	// Driver is the driver name the errors give.
	Driver string
}

func (u Unexecuting) err() error {
	return status.Errorf(status.Unimplemented, "the %s driver does not execute programs yet: gree runs modules on local-sync, local-task, vulkan and cuda", u.Driver)
}

// Allocator returns an allocator whose every allocation is UNIMPLEMENTED.
func (u Unexecuting) Allocator() Allocator { return unexecutingAllocator{u} }

// Formats lists no executable formats.
func (u Unexecuting) Formats() []string { return nil }

// PrepareExecutable is UNIMPLEMENTED.
func (u Unexecuting) PrepareExecutable(format string, data []byte) (Executable, error) {
	return nil, u.err()
}

// CreateSemaphore is UNIMPLEMENTED.
func (u Unexecuting) CreateSemaphore(initial uint64) (Semaphore, error) { return nil, u.err() }

// QueueExecute is UNIMPLEMENTED.
func (u Unexecuting) QueueExecute(wait, signal SemaphoreList, cb *CommandBuffer, bindings []BufferRef) error {
	return u.err()
}

// QueueHostCall is UNIMPLEMENTED.
func (u Unexecuting) QueueHostCall(wait, signal SemaphoreList, fn func() error) error {
	return u.err()
}

type unexecutingAllocator struct{ u Unexecuting }

func (a unexecutingAllocator) QueryCompatibility(params BufferParams, size int64) (BufferCompatibility, BufferParams) {
	return BufferCompatibilityNone, params
}
func (a unexecutingAllocator) Allocate(BufferParams, int64) (*Buffer, error) { return nil, a.u.err() }
func (a unexecutingAllocator) Import(BufferParams, []byte, func()) (*Buffer, error) {
	return nil, a.u.err()
}
func (a unexecutingAllocator) Statistics() AllocatorStatistics { return AllocatorStatistics{} }
func (a unexecutingAllocator) Trim() error                     { return nil }
