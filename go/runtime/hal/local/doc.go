// Package local holds what the CPU drivers local-sync and local-task share:
// the single "default" device of the host CPU and its executable loaders
// (vmvx bytecode in local/vmvx, native llvm-cpu shared objects in
// local/llvmcpu), so both drivers run the same code and differ only in how
// they schedule workgroups. The runtime flag --executable_loaders
// (loaders.go) enables a subset of the loaders, which picks the variant a
// multi-target module runs.
package local
