package torchonnx

import (
	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// ONNX Det: the determinant of each trailing n×n matrix, by Gaussian
// elimination with partial pivoting unrolled into one generic body per
// batch element (n is static and small).

func init() {
	onnxReg(onnxDet, "Det")
}

// maxDetN bounds the unrolled elimination (about n³/3 multiply-adds).
const maxDetN = 8

func onnxDet(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, rt := o.in(0), o.rts[0]
	xt := tt(x)
	r := len(xt.Dims)
	if r < 2 || xt.Dims[r-1] != xt.Dims[r-2] {
		return nil, o.errorf("needs square matrices in the last two dimensions, has %v", xt.Dims)
	}
	n := int(xt.Dims[r-1])
	if n > maxDetN {
		return nil, o.errorf("of %d×%d matrices is not supported by gree (at most %d×%d)", n, n, maxDetN, maxDetN)
	}
	if !ir.IsFloat(xt.Elem) || !ir.TypesEqual(rt, ir.Tensor(xt.Dims[:r-2], xt.Elem)) {
		return nil, o.errorf("needs float matrices and a result of the batch shape %v", xt.Dims[:r-2])
	}
	nb := r - 2
	g := linalg.BuildGeneric(o.b, nil, []*ir.Value{empty(o.b, rt)}, []*ir.AffineMap{linalg.Identity(nb)}, core.Parallel(nb), func(bb *ir.Builder, _ []*ir.Value) []*ir.Value {
		s := sc{bb, xt.Elem}
		var bix []*ir.Value
		for d := 0; d < nb; d++ {
			bix = append(bix, core.LoopIndex(bb, d))
		}
		a := make([][]*ir.Value, n)
		for i := range a {
			a[i] = make([]*ir.Value, n)
			for j := range a[i] {
				a[i][j] = extractAt(bb, x, append(append([]*ir.Value{}, bix...), cIdx(bb, int64(i)), cIdx(bb, int64(j))))
			}
		}
		sign := s.c(1)
		zero := s.c(0)
		for k := 0; k < n; k++ {
			// Bring the largest |a[i][k]|, i >= k, to row k.
			for i := k + 1; i < n; i++ {
				swap := s.cmp("gt", s.op("math.absf", a[i][k]), s.op("math.absf", a[k][k]), false)
				for j := k; j < n; j++ {
					ak, ai := a[k][j], a[i][j]
					a[k][j], a[i][j] = s.sel(swap, ai, ak), s.sel(swap, ak, ai)
				}
				sign = s.sel(swap, s.sub(zero, sign), sign)
			}
			// A zero pivot leaves a zero column: the determinant is 0.
			piv := a[k][k]
			nz := s.cmp("ne", piv, zero, false)
			safe := s.sel(nz, piv, s.c(1))
			for i := k + 1; i < n; i++ {
				f := s.sel(nz, s.div(a[i][k], safe, false), zero)
				for j := k + 1; j < n; j++ {
					a[i][j] = s.sub(a[i][j], s.mul(f, a[k][j]))
				}
			}
		}
		det := sign
		for k := 0; k < n; k++ {
			det = s.mul(det, a[k][k])
		}
		return []*ir.Value{det}
	})
	return []*ir.Value{g.Result(0)}, nil
}
