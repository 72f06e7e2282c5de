package compiler

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/schemas/module"
)

// TestConcatInPlace checks the host program of tests/e2e/tensor_ops.mlir's
// @concat_in_place (whose values the e2e suite checks on every target):
// the largest concatenation's pieces are written in place, the smaller
// concatenation of a prefix of them is a view, and only the piece
// concatenated twice, the piece at an unaligned offset and the constant
// piece are copied (for each of the two halves of the function: the
// values and the expected values, which are concatenated the same way).
func TestConcatInPlace(t *testing.T) {
	src, err := os.ReadFile("../../tests/e2e/tensor_ops.mlir")
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	text = text[strings.Index(text, "func.func @concat_in_place"):]
	for _, backend := range []string{"vmvx", "vulkan-spirv"} {
		out, err := Compile([]byte(text), Options{Filename: "tensor_ops.mlir", Backends: []string{backend}, Vulkan: VulkanOptions{Target: "llvmpipe"}})
		if err != nil {
			t.Fatalf("%s: %v", backend, err)
		}
		m, err := module.Decode(out)
		if err != nil {
			t.Fatal(err)
		}
		dis := module.Disassemble(m)
		// Per half: p2's three pieces and the prefix view p1, m's
		// aligned first piece; t's two copies, m's other two pieces.
		if n := strings.Count(dis, " = subview "); n != 10 {
			t.Errorf("%s: %d subviews, want 10:\n%s", backend, n, dis)
		}
		if n := strings.Count(dis, " copy "); n != 8 {
			t.Errorf("%s: %d copies, want 8:\n%s", backend, n, dis)
		}
	}
	// A piece is placed only at an offset every target's bindings allow:
	// a 64-byte line on CPUs, 256 bytes where a GPU runs.
	for _, tc := range []struct {
		backend       string
		n             int // elements per piece
		views, copies int
	}{{"vmvx", 3, 1, 1}, {"vmvx", 16, 2, 0}, {"vulkan-spirv", 16, 1, 1}, {"vulkan-spirv", 64, 2, 0}} {
		src := fmt.Sprintf(`func.func @f(%%x: tensor<1x%[1]dxf32>) -> tensor<1x%[2]dxf32> {
  %%a = arith.addf %%x, %%x : tensor<1x%[1]dxf32>
  %%b = arith.mulf %%x, %%x : tensor<1x%[1]dxf32>
  %%c = tensor.concat dim(1) %%a, %%b : (tensor<1x%[1]dxf32>, tensor<1x%[1]dxf32>) -> tensor<1x%[2]dxf32>
  return %%c : tensor<1x%[2]dxf32>
}`, tc.n, 2*tc.n)
		out, err := Compile([]byte(src), Options{Filename: "f.mlir", Backends: []string{tc.backend}, Vulkan: VulkanOptions{Target: "llvmpipe"}})
		if err != nil {
			t.Fatal(err)
		}
		m, err := module.Decode(out)
		if err != nil {
			t.Fatal(err)
		}
		if dis := module.Disassemble(m); strings.Count(dis, " = subview ") != tc.views || strings.Count(dis, " copy ") != tc.copies {
			t.Errorf("%s, pieces of %d floats: want %d placed and %d copied:\n%s", tc.backend, tc.n, tc.views, tc.copies, dis)
		}
	}
}
