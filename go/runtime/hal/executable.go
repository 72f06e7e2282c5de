package hal

// Executable is a loaded set of kernels (one module executable).
type Executable interface {
	// Close releases the executable.
	Close() error
}

// Dispatcher is implemented by devices that run executables: it loads an
// executable of a given format and runs one entry point over a workgroup
// grid with push constants and bindings (the buffers' bytes, in binding
// order). Dispatch returns when the work is complete.
type Dispatcher interface {
	// Formats lists the executable formats the device loads.
	Formats() []string
	PrepareExecutable(format string, data []byte) (Executable, error)
	// Dispatch runs the grid's workgroups and returns when they are
	// done; push and bindings (the slices, not the storage) are the
	// caller's to reuse once it returns.
	Dispatch(exe Executable, entry int, grid [3]int64, push []int64, bindings [][]byte) error
}

// Warmer is implemented by dispatchers whose workers can be kept ready
// for the next dispatch: Warm marks the start of a run of dispatches (a
// function invocation) and returns the function that marks its end.
// Between the two, idle workers poll for work instead of sleeping, so a
// dispatch finds them awake.
type Warmer interface {
	Warm() (done func())
}
