package torchonnx

import (
	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// ONNX TfIdfVectorizer on integer tokens: the pool's n-grams (static
// attributes) are counted over each row, n-grams of length >= 2 at every
// skip distance 1 … max_skip_count+1, unigrams once (as ONNX's reference
// counts them), and weighted by mode (TF: counts, IDF: the column's
// weight where present, TFIDF: count·weight). One generic over (row, output column,
// position) with the pool unrolled into its body.

func init() {
	onnxReg(onnxTfIdf, "TfIdfVectorizer")
}

func onnxTfIdf(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, rt := o.in(0), o.rts[0]
	xt := tt(x)
	if !ir.IsInteger(xt.Elem) {
		return nil, o.errorf("on %s tokens is not supported by gree (integer tokens only)", xt.Elem)
	}
	pool, ok := o.attrInts("pool_int64s")
	if !ok {
		return nil, o.errorf("needs pool_int64s (string pools are not supported by gree)")
	}
	counts, _ := o.attrInts("ngram_counts")
	idxs, _ := o.attrInts("ngram_indexes")
	weights, hasW := o.attrFloats("weights")
	minN, maxN := o.attrInt("min_gram_length", 1), o.attrInt("max_gram_length", 1)
	maxSkip := o.attrInt("max_skip_count", 0)
	mode := o.attrStr("mode", "TF")
	if mode != "TF" && mode != "IDF" && mode != "TFIDF" {
		return nil, o.errorf("mode '%s' is not one of TF, IDF, TFIDF", mode)
	}
	// The pool's n-grams, in id order.
	var grams [][]int64
	for k := range counts {
		n := int64(k + 1)
		end := int64(len(pool))
		if k+1 < len(counts) {
			end = counts[k+1]
		}
		if counts[k] < 0 || end > int64(len(pool)) || (end-counts[k])%n != 0 {
			return nil, o.errorf("has ngram_counts that do not split pool_int64s")
		}
		for p := counts[k]; p < end; p += n {
			grams = append(grams, pool[p:p+n])
		}
	}
	if len(idxs) != len(grams) {
		return nil, o.errorf("has %d n-grams but %d ngram_indexes", len(grams), len(idxs))
	}
	rows, L := int64(1), xt.Dims[len(xt.Dims)-1]
	if len(xt.Dims) == 2 {
		rows = xt.Dims[0]
	} else if len(xt.Dims) != 1 {
		return nil, o.errorf("needs a rank-1 or rank-2 input")
	}
	D := rt.Dims[len(rt.Dims)-1]
	for _, ix := range idxs {
		if ix < 0 || ix >= D {
			return nil, o.errorf("has an ngram index %d outside the %d output columns", ix, D)
		}
	}
	x2 := reshape(o.b, x, ir.Tensor([]int64{rows, L}, xt.Elem))
	ot := ir.Tensor([]int64{rows, D}, rt.Elem)
	bnd := empty(o.b, ir.Tensor([]int64{L}, rt.Elem))
	its := []linalg.Iterator{linalg.Parallel, linalg.Parallel, linalg.Reduction}
	cnt := linalg.BuildGeneric(o.b, []*ir.Value{bnd}, []*ir.Value{filled(o.b, ot, 0)},
		[]*ir.AffineMap{{NumDims: 3, Results: []ir.AffineExpr{dimExpr(2)}}, {NumDims: 3, Results: []ir.AffineExpr{dimExpr(0), dimExpr(1)}}}, its,
		func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
			s := sc{bb, rt.Elem}
			r, d := core.LoopIndex(bb, 0), core.LoopIndex(bb, 1)
			i := bb.Create("arith.index_cast", []*ir.Value{core.LoopIndex(bb, 2)}, []ir.Type{ir.I64}).Result(0)
			tok := func(off int64) (*ir.Value, *ir.Value) { // the token at i+off and whether it exists
				p := core.BinOp(bb, "arith.addi", i, bb.Constant(ir.IntAttr(off, ir.I64)))
				in := core.CmpI(bb, core.PredSLT, p, bb.Constant(ir.IntAttr(L, ir.I64)))
				pc := bb.Create("arith.minsi", []*ir.Value{p, bb.Constant(ir.IntAttr(L-1, ir.I64))}, []ir.Type{ir.I64}).Result(0)
				pi := bb.Create("arith.index_cast", []*ir.Value{pc}, []ir.Type{ir.Index}).Result(0)
				return extractAt(bb, x2, []*ir.Value{r, pi}), in
			}
			dI := bb.Create("arith.index_cast", []*ir.Value{d}, []ir.Type{ir.I64}).Result(0)
			total := s.c(0)
			for g, gram := range grams {
				n := int64(len(gram))
				if n < minN || n > maxN {
					continue
				}
				dists := maxSkip + 1
				if n == 1 {
					dists = 1
				}
				var c *ir.Value
				for sd := int64(1); sd <= dists; sd++ {
					var hit *ir.Value
					for k, t := range gram {
						v, in := tok(int64(k) * sd)
						eq := core.CmpI(bb, core.PredEQ, v, bb.Constant(ir.IntAttr(t, xt.Elem)))
						hit = andAll(bb, hit, core.BinOp(bb, "arith.andi", in, eq))
					}
					one := s.sel(hit, s.c(1), s.c(0))
					if c == nil {
						c = one
					} else {
						c = s.add(c, one)
					}
				}
				mine := core.CmpI(bb, core.PredEQ, dI, bb.Constant(ir.IntAttr(idxs[g], ir.I64)))
				total = s.add(total, s.sel(mine, c, s.c(0)))
			}
			return []*ir.Value{s.add(a[1], total)}
		}).Result(0)
	// Weighting by mode.
	wv := make([]float64, D)
	for k := range wv {
		wv[k] = 1
	}
	if hasW {
		// Weights are by output column (as ONNX's reference and
		// onnxruntime read them).
		copy(wv, weights)
	}
	w := denseOf(o.b, ir.Tensor([]int64{D}, rt.Elem), wv, nil)
	y := mapGeneric(o.b, []*ir.Value{cnt, w}, ot, func(bb *ir.Builder, a []*ir.Value) *ir.Value {
		s := sc{bb, rt.Elem}
		switch mode {
		case "IDF":
			return s.sel(s.cmp("gt", a[0], s.c(0), false), a[1], s.c(0))
		case "TFIDF":
			return s.mul(a[0], a[1])
		}
		return a[0]
	})
	return []*ir.Value{reshape(o.b, y, rt)}, nil
}
