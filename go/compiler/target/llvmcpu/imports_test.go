package llvmcpu

import (
	"testing"

	schema "github.com/gree-ml/gree/go/schemas/llvmcpu"
)

// TestLibmCallsAreAllowedImports checks that every libm function the
// target calls is one the loader lets an object import (in both
// precisions: LLVM may narrow a call to the f32 variant).
func TestLibmCallsAreAllowedImports(t *testing.T) {
	// pow and atan2 are called directly; the others are what LLVM may
	// lower the intrinsics the target uses (llvm.fma, llvm.floor, …) and
	// frem to on a CPU without the instruction.
	names := []string{"pow", "atan2", "memset", "memcpy", "fma", "floor", "ceil", "round", "roundeven", "trunc",
		"sqrt", "fabs", "fmod", "fminimum", "fmaximum"}
	for _, n := range libmDouble {
		names = append(names, n)
	}
	for _, n := range names {
		if !schema.AllowedImport(n) {
			t.Errorf("the target calls %s, which the loader refuses to import", n)
		}
		if n != "memset" && n != "memcpy" && !schema.AllowedImport(n+"f") {
			t.Errorf("%sf is not an allowed import", n)
		}
	}
	for _, n := range []string{"system", "printf", "dlopen", "mprotect", "execve", "malloc", ""} {
		if schema.AllowedImport(n) {
			t.Errorf("%q is an allowed import", n)
		}
	}
}
