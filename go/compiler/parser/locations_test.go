package parser

import (
	"testing"

	"github.com/gree-ml/gree/go/compiler/ir"
)

func TestLocations(t *testing.T) {
	src := `func.func @f(%a: f32 loc(#argloc)) -> f32 {
  %0 = arith.addf %a, %a : f32 loc(callsite(#inner at "caller.py":9:1))
  %1 = arith.mulf %0, %0 : f32
  return %1 : f32 loc(fused["x.py":1:1, #inner])
} loc("model.py":1:1)
#inner = loc("inner.py":4:2)
#argloc = loc("arg"("model.py":1:14))
`
	m, err := Parse("l.mlir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	fn := m.Body().Ops[0]
	body := fn.Regions[0].Blocks[0]
	cases := []struct {
		loc       ir.Location
		want, pos string
	}{
		{fn.Loc, `loc("model.py":1:1)`, "model.py:1:1"},
		{body.Args[0].Loc, `loc("arg"("model.py":1:14))`, "model.py:1:14"},
		{body.Ops[0].Loc, `loc(callsite("inner.py":4:2 at "caller.py":9:1))`, "inner.py:4:2"},
		{body.Ops[1].Loc, `loc("l.mlir":3:3)`, "l.mlir:3:3"},
		{body.Ops[2].Loc, `loc(fused["x.py":1:1, "inner.py":4:2])`, "x.py:1:1"},
		{m.Op.Loc, `loc("l.mlir":1:1)`, "l.mlir:1:1"},
	}
	for i, c := range cases {
		if got := c.loc.String(); got != c.want {
			t.Errorf("#%d: %s, want %s", i, got, c.want)
		}
		if got := ir.FormatLoc(c.loc); got != c.pos {
			t.Errorf("#%d: position %s, want %s", i, got, c.pos)
		}
	}
}

// TestVerifierUsesTrailingLoc checks that verifier diagnostics point at the
// op's own loc(…) when it has one.
func TestVerifierUsesTrailingLoc(t *testing.T) {
	src := "func.func @f() -> i32 {\n  %c = arith.constant 1.0 : f32\n  return %c : f32 loc(\"model.py\":7:3)\n}"
	_, err := Parse("v.mlir", []byte(src))
	want := "model.py:7:3: error: 'func.return' op type of return operand #0 (f32) does not match function result type (i32)"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

func TestModuleWrapping(t *testing.T) {
	cases := []struct {
		src     string
		name    string
		numBody int
	}{
		{"", "", 0},
		{"// only a comment\n", "", 0},
		{"module {}", "", 0},
		{"module @m {\n  func.func private @d()\n}", "m", 1},
		{"builtin.module @b {}", "b", 0},
		{`"builtin.module"() ({ "t.t"() : () -> () }) {sym_name = "g"} : () -> ()`, "g", 1},
		{"func.func private @a()\nfunc.func private @b()", "", 2},
		{"module {}\nmodule {}", "", 2},
	}
	for _, c := range cases {
		m, err := Parse("w.mlir", []byte(c.src))
		if err != nil {
			t.Errorf("%q: %v", c.src, err)
			continue
		}
		if m.Name() != c.name || len(m.Body().Ops) != c.numBody {
			t.Errorf("%q: name %q with %d ops, want %q with %d", c.src, m.Name(), len(m.Body().Ops), c.name, c.numBody)
		}
	}
	m, _ := Parse("w.mlir", []byte("func.func private @a()\nfunc.func private @b()"))
	if m.Lookup("b") == nil || m.Lookup("c") != nil {
		t.Error("symbol lookup")
	}
}
