package stablehlo

import (
	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// Long transforms factor N = N1·N2 (Cooley–Tukey, one level): with
// n = N2·n1 + n2 and k = k1 + N1·k2,
//
//	Y[k1, n2] = Σ_n1 x[N2·n1 + n2] · W^(k1·(N2·n1 + n2))     (twiddles folded in)
//	X[k1 + N1·k2] = Σ_n2 Y[k1, n2] · W^(N1·n2·k2)
//
// with W = e^(∓2πi/N), so a transform costs N·(N1+N2) multiply-adds
// instead of N². Both stages accumulate in f64 with the same exact
// twiddle table as the direct DFT. Real transforms go through the complex
// one: RFFT on the real input with zero imaginary parts (keeping the first
// N/2+1 outputs), IRFFT on the Hermitian extension of its input (taking
// the real part).

// fftSplit returns N1, the largest divisor of n not above √n, when the
// factored transform pays off (0 otherwise: short or prime lengths).
func fftSplit(n int64) int64 {
	if n < 16 {
		return 0
	}
	best := int64(0)
	for d := int64(2); d*d <= n; d++ {
		if n%d == 0 {
			best = d
		}
	}
	return best
}

// fastDFT is dft through the factored algorithm; ok is false when size
// does not factor usefully.
func (r *rewriter) fastDFT(b *ir.Builder, op *ir.Operation, x *ir.Value, ax int, size int64, mode dftMode) (*ir.Value, bool, error) {
	n1 := fftSplit(size)
	xt := x.Type.(*ir.RankedTensorType)
	et, isF := xt.Elem.(*ir.FloatType)
	if n1 == 0 || !isF || (et.Kind != ir.KindF32 && et.Kind != ir.KindF64) {
		return nil, false, nil
	}
	n2 := size / n1
	dims := append([]int64{}, xt.Dims...)
	if mode != dftReal {
		dims = dims[:len(dims)-1]
	}
	inLen := dims[ax]
	switch {
	case mode == dftReal && inLen < size, mode == dftHalfToReal && inLen < size/2+1,
		(mode == dftForward || mode == dftInverse) && inLen != size:
		return nil, false, nil // dft reports the shape error
	}
	n := len(dims)
	full := append([]int64{}, dims...)
	full[ax] = size
	var p *ir.Value
	switch mode {
	case dftReal:
		p = realToPair(b, x, full)
	case dftHalfToReal:
		p = hermitianExtension(b, x, full, ax)
	default:
		p = x
	}
	sign := -1.0
	if mode == dftInverse || mode == dftHalfToReal {
		sign = 1
	}
	cosT, sinT := twiddleTables(b, size)
	// Stage 1: Y over (pre…, k1, n2, post…, c), reduction n1.
	split := func(a, c int64) []int64 {
		d := append(append(append([]int64{}, full[:ax]...), a, c), full[ax+1:]...)
		return append(d, 2)
	}
	yDims := split(n1, n2)
	loops := len(yDims) + 1
	red := loops - 1
	comp := n + 1
	dim := func(i int) ir.AffineExpr { return &ir.AffineDimExpr{Pos: i} }
	pMap := func(c int64, along ir.AffineExpr) *ir.AffineMap {
		m := &ir.AffineMap{NumDims: loops}
		for i := 0; i < n; i++ {
			switch {
			case i < ax:
				m.Results = append(m.Results, dim(i))
			case i == ax:
				m.Results = append(m.Results, along)
			default:
				m.Results = append(m.Results, dim(i+1))
			}
		}
		m.Results = append(m.Results, &ir.AffineConstantExpr{Value: c})
		return m
	}
	along1 := ir.AffineBinary(ir.AffineAdd, ir.AffineBinary(ir.AffineMul, dim(red), &ir.AffineConstantExpr{Value: n2}), dim(ax+1))
	its := core.Parallel(loops)
	its[red] = linalg.Reduction
	outMap := linalg.DimMap(loops, seq(loops-1)...)
	// A tensor with the reduction's length sizes that loop.
	sizer := func(l int64) *ir.Value {
		return b.Create("tensor.empty", nil, []ir.Type{ir.Tensor([]int64{l}, ir.F64)}).Result(0)
	}
	cmac := func(bb *ir.Builder, xr, xi, acc *ir.Value, t *ir.Value) *ir.Value {
		f := fb{bb, ir.F64}
		c := bb.Create("tensor.extract", []*ir.Value{cosT, t}, []ir.Type{ir.F64}).Result(0)
		s := f.mul(f.c(sign), bb.Create("tensor.extract", []*ir.Value{sinT, t}, []ir.Type{ir.F64}).Result(0))
		re := f.sub(f.mul(xr, c), f.mul(xi, s))
		im := f.add(f.mul(xr, s), f.mul(xi, c))
		isRe := core.CmpI(bb, core.PredEQ, core.LoopIndex(bb, comp), bb.Constant(ir.IntAttr(0, ir.Index)))
		return f.add(acc, f.sel(isRe, re, im))
	}
	ci := func(bb *ir.Builder, v int64) *ir.Value { return bb.Constant(ir.IntAttr(v, ir.Index)) }
	y := linalg.BuildGeneric(b, []*ir.Value{p, p, sizer(n1)}, []*ir.Value{zeroFilled(b, ir.Tensor(yDims, ir.F64))},
		[]*ir.AffineMap{pMap(0, along1), pMap(1, along1), linalg.DimMap(loops, red), outMap}, its,
		func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
			// t = k1·(N2·n1 + n2) mod N
			j := core.BinOp(bb, "arith.addi", core.BinOp(bb, "arith.muli", core.LoopIndex(bb, red), ci(bb, n2)), core.LoopIndex(bb, ax+1))
			t := core.BinOp(bb, "arith.remui", core.BinOp(bb, "arith.muli", core.LoopIndex(bb, ax), j), ci(bb, size))
			return []*ir.Value{cmac(bb, core.Cast(bb, a[0], ir.F64), core.Cast(bb, a[1], ir.F64), a[3], t)}
		}).Result(0)
	// Stage 2: Z over (pre…, k2, k1, post…, c), reduction n2, reading
	// Y[pre…, k1, n2, post…, c].
	zDims := split(n2, n1)
	yMap := func(c int64) *ir.AffineMap {
		m := &ir.AffineMap{NumDims: loops}
		for i := 0; i < n+1; i++ {
			switch {
			case i == ax:
				m.Results = append(m.Results, dim(ax+1)) // k1
			case i == ax+1:
				m.Results = append(m.Results, dim(red)) // n2
			default:
				m.Results = append(m.Results, dim(i))
			}
		}
		m.Results = append(m.Results, &ir.AffineConstantExpr{Value: c})
		return m
	}
	z := linalg.BuildGeneric(b, []*ir.Value{y, y, sizer(n2)}, []*ir.Value{zeroFilled(b, ir.Tensor(zDims, ir.F64))},
		[]*ir.AffineMap{yMap(0), yMap(1), linalg.DimMap(loops, red), outMap}, its,
		func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
			// t = N1·((n2·k2) mod N2)
			t := core.BinOp(bb, "arith.remui", core.BinOp(bb, "arith.muli", core.LoopIndex(bb, red), core.LoopIndex(bb, ax)), ci(bb, n2))
			t = core.BinOp(bb, "arith.muli", t, ci(bb, n1))
			return []*ir.Value{cmac(bb, a[0], a[1], a[3], t)}
		}).Result(0)
	// (…, k2, k1, …) is row-major k = k2·N1 + k1: a reshape joins them.
	pt := ir.Tensor(append(append([]int64{}, full...), 2), ir.F64)
	shape := b.Constant(&ir.DenseElementsAttr{Type: ir.Tensor([]int64{int64(len(pt.Dims))}, ir.I64), Ints: pt.Dims})
	zf := b.Create("tensor.reshape", []*ir.Value{z, shape}, []ir.Type{pt}).Result(0)
	// Round to the element type: scale the inverses, keep N/2+1 bins of
	// an RFFT, the real part of an IRFFT.
	scale := 1.0
	if mode == dftInverse || mode == dftHalfToReal {
		scale = 1 / float64(size)
	}
	outDims := append([]int64{}, full...)
	if mode == dftReal {
		outDims[ax] = size/2 + 1
	}
	var m *ir.AffineMap
	if mode == dftHalfToReal {
		re, _ := pairMaps(n, n)
		m = re
	} else {
		outDims = append(outDims, 2)
		m = linalg.Identity(n + 1)
	}
	k := len(outDims)
	out := b.Create("tensor.empty", nil, []ir.Type{ir.Tensor(outDims, et)}).Result(0)
	res := linalg.BuildGeneric(b, []*ir.Value{zf}, []*ir.Value{out}, []*ir.AffineMap{m, linalg.Identity(k)}, core.Parallel(k), func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
		v := a[0]
		if scale != 1 {
			v = fb{bb, ir.F64}.mul(v, bb.Constant(ir.FloatAttrOf(scale, ir.F64)))
		}
		return []*ir.Value{core.Cast(bb, v, et)}
	})
	return res.Result(0), true, nil
}

// realToPair makes a pair tensor of shape full from the first full[ax]
// elements of a real tensor, with zero imaginary parts.
func realToPair(b *ir.Builder, x *ir.Value, full []int64) *ir.Value {
	et := ir.ElementTypeOf(x.Type)
	n := len(full)
	pt := ir.Tensor(append(append([]int64{}, full...), 2), et)
	out := b.Create("tensor.empty", nil, []ir.Type{pt}).Result(0)
	return linalg.BuildGeneric(b, []*ir.Value{x}, []*ir.Value{out}, []*ir.AffineMap{linalg.DimMap(n+1, seq(n)...), linalg.Identity(n + 1)}, core.Parallel(n+1),
		func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
			f := fb{bb, et}
			isRe := core.CmpI(bb, core.PredEQ, core.LoopIndex(bb, n), bb.Constant(ir.IntAttr(0, ir.Index)))
			return []*ir.Value{f.sel(isRe, a[0], f.c(0))}
		}).Result(0)
}

// hermitianExtension builds the full spectrum of length full[ax] from its
// first half (X[k] = conj(X[N-k]) above N/2), as a pair tensor.
func hermitianExtension(b *ir.Builder, x *ir.Value, full []int64, ax int) *ir.Value {
	et := ir.ElementTypeOf(x.Type)
	n := len(full)
	size := full[ax]
	half := size / 2
	pt := ir.Tensor(append(append([]int64{}, full...), 2), et)
	out := b.Create("tensor.empty", nil, []ir.Type{pt}).Result(0)
	return linalg.BuildGeneric(b, nil, []*ir.Value{out}, []*ir.AffineMap{linalg.Identity(n + 1)}, core.Parallel(n+1),
		func(bb *ir.Builder, _ []*ir.Value) []*ir.Value {
			f := fb{bb, et}
			c := func(v int64) *ir.Value { return bb.Constant(ir.IntAttr(v, ir.Index)) }
			k := core.LoopIndex(bb, ax)
			mirror := core.CmpI(bb, 4, k, c(half)) // sgt: k > N/2
			src := bb.Create("arith.select", []*ir.Value{mirror, core.BinOp(bb, "arith.subi", c(size), k), k}, []ir.Type{ir.Index}).Result(0)
			var ix []*ir.Value
			for i := 0; i <= n; i++ {
				if i == ax {
					ix = append(ix, src)
				} else {
					ix = append(ix, core.LoopIndex(bb, i))
				}
			}
			v := bb.Create("tensor.extract", append([]*ir.Value{x}, ix...), []ir.Type{et}).Result(0)
			isIm := core.CmpI(bb, core.PredEQ, core.LoopIndex(bb, n), c(1))
			flip := bb.Create("arith.andi", []*ir.Value{mirror, isIm}, []ir.Type{ir.I1}).Result(0)
			return []*ir.Value{f.sel(flip, f.neg(v), v)}
		}).Result(0)
}
