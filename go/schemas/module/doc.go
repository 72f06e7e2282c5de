// Package module is gree's module file format (the .vmfb a compiler
// writes and the runtime loads): a versioned, sectioned binary holding the
// host program (register bytecode per function), exports, imports,
// globals, read-only constants and per-target executables. Constants and
// executables are stored at 64-byte aligned offsets so the runtime can use
// them in place from an mmap.
//
// The file is untrusted input: Decode checks everything (magic, version,
// bounds, counts, every instruction's opcode, register numbers and kinds,
// branch targets and table indices) before returning a Module, and never
// panics. The layout is documented in docs/module-format.md.
//
// This package is shared by the compiler (which builds and encodes a
// Module) and the runtime (which decodes and runs it); it imports only the
// standard library and go/status.
package module
