package codegen

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// A tapped contraction (linalg.MatchTapped) runs as one Contract per
// tap: the tap's A and B shifted by its offset, all accumulating into the
// workgroup's C tile, so a convolution's windows are never copied to
// memory. Only where the strategy says so (Strategy.ContractTaps): a
// GPU's Contract expands inline into thousands of kir lines, and flow
// gives its targets windows and one product instead (flow.Options.Untap).

// maxContractTaps bounds the taps a tapped contraction unrolls into.
const maxContractTaps = 49

// matchAnyContract recognizes a matmul-shaped generic (taps nil) or, with
// taps, a tapped contraction, over f32.
func matchAnyContract(op linalg.Generic, taps bool) (contractShape, *linalg.Taps, bool) {
	if sh, ok := matchContract(op); ok {
		return sh, nil, true
	}
	if !taps {
		return contractShape{}, nil, false
	}
	sh, tp, ok := linalg.MatchTapped(op)
	if !ok {
		return sh, nil, false
	}
	for _, v := range op.Op.Operands {
		t, ok := v.Type.(*ir.RankedTensorType)
		if !ok || t.Elem.String() != "f32" {
			return sh, nil, false
		}
	}
	return sh, &tp, true
}

// emitTaps records the Contracts of a tapped contraction's workgroup
// tile: args are the first tap's (A's and B's offsets then move by each
// tap's), flags apply to the first tap (ContractZero: its sums start at
// +0; the later taps add to C) and e to the last one's stores. Where the
// kernel would otherwise call one Contract helper (zeroing, with the
// fused epilogue), it calls three (zeroing, adding, adding with the
// epilogue): LLVM compiles resnet50 0.3-0.45 s longer, but a zero fill
// and an epilogue swept over the tile instead made each of resnet18's
// tapped convolutions 8% slower. It fails when a tap loop is not static
// or there are more than maxContractTaps taps.
func (g *gen) emitTaps(l *genericLowering, tp *linalg.Taps, A, B *ir.Value, bindings [3]int, args [12]kir.Value, flags int64, e kir.ContractEpilogue) error {
	top := g.b
	sizes := make([]int64, len(tp.Loops))
	n := int64(1)
	for i, t := range tp.Loops {
		sizes[i] = l.sizes[t].static
		if sizes[i] <= 0 {
			return l.errorf("tapped contraction: tap loop %d has no static size", t)
		}
		n *= sizes[i]
	}
	if n > maxContractTaps {
		return l.errorf("tapped contraction: %d taps, more than %d", n, maxContractTaps)
	}
	bCol := g.strides[B][1]
	idx := make([]int64, len(sizes))
	for tap := int64(0); tap < n; tap++ {
		r := tap
		for i := len(sizes) - 1; i >= 0; i-- {
			idx[i], r = r%sizes[i], r/sizes[i]
		}
		a := args
		for i, t := range tp.Loops {
			if idx[i] == 0 {
				continue
			}
			a[0] = top.Bin(kir.Add, a[0], top.Bin(kir.Mul, g.idx(idx[i]), g.strideFor(A, l.maps[0], t)))
			a[3] = top.Bin(kir.Add, a[3], top.Bin(kir.Mul, g.idx(idx[i]*tp.Coefs[i]), bCol))
		}
		f, te := int64(0), kir.NoContractEpilogue
		if tap == 0 {
			f = flags
		}
		if tap == n-1 {
			te = e
		}
		top.ContractWith(bindings[0], bindings[1], bindings[2], a, f, te)
	}
	return nil
}
