// Package halmodule bridges the VM and the HAL: it implements vm.Device
// over a HAL device, so host programs allocate buffer views, read shapes,
// move single elements and dispatch kernels on that device. It is the
// only place (with the other runtime/modules packages) where runtime/vm
// and runtime/hal meet.
package halmodule
