// Package multidevice holds end-to-end tests of the runtime's device
// list (several --device flags, IREE's HAL module with several devices)
// and of the allocator specs (--device_allocator) on compiled programs.
package multidevice
