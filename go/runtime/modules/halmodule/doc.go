// Package halmodule bridges the VM and the HAL: it implements vm.Device
// over a HAL device, so host programs allocate buffer views, read shapes,
// move single elements and dispatch kernels on that device. It is the
// only place (with the other runtime/modules packages) where runtime/vm
// and runtime/hal meet.
//
// Its buffer cache recycles the storage of buffers a host program
// discards (or a caller releases) for later allocations of the same size:
// the most recently released fit, or, when invocations have run faster
// that way, the storage the same allocation of the previous invocation
// used (see policy.go); GREE_DEBUG_BUFFER_CACHE=1 makes it poison
// recycled buffers to catch reuse bugs.
//
// Each call records on a recorder of its own (recorder.go: a command
// buffer and a timeline; Device.Scope), so calls from several goroutines
// on one context run at once; the cache hands a buffer released by one
// call to another only once the releasing call's work has completed.
package halmodule
