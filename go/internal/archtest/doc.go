// Package archtest holds the test that enforces DESIGN.md's dependency
// rules on the import graph: the compiler and the runtime never import each
// other, drivers never import other drivers or the VM, runtime/vm and
// runtime/hal stay apart, and capi reaches only facades and public types.
package archtest
