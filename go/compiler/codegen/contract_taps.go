package codegen

import (
	"slices"

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
// taps, a tapped contraction over f32 whose taps (A's dimensions, static)
// number at most maxContractTaps; others are lowered as loop nests.
func matchAnyContract(op linalg.Generic, taps bool) (contractShape, *linalg.Taps, bool) {
	if sh, ok := matchContract(op); ok {
		return sh, nil, true
	}
	if !taps {
		return contractShape{}, nil, false
	}
	sh, tp, ok := linalg.MatchTapped(op)
	if !ok || !allF32(op) || tapCount(op, &tp) > maxContractTaps {
		return sh, nil, false
	}
	return sh, &tp, true
}

// tapCount returns the number of taps of tapped contraction op, from A's
// static dimensions (maxContractTaps+1 when one is dynamic).
func tapCount(op linalg.Generic, tp *linalg.Taps) int64 {
	at := op.Op.Operands[0].Type.(*ir.RankedTensorType)
	n := int64(1)
	for r, e := range op.Maps()[0].Results {
		if slices.Contains(tp.Loops, e.(*ir.AffineDimExpr).Pos) {
			if at.Dims[r] < 0 {
				return maxContractTaps + 1
			}
			n *= at.Dims[r]
		}
	}
	return n
}

// emitTaps records the Contracts of a tapped contraction's workgroup
// tile (matchAnyContract's: static taps, at most maxContractTaps): args
// are the first tap's (A's and B's offsets then move by each tap's),
// flags apply to the first tap (ContractZero: its sums start at +0; the
// later taps add to C) and e to the last one's stores. Where the kernel
// would otherwise call one Contract helper (zeroing, with the fused
// epilogue), it calls three (zeroing, adding, adding with the epilogue):
// LLVM compiles resnet50 0.3-0.45 s longer, but a zero fill and an
// epilogue swept over the tile instead made each of resnet18's tapped
// convolutions 8% slower.
func (g *gen) emitTaps(l *genericLowering, tp *linalg.Taps, A *ir.Value, bindings [3]int, args [12]kir.Value, flags int64, e kir.ContractEpilogue) {
	top := g.b
	sizes := make([]int64, len(tp.Loops))
	n := int64(1)
	for i, t := range tp.Loops {
		sizes[i] = l.sizes[t].static
		n *= sizes[i]
	}
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
			// A moves along the tap's dimension, B along its columns
			// (args[5], B's column stride) by the tap's coefficient.
			a[0] = top.Bin(kir.Add, a[0], top.Bin(kir.Mul, g.idx(idx[i]), g.strideFor(A, l.maps[0], t)))
			a[3] = top.Bin(kir.Add, a[3], top.Bin(kir.Mul, g.idx(idx[i]*tp.Coefs[i]), args[5]))
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
}
