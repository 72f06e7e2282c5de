package vmvx_test

import (
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/vmvx"
	rt "github.com/gree-ml/gree/go/runtime/hal/local/vmvx"
)

// BenchmarkAddMulChain runs an emitted kernel: per workgroup, load two
// 1024-lane f32 vectors, apply 32 adds and muls, store. It reports the
// cost per lane of one arithmetic op (loads and stores included).
func BenchmarkAddMulChain(b *testing.B) {
	const lanes, ops, groups = 1024, 32, 16
	k, bb := kir.NewKernel("chain")
	k.Bindings = []kir.Binding{{Elem: kir.F32, Access: kir.Read}, {Elem: kir.F32, Access: kir.Read}, {Elem: kir.F32, Access: kir.Write}}
	vt := kir.V(kir.F32, lanes)
	off := bb.Bin(kir.Mul, bb.Query(kir.WorkgroupID, 0), bb.Idx(lanes))
	x, y := bb.Load(0, vt, off), bb.Load(1, vt, off)
	for i := 0; i < ops; i++ {
		if i%2 == 0 {
			x = bb.Bin(kir.Add, x, y)
		} else {
			x = bb.Bin(kir.Mul, x, y)
		}
	}
	bb.Store(2, off, x)
	data, err := vmvx.Emit([]*kir.Kernel{k})
	if err != nil {
		b.Fatal(err)
	}
	ex, err := rt.Load(data)
	if err != nil {
		b.Fatal(err)
	}
	ones := make([]float32, lanes*groups)
	for i := range ones {
		ones[i] = 0.5
	}
	bufs := [][]byte{f32s(ones...), f32s(ones...), make([]byte, 4*lanes*groups)}
	st := rt.NewState()
	grid := [3]int64{groups, 1, 1}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for g := int64(0); g < groups; g++ {
			if err := ex.RunWorkgroup(st, 0, [3]int64{g, 0, 0}, grid, nil, bufs); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(ops*lanes*groups), "ns/lane-op")
}
