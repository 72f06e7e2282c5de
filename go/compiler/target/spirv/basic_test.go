package spirv_test

import (
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
)

func TestElementwiseAdd(t *testing.T) {
	k, b := kir.NewKernel("add")
	k.Bindings = []kir.Binding{{Elem: kir.F32, Access: kir.Read}, {Elem: kir.F32, Access: kir.Read}, {Elem: kir.F32, Access: kir.Write}}
	i := b.Query(kir.WorkgroupID, 0)
	x, y := b.Load(0, kir.S(kir.F32), i), b.Load(1, kir.S(kir.F32), i)
	b.Store(2, i, b.Bin(kir.Add, x, y))
	e := emit(t, k)
	if !e.Reports() || len(e.Bindings) != 3 {
		t.Fatalf("entry %+v", e)
	}
}
