// Package allocators builds the allocator wrappers IREE's tools name with
// --device_allocator (and Python's create_device(allocators=[...])):
// allocators that wrap a device's own and replace it on the device (see
// hal.AllocatorReplacer), for every driver.
//
//   - "caching" (Caching) keeps the allocations of released buffers in
//     pools and hands them out again to allocations of the same size
//     class and parameters, zeroed, instead of asking the device's
//     allocator each time; Trim and the device's Close give the pooled
//     memory back. "caching:<heap>=<max size>;<capacity>;<free count>,…"
//     configures one pool per heap as IREE's spec does.
//   - "debug" (Debug) guards each buffer with red zones before and after
//     it and poisons the memory of released buffers, keeping them a while
//     in quarantine: a write past either end of a buffer (an overrun) or
//     into a released buffer (a use after free) is reported when the
//     buffer is released or leaves quarantine, on stderr and as Trim's
//     error.
//
// Specs wrap in order: the first wraps the device's allocator, each next
// one the previous (Configure).
package allocators
