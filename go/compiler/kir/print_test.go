package kir

import "testing"

func TestPrint(t *testing.T) {
	k, b := NewKernel("scale")
	k.Bindings = []Binding{{Elem: F32, Access: Read}, {Elem: F32, Access: ReadWrite}}
	k.NumPushConstants = 1
	k.Grid[0] = GridDim{Static: 1, PushConstants: []int{0}, Tile: 8}
	n := b.Query(PushConstant, 0)
	zero := b.Idx(0)
	sum := b.For(zero, n, b.Idx(8), []Value{b.Float(S(F32), 0)}, func(b *Builder, i Value, it []Value) []Value {
		x := b.Load(0, V(F32, 8), i)
		pos := b.Cmp(CmpF, FPredOGT, b.Reduce(ReduceAdd, x), it[0])
		r := b.If(pos, []Type{S(F32)}, func(b *Builder) []Value {
			return []Value{b.Reduce(ReduceMaxF, x)}
		}, func(b *Builder) []Value { return []Value{it[0]} })
		b.Store(1, i, b.Bin(Mul, x, b.Emit(Broadcast, V(F32, 8), r[0])))
		return r
	})
	b.Store(1, zero, sum[0])
	want := `kernel @scale(b0: f32 read, b1: f32 readwrite) push_constants(1) workgroup_size(1, 1, 1)
    grid(ceil(1*pc0/8), ceil(1/1), ceil(1/1))
{
  %0 = push_constant 0 : i64
  %1 = constant 0 : i64
  %2 = constant 8 : i64
  %3 = constant 0 : f32
  %6 = for %4 = %1 to %0 step %2 iter(%5 = %3) -> (f32) {
    %7 = load b0[%4] : vector<8xf32>
    %8 = reduce add %7 : vector<8xf32>
    %9 = cmpf ogt, %8, %5 : f32, f32
    %10 = if %9 -> (f32) {
      %11 = reduce maximumf %7 : vector<8xf32>
      yield %11 : f32
    } else {
      yield %5 : f32
    }
    %12 = broadcast %10 : f32 to vector<8xf32>
    %13 = mul %7, %12 : vector<8xf32>
    store %13, b1[%4] : vector<8xf32>
    yield %10 : f32
  }
  store %6, b1[%1] : f32
}
`
	if got := k.String(); got != want {
		t.Errorf("String() =\n%s\nwant\n%s", got, want)
	}
	if err := Verify(k); err != nil {
		t.Fatal(err)
	}
}
