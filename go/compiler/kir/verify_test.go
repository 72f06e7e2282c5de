package kir

import (
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/status"
)

func TestVerifyRejects(t *testing.T) {
	cases := []struct {
		name  string
		build func(k *Kernel, b *Builder)
		want  string
	}{
		{"use before def", func(k *Kernel, b *Builder) {
			v := b.NewValue(S(I64))
			b.Bin(Add, v, v)
		}, "before its definition"},
		{"out of scope", func(k *Kernel, b *Builder) {
			var inner Value
			b.For(b.Idx(0), b.Idx(1), b.Idx(1), nil, func(b *Builder, i Value, _ []Value) []Value {
				inner = b.Bin(Add, i, i)
				return nil
			})
			b.Bin(Add, inner, inner)
		}, "outside the region"},
		{"double def", func(k *Kernel, b *Builder) {
			v := b.Idx(1)
			b.Append(&Op{Kind: ConstInt, Results: []Value{v}})
		}, "second time"},
		{"type mismatch", func(k *Kernel, b *Builder) {
			b.Emit(Add, S(I64), b.Idx(1), b.Int(S(I32), 1))
		}, "differ"},
		{"int op on float", func(k *Kernel, b *Builder) {
			x := b.Float(S(F32), 1)
			b.Bin(DivS, x, x)
		}, "not defined on f32"},
		{"float unary on int", func(k *Kernel, b *Builder) { b.Emit(Exp, S(I32), b.Int(S(I32), 1)) }, "not defined"},
		{"binding out of range", func(k *Kernel, b *Builder) { b.Load(3, S(F32), b.Idx(0)) }, "binding 3 of 0"},
		{"write to read-only", func(k *Kernel, b *Builder) {
			k.Bindings = []Binding{{Elem: F32, Access: Read}}
			b.Store(0, b.Idx(0), b.Float(S(F32), 1))
		}, "needs write access"},
		{"load wrong elem", func(k *Kernel, b *Builder) {
			k.Bindings = []Binding{{Elem: F32, Access: Read}}
			b.Load(0, S(I32), b.Idx(0))
		}, "loads i32"},
		{"float offset", func(k *Kernel, b *Builder) {
			k.Bindings = []Binding{{Elem: F32, Access: Read}}
			b.Load(0, S(F32), b.Float(S(F32), 0))
		}, "want i64"},
		{"push constant", func(k *Kernel, b *Builder) { b.Query(PushConstant, 2) }, "push constant 2 of 0"},
		{"dimension", func(k *Kernel, b *Builder) { b.Query(WorkgroupID, 3) }, "dimension 3"},
		{"bad cast", func(k *Kernel, b *Builder) { b.Emit(ExtS, S(I8), b.Int(S(I32), 1)) }, "cannot convert"},
		{"cast lanes", func(k *Kernel, b *Builder) { b.Emit(SIToFP, V(F32, 4), b.Int(V(I32, 8), 1)) }, "cannot convert"},
		{"extract lane", func(k *Kernel, b *Builder) { b.EmitImm(Extract, S(F32), 4, b.Float(V(F32, 4), 1)) }, "lane 4"},
		{"reduce kind", func(k *Kernel, b *Builder) { b.Reduce(ReduceMaxF, b.Int(V(I32, 4), 1)) }, "reduction kind"},
		{"cmp pred", func(k *Kernel, b *Builder) { b.Cmp(CmpI, 10, b.Idx(0), b.Idx(1)) }, "predicate 10"},
		{"select cond", func(k *Kernel, b *Builder) {
			x := b.Float(V(F32, 4), 1)
			b.Select(b.Int(V(I1, 2), 1), x, x)
		}, "condition"},
		{"yield types", func(k *Kernel, b *Builder) {
			b.For(b.Idx(0), b.Idx(1), b.Idx(1), []Value{b.Idx(0)}, func(b *Builder, i Value, _ []Value) []Value {
				return []Value{b.Float(S(F32), 1)}
			})
		}, "yield 0 has type f32"},
		{"yield count", func(k *Kernel, b *Builder) {
			b.If(b.Int(S(I1), 1), []Type{S(I64)}, func(b *Builder) []Value { return nil }, func(b *Builder) []Value { return nil })
		}, "yields 0 values"},
		{"missing yield", func(k *Kernel, b *Builder) {
			b.For(b.Idx(0), b.Idx(1), b.Idx(1), nil, func(b *Builder, i Value, _ []Value) []Value { return nil })
			body := k.Body.Ops[len(k.Body.Ops)-1].Regions[0]
			body.Ops = body.Ops[:len(body.Ops)-1]
		}, "no yield"},
		{"yield not last", func(k *Kernel, b *Builder) {
			b.Append(&Op{Kind: Yield})
			b.Idx(1)
		}, "last op"},
		{"float bounds", func(k *Kernel, b *Builder) {
			x := b.Float(S(F32), 1)
			b.For(x, x, x, nil, func(b *Builder, i Value, _ []Value) []Value { return nil })
		}, "bound 0"},
		{"contract access", func(k *Kernel, b *Builder) {
			k.Bindings = []Binding{{Elem: F32, Access: Read}, {Elem: F32, Access: Read}, {Elem: F32, Access: Write}}
			var a [12]Value
			for i := range a {
				a[i] = b.Idx(1)
			}
			b.Contract(0, 1, 2, a, 0)
		}, "needs readwrite"},
		{"contract zero access", func(k *Kernel, b *Builder) {
			k.Bindings = []Binding{{Elem: F32, Access: Read}, {Elem: F32, Access: Read}, {Elem: F32, Access: Read}}
			var a [12]Value
			for i := range a {
				a[i] = b.Idx(1)
			}
			b.Contract(0, 1, 2, a, ContractZero)
		}, "needs write"},
		{"contract flags", func(k *Kernel, b *Builder) {
			k.Bindings = []Binding{{Elem: F32, Access: Read}, {Elem: F32, Access: Read}, {Elem: F32, Access: ReadWrite}}
			var a [12]Value
			for i := range a {
				a[i] = b.Idx(1)
			}
			b.Contract(0, 1, 2, a, 128)
		}, "flags 0x80"},
		{"contract mix", func(k *Kernel, b *Builder) {
			k.Bindings = []Binding{{Elem: I8, Access: Read}, {Elem: F32, Access: Read}, {Elem: F32, Access: ReadWrite}}
			var a [12]Value
			for i := range a {
				a[i] = b.Idx(1)
			}
			b.Contract(0, 1, 2, a, 0)
		}, "mixes"},
		{"workgroup size", func(k *Kernel, b *Builder) { k.WorkgroupSize[1] = 0 }, "workgroup size"},
		{"grid push constant", func(k *Kernel, b *Builder) { k.Grid[0].PushConstants = []int{0} }, "grid dimension 0"},
		{"bad access", func(k *Kernel, b *Builder) { k.Bindings = []Binding{{Elem: F32}} }, "invalid access"},
		{"regions on add", func(k *Kernel, b *Builder) {
			x := b.Idx(1)
			b.Block.Ops[len(b.Block.Ops)-1].Regions = []*Block{{}}
			_ = x
		}, "has regions"},
		{"value without type", func(k *Kernel, b *Builder) {
			b.Append(&Op{Kind: ConstInt, Results: []Value{99}})
		}, "has no type"},
	}
	for _, c := range cases {
		k, b := NewKernel("bad")
		c.build(k, b)
		err := Verify(k)
		if err == nil {
			t.Errorf("%s: Verify accepted\n%s", c.name, k)
			continue
		}
		if status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want INVALID_ARGUMENT mentioning %q", c.name, err, c.want)
		}
	}
}

func TestVerifyAccepts(t *testing.T) {
	k, b := NewKernel("ok")
	k.Bindings = []Binding{{Elem: I8, Access: Read}, {Elem: I8, Access: Read}, {Elem: I32, Access: ReadWrite}}
	var a [12]Value
	for i := range a {
		a[i] = b.Idx(1)
	}
	b.Contract(0, 1, 2, a, 1)
	b.Contract(0, 1, 2, a, ContractUnsigned|ContractZero)
	k.Bindings = append(k.Bindings, Binding{Elem: I32, Access: Write})
	b.Contract(0, 1, 3, a, ContractZero) // C = A·B needs only write access
	x := b.Float(V(F16, 4), 1)
	b.Select(b.Int(S(I1), 1), x, x)
	b.If(b.Int(S(I1), 0), nil, func(b *Builder) []Value { return nil }, nil)
	b.Append(&Op{Kind: Yield})
	if err := Verify(k); err != nil {
		t.Fatal(err)
	}
}
