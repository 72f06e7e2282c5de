package torchonnx

import (
	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// ONNX MelWeightMatrix: the [dft_length/2+1, num_mel_bins] matrix of
// triangular mel filters, each element computed from the run-time scalar
// inputs as in ONNX's reference (band edges on the mel scale, spaced by
// (high-low)/(num_mel_bins+2), mapped to integer bins
// floor((dft_length+1)·hz/sample_rate)), in f64. The result's static shape
// fixes the bin counts.

func init() {
	onnxReg(onnxMelWeightMatrix, "MelWeightMatrix")
}

func onnxMelWeightMatrix(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	rt := o.rts[0]
	if len(rt.Dims) != 2 || len(o.ins) < 5 {
		return nil, o.errorf("needs five scalar inputs and a rank-2 result")
	}
	for i := 0; i < 5; i++ {
		if v := o.in(i); v == nil || tt(v) == nil || len(tt(v).Dims) > 1 {
			return nil, o.errorf("needs scalar input %d", i)
		}
	}
	g := linalg.BuildGeneric(o.b, nil, []*ir.Value{empty(o.b, rt)}, []*ir.AffineMap{linalg.Identity(2)}, core.Parallel(2), func(bb *ir.Builder, _ []*ir.Value) []*ir.Value {
		d := sc{bb, ir.F64}
		read := func(i int) *ir.Value {
			v := o.in(i)
			var ix []*ir.Value
			for range tt(v).Dims {
				ix = append(ix, cIdx(bb, 0))
			}
			return castScalar(bb, extractAt(bb, v, ix), ir.F64, o.isUnsigned(v), false)
		}
		mels, dft, sr, lo, hi := read(0), read(1), read(2), read(3), read(4)
		// dft_length is an integer: (dft+1)·hz // sr.
		toMel := func(hz *ir.Value) *ir.Value {
			return d.mul(d.c(2595), d.op("math.log10", d.add(d.c(1), d.div(hz, d.c(700), false))))
		}
		lm := toMel(lo)
		step := d.div(d.sub(toMel(hi), lm), d.add(mels, d.c(2)), false)
		i := indexF(bb, 1, ir.F64)
		j := indexF(bb, 0, ir.F64)
		bin := func(m *ir.Value) *ir.Value {
			mel := d.add(d.mul(m, step), lm)
			hz := d.mul(d.c(700), d.sub(d.op("math.powf", d.c(10), d.div(mel, d.c(2595), false)), d.c(1)))
			return d.op("math.floor", d.div(d.mul(d.add(dft, d.c(1)), hz), sr, false))
		}
		l, c, h := bin(i), bin(d.add(i, d.c(1))), bin(d.add(i, d.c(2)))
		rise := d.sel(d.cmp("eq", c, l, false), d.sel(d.cmp("eq", j, c, false), d.c(1), d.c(0)),
			d.div(d.sub(j, l), d.sel(d.cmp("eq", c, l, false), d.c(1), d.sub(c, l)), false))
		inRise := core.BinOp(bb, "arith.andi", d.cmp("ge", j, l, false), d.cmp("le", j, c, false))
		v := d.sel(inRise, rise, d.c(0))
		fallOK := core.BinOp(bb, "arith.andi", d.cmp("gt", h, c, false), core.BinOp(bb, "arith.andi", d.cmp("ge", j, c, false), d.cmp("lt", j, h, false)))
		fall := d.div(d.sub(h, j), d.sel(d.cmp("gt", h, c, false), d.sub(h, c), d.c(1)), false)
		v = d.sel(fallOK, fall, v)
		return []*ir.Value{castScalar(bb, v, rt.Elem, false, o.runs[0])}
	})
	return []*ir.Value{g.Result(0)}, nil
}
