// Package embed is gree's compiler embedding API, the model of IREE's
// embedding_api.h: a Session holds compiler flags; a Source is a program
// (a file or a buffer); an Invocation parses a source and runs a pipeline
// on it with its session's flags; an Output receives the result (VM
// bytecode, or the IR as text) in memory, in a file or on a descriptor.
// libgree exports it as IREE's ireeCompiler* C functions, and
// iree_go.compiler.api wraps those as IREE's Python classes.
//
// An invocation compiles exactly as iree-compile does with the same flags
// (it runs the same driver in process). What gree's compiler does not do
// is an error naming it: MLIR bytecode input and output, textual MLIR
// pass pipelines, and pipelines that start from a lone hal.executable or
// a VM module.
package embed
