package ir

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// buildAdd builds a module with func.func @add(%a, %b: tensor<4xf32>)
// returning their sum.
func buildAdd() (*Module, *Operation) {
	loc := FileLoc("b.mlir", 1, 1)
	m := NewModule(loc)
	t := Tensor([]int64{4}, F32)
	fn := AtEnd(m.Body(), loc).Func("add", Function([]Type{t, t}, []Type{t}))
	entry := fn.Regions[0].Entry()
	b := AtEnd(entry, loc)
	sum := b.Create("arith.addf", []*Value{entry.Args[0], entry.Args[1]}, []Type{t},
		Named("fastmath", &OpaqueAttr{Text: "#arith.fastmath<none>"}))
	b.Return(sum.Results[0])
	return m, sum
}

func TestBuilderPrint(t *testing.T) {
	m, sum := buildAdd()
	want := `"builtin.module"() ({
  "func.func"() ({
  ^bb0(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>):
    %0 = "arith.addf"(%arg0, %arg1) {fastmath = #arith.fastmath<none>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%0) : (tensor<4xf32>) -> ()
  }) {function_type = (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>, sym_name = "add"} : () -> ()
}) : () -> ()
`
	if diff := cmp.Diff(want, m.String()); diff != "" {
		t.Errorf("module (-want +got):\n%s", diff)
	}
	if err := Verify(m.Op); err != nil {
		t.Fatal(err)
	}
	// An op printed on its own keeps the names of its enclosing function.
	if got := strings.TrimSpace(sum.String()); !strings.HasPrefix(got, `%0 = "arith.addf"(%arg0, %arg1)`) {
		t.Errorf("op alone: %s", got)
	}
	if m.Lookup("add") == nil || sum.ParentOp().Name != "func.func" || sum.Dialect() != "arith" {
		t.Error("navigation")
	}
}

func TestBuilderInsertionPoints(t *testing.T) {
	m, sum := buildAdd()
	b := NewBuilder(Unknown)
	b.SetInsertionPointBefore(sum)
	c := b.Constant(DenseSplat(Tensor([]int64{4}, F32), 1.0))
	b.SetInsertionPointAfter(sum)
	mul := b.Create("arith.mulf", []*Value{sum.Results[0], c}, []Type{sum.Results[0].Type})
	ret := sum.Block().Terminator()
	ReplaceAllUsesWith(m.Op, sum.Results[0], mul.Results[0])
	// The replacement also rewrote mul's own operand; restore it.
	mul.Operands[0] = sum.Results[0]
	var names []string
	for _, op := range sum.Block().Ops {
		names = append(names, op.Name)
	}
	if diff := cmp.Diff([]string{"arith.constant", "arith.addf", "arith.mulf", "func.return"}, names); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	if ret.Operands[0] != mul.Results[0] {
		t.Error("return not rewired")
	}
	if err := Verify(m.Op); err != nil {
		t.Fatal(err)
	}
	mul.SetAttr("b", Unit)
	mul.SetAttr("a", Str("x"))
	mul.RemoveAttr("b")
	if len(mul.Attrs) != 1 || mul.Attr("a") == nil || mul.Attr("b") != nil {
		t.Errorf("attrs %v", mul.Attrs)
	}
	mul.Erase()
	if sum.Block().IndexOf(mul) != -1 || mul.Block() != nil {
		t.Error("erase")
	}
	if err := Verify(m.Op); err == nil || !strings.Contains(err.Error(), "not defined in any region") {
		t.Errorf("use of erased op: %v", err)
	}
}
