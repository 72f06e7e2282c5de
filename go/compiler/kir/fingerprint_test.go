package kir

import (
	"reflect"
	"testing"
)

// TestFingerprintCoversEveryField fails when Kernel, Op or Block gains a
// field Fingerprint does not encode (kernels differing only there would
// share one entry point), and checks that a change to any op field or
// kernel field, but not the name, changes the fingerprint.
func TestFingerprintCoversEveryField(t *testing.T) {
	for typ, n := range map[reflect.Type]int{reflect.TypeOf(Kernel{}): 9, reflect.TypeOf(Op{}): 9, reflect.TypeOf(Block{}): 2} {
		if typ.NumField() != n {
			t.Errorf("%s has %d fields, Fingerprint encodes %d: update it", typ, typ.NumField(), n)
		}
	}
	mk := func() *Kernel {
		inner := &Block{Args: []Value{3}, Ops: []*Op{{Kind: Add, Results: []Value{4}, Args: []Value{3, 3}}}}
		return &Kernel{
			Name: "a", Bindings: []Binding{{Elem: F32, Access: Read}, {Elem: F32, Access: Write}}, NumPushConstants: 1,
			Grid: [3]GridDim{{Static: 4, Tile: 2}, {Static: 1}, {Static: 1}}, WorkgroupSize: [3]int{1, 1, 1},
			Types: []Type{S(I64), S(F32), S(F32), S(F32), S(F32)},
			Body: &Block{Ops: []*Op{
				{Kind: ConstInt, Results: []Value{0}, Imm: 7},
				{Kind: ConstFloat, Results: []Value{1}, F: 0.5},
				{Kind: Load, Results: []Value{2}, Args: []Value{0}, Binding: 0},
				{Kind: For, Args: []Value{0}, Regions: []*Block{inner}},
			}},
		}
	}
	base := Fingerprint(mk())
	renamed := mk()
	renamed.Name = "b"
	if Fingerprint(renamed) != base {
		t.Error("the name changed the fingerprint")
	}
	for name, change := range map[string]func(k *Kernel){
		"imm":          func(k *Kernel) { k.Body.Ops[0].Imm = 8 },
		"float":        func(k *Kernel) { k.Body.Ops[1].F = -0.5 },
		"binding":      func(k *Kernel) { k.Body.Ops[2].Binding = 1 },
		"access":       func(k *Kernel) { k.Bindings[0].Access = ReadWrite },
		"grid":         func(k *Kernel) { k.Grid[0].Tile = 4 },
		"grid push":    func(k *Kernel) { k.Grid[0].PushConstants = []int{0} },
		"push count":   func(k *Kernel) { k.NumPushConstants = 2 },
		"subgroup":     func(k *Kernel) { k.SubgroupSize = 32 },
		"shared":       func(k *Kernel) { k.Shared = []SharedAlloc{{Elem: F32, Count: 4}} },
		"type":         func(k *Kernel) { k.Types[1] = V(F32, 4) },
		"nested op":    func(k *Kernel) { k.Body.Ops[3].Regions[0].Ops[0].Kind = Mul },
		"nested arg":   func(k *Kernel) { k.Body.Ops[3].Regions[0].Args = []Value{2} },
		"tile operand": func(k *Kernel) { k.Body.Ops[2].Bindings = [3]int{0, 1, 2} },
		"extra":        func(k *Kernel) { k.Body.Ops[2].Extra = 1 },
	} {
		k := mk()
		change(k)
		if Fingerprint(k) == base {
			t.Errorf("changing the %s left the fingerprint unchanged", name)
		}
	}
}
