// Package vm is the compiler's last phase: it turns the host code of each
// function (everything outside dispatch regions: shapes, buffer
// allocation, dispatches, scalar arithmetic, control flow, calls, globals
// and check-module calls) into the register bytecode of the module file
// (go/schemas/module) and assembles the module with its constants and
// executables.
package vm
