// Package vm loads gree modules (the .vmfb file, verified completely before
// use) and runs their host programs: the functions that allocate buffers,
// compute shapes, dispatch kernels to a device and call imported modules.
// It knows nothing of the HAL; buffer views travel as opaque references
// (Value.Ref) and the HAL bridge lives in runtime/modules. Host modules
// (HostModule) are modules whose functions the embedding program
// implements, imported by bytecode modules like the native ones.
package vm
