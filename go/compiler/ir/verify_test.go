package ir

import (
	"strings"
	"testing"
)

func TestVerifyDominance(t *testing.T) {
	loc := FileLoc("v.mlir", 2, 3)
	// A region with a diamond CFG: entry -> a, b -> join.
	m := NewModule(loc)
	op := AtEnd(m.Body(), loc).CreateWithRegions("test.cfg", nil, nil, 1)
	r := op.Regions[0]
	entry, a, bb, join := NewBlock(), NewBlock(), NewBlock(), NewBlock()
	for _, blk := range []*Block{entry, a, bb, join} {
		r.AddBlock(blk)
	}
	eb := AtEnd(entry, loc)
	v := eb.Create("test.def", nil, []Type{I32}).Results[0]
	br := eb.Create("test.br", nil, nil)
	br.Successors = []*Block{a, bb}
	av := AtEnd(a, loc).Create("test.def", nil, []Type{I32}).Results[0]
	AtEnd(a, loc).Create("test.br", nil, nil).Successors = []*Block{join}
	AtEnd(bb, loc).Create("test.br", nil, nil).Successors = []*Block{join}
	use := AtEnd(join, loc).Create("test.use", []*Value{v}, nil)
	if err := Verify(m.Op); err != nil {
		t.Fatalf("entry value used in join: %v", err)
	}
	use.Operands[0] = av // defined in a, which does not dominate join
	err := Verify(m.Op)
	if err == nil || err.Error() != "v.mlir:2:3: error: 'test.use' op operand #0 does not dominate this use (its block does not dominate)" {
		t.Errorf("got %v", err)
	}
	use.Operands[0] = v
	br.Successors = []*Block{a, NewBlock()}
	if err := Verify(m.Op); err == nil || !strings.Contains(err.Error(), "not a block of the same region") {
		t.Errorf("foreign successor: %v", err)
	}
}

func TestVerifyIsolation(t *testing.T) {
	loc := FileLoc("i.mlir", 1, 1)
	m := NewModule(loc)
	outer := AtEnd(m.Body(), loc).Create("test.def", nil, []Type{F32}).Results[0]
	fn := AtEnd(m.Body(), loc).Func("f", Function(nil, nil))
	b := AtEnd(fn.Regions[0].Entry(), loc)
	b.Create("test.use", []*Value{outer}, nil)
	b.Return()
	err := Verify(m.Op)
	if err == nil || err.Error() != "i.mlir:1:1: error: 'test.use' op operand #0 uses a value defined outside the isolated region of 'func.func'" {
		t.Errorf("got %v", err)
	}
}

func TestVerifyStructure(t *testing.T) {
	loc := FileLoc("s.mlir", 1, 1)
	m := NewModule(loc)
	fn := AtEnd(m.Body(), loc).Func("f", Function(nil, []Type{I32}))
	entry := fn.Regions[0].Entry()
	if err := Verify(m.Op); err == nil || !strings.Contains(err.Error(), "empty block") {
		t.Errorf("empty body: %v", err)
	}
	b := AtEnd(entry, loc)
	c := b.Create("test.c", nil, []Type{I32}).Results[0]
	if err := Verify(m.Op); err != nil {
		t.Errorf("unregistered last op may be a terminator: %v", err)
	}
	b.Return(c)
	if err := Verify(m.Op); err != nil {
		t.Fatal(err)
	}
	fn.SetAttr("function_type", TypeAttrOf(Function([]Type{I32}, []Type{I32})))
	if err := Verify(m.Op); err == nil || !strings.Contains(err.Error(), "entry block has 0 arguments, but the function type has 1 inputs") {
		t.Errorf("signature: %v", err)
	}
	fn.SetAttr("function_type", TypeAttrOf(Function(nil, []Type{I32})))
	c.Owner().Results[0].Type = nil
	if err := Verify(m.Op); err == nil || !strings.Contains(err.Error(), "has no type") {
		t.Errorf("untyped result: %v", err)
	}
}

func TestRegisterOp(t *testing.T) {
	RegisterOp("test.term", OpInfo{Terminator: true})
	if info, ok := LookupOp("test.term"); !ok || !info.Terminator {
		t.Error("lookup")
	}
	if !IsIsolatedFromAbove("func.func") || IsIsolatedFromAbove("test.term") {
		t.Error("isolation traits")
	}
	loc := FileLoc("r.mlir", 1, 1)
	m := NewModule(loc)
	blk := m.Body()
	AtEnd(blk, loc).Create("test.term", nil, nil)
	AtEnd(blk, loc).Create("test.after", nil, nil)
	if err := Verify(m.Op); err == nil || !strings.Contains(err.Error(), "'test.term' op must be the last operation") {
		t.Errorf("got %v", err)
	}
}
