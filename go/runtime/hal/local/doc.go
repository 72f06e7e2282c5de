// Package local holds what the CPU drivers local-sync and local-task share:
// the single "default" device of the host CPU. The executable loaders (vmvx
// bytecode, native llvm-cpu objects) will live here too, so both drivers run
// the same code and differ only in how they schedule workgroups.
package local
