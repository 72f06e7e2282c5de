package hal

// Executable is a loaded set of kernels (one module executable), prepared
// by Device.PrepareExecutable.
type Executable interface {
	// NumEntries returns the number of entry points.
	NumEntries() int
	// EntryName returns the name of entry point i.
	EntryName(i int) string
	// Close releases the executable.
	Close() error
}

// Warmer is implemented by devices whose workers can be kept ready for
// the next dispatch: Warm marks the start of a run of dispatches (a
// function invocation) and returns the function that marks its end.
// Between the two, idle workers poll for work instead of sleeping, so a
// dispatch finds them awake.
type Warmer interface {
	Warm() (done func())
}
