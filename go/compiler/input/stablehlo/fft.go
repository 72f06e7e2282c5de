package stablehlo

import (
	"math"
	"regexp"

	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// stablehlo.fft as discrete Fourier transforms: each transformed
// dimension is a contraction generic that sums x[j]·e^{∓2πi·jk/N} in f64
// (twiddles from an exact table indexed by jk mod N), so results are
// correctly rounded sums whatever the length (not only powers of two);
// long composite lengths factor into two such stages
// (fft_fast.go).
// A multi-dimensional transform is a sequence of one-dimensional ones:
// FFT/IFFT over each of the last len(fft_length) dimensions, RFFT the
// real-to-half-complex transform on the last one then FFT on the others,
// IRFFT the inverse on the others then half-complex-to-real on the last.

var fftTypeRe = regexp.MustCompile(`\b(FFT|IFFT|RFFT|IRFFT)\b`)

// dftMode selects one one-dimensional transform.
type dftMode int

const (
	dftForward    dftMode = iota // complex → complex, e^{-iθ}
	dftInverse                   // complex → complex, e^{+iθ}, scaled by 1/N
	dftReal                      // real → N/2+1 complex, e^{-iθ}
	dftHalfToReal                // N/2+1 complex → N real (Hermitian), scaled by 1/N
)

// hloFFT converts stablehlo.fft.
func (r *rewriter) hloFFT(b *ir.Builder, op *ir.Operation) error {
	m := fftTypeRe.FindStringSubmatch(attrText(op, "fft_type"))
	lengths := core.IntsOf(op, "fft_length")
	it, ok := op.Operands[0].Type.(*ir.RankedTensorType)
	rt, ok2 := op.Results[0].Type.(*ir.RankedTensorType)
	if m == nil || len(lengths) == 0 || !ok || !ok2 || !ir.HasStaticShape(it) || !ir.HasStaticShape(rt) {
		return ir.OpErrorf(op, "needs fft_type, fft_length and static shapes")
	}
	n := len(rt.Dims)
	if len(lengths) > n {
		return ir.OpErrorf(op, "has more fft_length entries than result dimensions")
	}
	for i, l := range lengths {
		d := n - len(lengths) + i
		if l <= 0 || (m[1] != "IRFFT" && rt.Dims[d] != l && !(m[1] == "RFFT" && i == len(lengths)-1)) {
			return ir.OpErrorf(op, "has an fft_length that does not match its result shape")
		}
	}
	x := op.Operands[0]
	first := n - len(lengths)
	last := n - 1
	var err error
	step := func(ax int, mode dftMode) {
		if err != nil {
			return
		}
		y, ok, e := r.fastDFT(b, op, x, ax, lengths[ax-first], mode)
		if !ok && e == nil {
			y, e = r.dft(b, op, x, ax, lengths[ax-first], mode)
		}
		x, err = y, e
	}
	switch m[1] {
	case "FFT", "IFFT":
		mode := dftForward
		if m[1] == "IFFT" {
			mode = dftInverse
		}
		for ax := last; ax >= first; ax-- {
			step(ax, mode)
		}
	case "RFFT":
		step(last, dftReal)
		for ax := last - 1; ax >= first; ax-- {
			step(ax, dftForward)
		}
	case "IRFFT":
		for ax := first; ax < last; ax++ {
			step(ax, dftInverse)
		}
		step(last, dftHalfToReal)
	}
	if err != nil {
		return err
	}
	r.replacePairs(op, []*ir.Value{x})
	return nil
}

// dft transforms logical dimension ax of x (a pair tensor, or a real
// tensor for dftReal) with transform length size.
func (r *rewriter) dft(b *ir.Builder, op *ir.Operation, x *ir.Value, ax int, size int64, mode dftMode) (*ir.Value, error) {
	xt := x.Type.(*ir.RankedTensorType)
	et, ok := xt.Elem.(*ir.FloatType)
	if !ok || (et.Kind != ir.KindF32 && et.Kind != ir.KindF64) {
		return nil, ir.OpErrorf(op, "on %v elements is not supported by gree yet (f32 and f64 only)", xt.Elem)
	}
	inComplex := mode != dftReal
	outComplex := mode != dftHalfToReal
	dims := append([]int64{}, xt.Dims...)
	if inComplex {
		dims = dims[:len(dims)-1]
	}
	n := len(dims)
	inLen := dims[ax]
	outLen := size
	switch mode {
	case dftReal:
		outLen = size/2 + 1
		if inLen < size {
			return nil, ir.OpErrorf(op, "has an input shorter than its fft_length")
		}
	case dftHalfToReal:
		if inLen < size/2+1 {
			return nil, ir.OpErrorf(op, "has an input shorter than fft_length/2+1")
		}
		inLen = size/2 + 1
	default:
		if inLen != size {
			return nil, ir.OpErrorf(op, "has an input length that differs from its fft_length")
		}
	}
	if mode == dftReal {
		inLen = size
	}
	// Loops: the n output dimensions (ax indexes the output), the
	// component (complex outputs), then the reduction over the input.
	loops := n + 1
	if outComplex {
		loops++
	}
	red := loops - 1
	inMap := func(comp int64) *ir.AffineMap {
		m := &ir.AffineMap{NumDims: loops}
		for i := 0; i < n; i++ {
			if i == ax {
				m.Results = append(m.Results, &ir.AffineDimExpr{Pos: red})
			} else {
				m.Results = append(m.Results, &ir.AffineDimExpr{Pos: i})
			}
		}
		if comp >= 0 {
			m.Results = append(m.Results, &ir.AffineConstantExpr{Value: comp})
		}
		return m
	}
	ins := []*ir.Value{x}
	maps := []*ir.AffineMap{inMap(-1)}
	if inComplex {
		ins = []*ir.Value{x, x}
		maps = []*ir.AffineMap{inMap(0), inMap(1)}
	}
	// A tensor with the reduction's length gives that loop its size when
	// the input is longer than the transform (RFFT/IRFFT inputs may be).
	ins = append(ins, b.Create("tensor.empty", nil, []ir.Type{ir.Tensor([]int64{inLen}, ir.F64)}).Result(0))
	maps = append(maps, linalg.DimMap(loops, red))
	outDims := append([]int64{}, dims...)
	outDims[ax] = outLen
	if outComplex {
		outDims = append(outDims, 2)
	}
	accT := ir.Tensor(outDims, ir.F64)
	acc := zeroFilled(b, accT)
	maps = append(maps, linalg.DimMap(loops, seq(loops-1)...))
	its := core.Parallel(loops)
	its[red] = linalg.Reduction
	cosT, sinT := twiddleTables(b, size)
	g := linalg.BuildGeneric(b, ins, []*ir.Value{acc}, maps, its, func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		f := fb{bb, ir.F64}
		ext := func(v *ir.Value) *ir.Value { return core.Cast(bb, v, ir.F64) }
		xr := ext(args[0])
		var xi *ir.Value
		if inComplex {
			xi = ext(args[1])
		}
		k, j := core.LoopIndex(bb, ax), core.LoopIndex(bb, red)
		t := core.BinOp(bb, "arith.remui", core.BinOp(bb, "arith.muli", k, j), bb.Constant(ir.IntAttr(size, ir.Index)))
		c := bb.Create("tensor.extract", []*ir.Value{cosT, t}, []ir.Type{ir.F64}).Result(0)
		s := bb.Create("tensor.extract", []*ir.Value{sinT, t}, []ir.Type{ir.F64}).Result(0)
		var re, im *ir.Value
		switch mode {
		case dftForward:
			re, im = f.add(f.mul(xr, c), f.mul(xi, s)), f.sub(f.mul(xi, c), f.mul(xr, s))
		case dftInverse:
			re, im = f.sub(f.mul(xr, c), f.mul(xi, s)), f.add(f.mul(xi, c), f.mul(xr, s))
		case dftReal:
			re, im = f.mul(xr, c), f.neg(f.mul(xr, s))
		case dftHalfToReal:
			// Bins 1 … ⌈N/2⌉-1 stand for themselves and their mirror images.
			zeroBin := core.CmpI(bb, core.PredEQ, j, bb.Constant(ir.IntAttr(0, ir.Index)))
			nyq := core.CmpI(bb, core.PredEQ, core.BinOp(bb, "arith.addi", j, j), bb.Constant(ir.IntAttr(size, ir.Index)))
			w := f.sel(bb.Create("arith.ori", []*ir.Value{zeroBin, nyq}, []ir.Type{ir.I1}).Result(0), f.c(1), f.c(2))
			re = f.mul(w, f.sub(f.mul(xr, c), f.mul(xi, s)))
		}
		term := re
		if outComplex {
			isRe := core.CmpI(bb, core.PredEQ, core.LoopIndex(bb, n), bb.Constant(ir.IntAttr(0, ir.Index)))
			term = f.sel(isRe, re, im)
		}
		return []*ir.Value{f.add(args[len(args)-1], term)}
	})
	// Round to the element type, scaling the inverse transforms.
	scale := 1.0
	if mode == dftInverse || mode == dftHalfToReal {
		scale = 1 / float64(size)
	}
	outT := ir.Tensor(outDims, et)
	k := len(outDims)
	out := b.Create("tensor.empty", nil, []ir.Type{outT}).Result(0)
	res := linalg.BuildGeneric(b, g.Results, []*ir.Value{out}, []*ir.AffineMap{linalg.Identity(k), linalg.Identity(k)}, core.Parallel(k), func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		v := args[0]
		if scale != 1 {
			v = fb{bb, ir.F64}.mul(v, bb.Constant(ir.FloatAttrOf(scale, ir.F64)))
		}
		return []*ir.Value{core.Cast(bb, v, et)}
	})
	return res.Result(0), nil
}

// twiddleTables returns f64 constants cos(2πt/N) and sin(2πt/N) for
// t < N, computed from the angle reduced to the first octant's symmetry
// so that exact values (0, ±1) come out exact.
func twiddleTables(b *ir.Builder, size int64) (*ir.Value, *ir.Value) {
	cs, sn := make([]float64, size), make([]float64, size)
	for t := int64(0); t < size; t++ {
		cs[t], sn[t] = twiddle(t, size)
	}
	typ := ir.Tensor([]int64{size}, ir.F64)
	return b.Constant(&ir.DenseElementsAttr{Type: typ, Floats: cs}), b.Constant(&ir.DenseElementsAttr{Type: typ, Floats: sn})
}

// twiddle returns cos and sin of 2πt/n, exact at multiples of π/2.
func twiddle(t, n int64) (float64, float64) {
	switch {
	case 4*t == 0:
		return 1, 0
	case 4*t == n:
		return 0, 1
	case 2*t == n:
		return -1, 0
	case 4*t == 3*n:
		return 0, -1
	}
	a := 2 * math.Pi * float64(t) / float64(n)
	return math.Cos(a), math.Sin(a)
}

// zeroFilled returns a tensor of type t filled with zeros.
func zeroFilled(b *ir.Builder, t *ir.RankedTensorType) *ir.Value {
	var z *ir.Value
	if ft, ok := t.Elem.(*ir.FloatType); ok {
		z = b.Constant(ir.FloatAttrOf(0, ft))
	} else {
		z = b.Constant(ir.IntAttr(0, t.Elem))
	}
	e := b.Create("tensor.empty", nil, []ir.Type{t}).Result(0)
	k := len(t.Dims)
	return linalg.BuildGeneric(b, []*ir.Value{z}, []*ir.Value{e}, []*ir.AffineMap{{NumDims: k}, linalg.Identity(k)}, core.Parallel(k), core.YieldArg(0, t)).Result(0)
}
