package vm

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/codegen"
	"github.com/gree-ml/gree/go/compiler/flow"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/target/targettest"
	"github.com/gree-ml/gree/go/schemas/module"
)

// build runs the pipeline up to the module without a target.
func build(t *testing.T, src string) *module.Module {
	t.Helper()
	m := targettest.Flow(t, src)
	refs := map[*ir.Operation]DispatchRef{}
	n := 0
	var entries []string
	m.Op.Walk(func(op *ir.Operation) bool {
		if op.Name == flow.RegionName {
			d, err := codegen.Lower(op, fmt.Sprintf("d%d", n), codegen.CPUStrategy)
			if err != nil {
				t.Fatal(err)
			}
			refs[op] = DispatchRef{Dispatch: d, Entry: n}
			entries = append(entries, d.Kernel.Name)
			n++
			return false
		}
		return true
	})
	var execs []module.Executable
	if n > 0 {
		execs = []module.Executable{{Format: "test", Entries: entries}}
	}
	mod, err := Emit(&Input{Module: m, Dispatches: refs, Executables: execs})
	if err != nil {
		t.Fatal(err)
	}
	return mod
}

func TestSimpleMul(t *testing.T) {
	mod := build(t, `module @arithmetic {
  func.func @simple_mul(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {
    %0 = arith.mulf %arg0, %arg1 : tensor<4xf32>
    %1 = arith.addf %0, %arg0 : tensor<4xf32>
    return %1 : tensor<4xf32>
  }
}`)
	text := module.Disassemble(mod)
	t.Log(text)
	if mod.Name != "arithmetic" || mod.Functions[0].CConv() != "0rr_r" || strings.Count(text, "dispatch exec") != 1 {
		t.Errorf("unexpected module:\n%s", text)
	}
	if got := mod.Functions[0].Reflection[0].Value; got != "sync func @simple_mul(%input0: tensor<4xf32>, %input1: tensor<4xf32>) -> (%output0: tensor<4xf32>)" {
		t.Errorf("declaration %q", got)
	}
}

func TestScalarsAndDynamic(t *testing.T) {
	mod := build(t, `func.func @f(%a: i32, %b: i32, %t: tensor<?xf32>) -> (i32, index, tensor<?xf32>) {
  %s = arith.addi %a, %b : i32
  %c0 = arith.constant 0 : index
  %d = tensor.dim %t, %c0 : tensor<?xf32>
  %e = math.exp %t : tensor<?xf32>
  return %s, %d, %e : i32, index, tensor<?xf32>
}`)
	if mod.Name != "module" || mod.Functions[0].CConv() != "0iir_iIr" {
		t.Errorf("unexpected module:\n%s", module.Disassemble(mod))
	}
}

// TestUnreadConstantsAreNotStored: a tensor constant no host op or
// binding reads (here one nothing uses at all) is neither stored in the
// module nor loaded by the program; one a kernel binds is both.
func TestUnreadConstantsAreNotStored(t *testing.T) {
	mod := build(t, `func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %unused = arith.constant dense<[9.0, 8.0, 7.0, 6.0]> : tensor<4xf32>
  %w = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %0 = arith.mulf %a, %w : tensor<4xf32>
  return %0 : tensor<4xf32>
}`)
	text := module.Disassemble(mod)
	if len(mod.Constants) != 1 || strings.Count(text, "= constant #") != 1 {
		t.Fatalf("want the one bound constant stored and loaded once:\n%s", text)
	}
	if got := mod.Constants[0].Data; len(got) != 16 || got[0] != 0 || got[3] != 0x3f { // 1.0f little-endian: 00 00 80 3f
		t.Errorf("stored constant %x, want the bound weights [1 2 3 4]", got)
	}
}
