package torchonnx

import (
	"math"

	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
)

// antialiasTaps gives the taps of antialiased linear or cubic Resize along
// one dimension (ONNX's reference: when downsampling, the filter is
// stretched by 1/scale and its weights normalized). The tap count comes
// from the smallest scale the static shapes allow (minScale = out/in: the
// widest filter); at a larger run-time scale the extra taps fall outside
// the filter's support and weigh 0. Taps beyond the input's edges repeat
// the edge element, or weigh 0 with exclude_outside.
func antialiasTaps(bb *ir.Builder, s sc, xi, scale *ir.Value, minScale float64, mode string, A float64, exclude bool,
	lin float64, toIdx func(*ir.Value) *ir.Value) resizeDim {
	support := 1.0
	if mode == "cubic" {
		support = 2
	}
	sm := math.Min(minScale, 1)
	start := int(math.Floor(-support/sm) + 1)
	end := 2 - start // exclusive: taps start … 1-start, symmetric about the sample
	sEff := s.min(scale, s.c(1), false)
	fl := s.op("math.floor", xi)
	r := s.sub(xi, fl)
	// The reference prefers the left neighbour: an integral coordinate
	// has ratio 1 from the element before it.
	isInt := s.cmp("eq", r, s.c(0), false)
	r = s.sel(isInt, s.c(1), r)
	base := s.sel(isInt, s.sub(fl, s.c(1)), fl)
	f := func(x *ir.Value) *ir.Value {
		x = s.op("math.absf", x)
		if mode != "cubic" {
			return s.max(s.sub(s.c(1), x), s.c(0), false)
		}
		x2 := s.mul(x, x)
		x3 := s.mul(x2, x)
		nearW := s.add(s.sub(s.mul(s.c(A+2), x3), s.mul(s.c(A+3), x2)), s.c(1))
		farW := s.sub(s.add(s.sub(s.mul(s.c(A), x3), s.mul(s.c(5*A), x2)), s.mul(s.c(8*A), x)), s.c(4*A))
		return s.sel(s.cmp("le", x, s.c(1), false), nearW, s.sel(s.cmp("lt", x, s.c(2), false), farW, s.c(0)))
	}
	var d resizeDim
	var sum *ir.Value
	var ws []*ir.Value
	for i := start; i < end; i++ {
		w := f(s.mul(s.sub(s.c(float64(i)), r), sEff))
		ws = append(ws, w)
		if sum == nil {
			sum = w
		} else {
			sum = s.add(sum, w)
		}
	}
	var kept *ir.Value
	for k, i := 0, start; i < end; k, i = k+1, i+1 {
		p := s.add(base, s.c(float64(i)))
		d.idx = append(d.idx, toIdx(p))
		w := s.op("arith.divf", ws[k], sum)
		if exclude {
			in := core.BinOp(bb, "arith.andi", s.cmp("ge", p, s.c(0), false), s.cmp("le", p, s.c(lin-1), false))
			w = s.sel(in, w, s.c(0))
			if kept == nil {
				kept = w
			} else {
				kept = s.add(kept, w)
			}
		}
		d.w = append(d.w, w)
	}
	if exclude {
		for k := range d.w {
			d.w[k] = s.op("arith.divf", d.w[k], kept)
		}
	}
	return d
}
