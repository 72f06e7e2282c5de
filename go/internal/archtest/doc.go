// Package archtest holds the test that enforces the dependency rules of
// docs/architecture.md on the import graph: the compiler and the runtime never import each
// other, drivers never import other drivers or the VM, runtime/vm and
// runtime/hal stay apart, and capi reaches only facades and public types.
package archtest
