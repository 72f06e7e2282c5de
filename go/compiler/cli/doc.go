// Package cli is iree-compile's command line: LLVM-cl-style flag parsing
// (-flag and --flag, =value or a separate value), --help, and the listing
// flags. Both the iree-compile binary and libgree's in-process tool entry
// (which Python's iree_go.compiler uses) run Main.
package cli
