package torchonnx

import (
	"math"
	"sort"
	"strings"

	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// ONNX Einsum, GroupNormalization, LRN, MeanVarianceNormalization and
// Hardmax.

func init() {
	onnxReg(onnxEinsum, "Einsum")
	onnxReg(onnxGroupNorm, "GroupNormalization")
	onnxReg(onnxLRN, "LRN")
	onnxReg(onnxMVN, "MeanVarianceNormalization")
	onnxReg(onnxHardmax, "Hardmax")
}

// onnxEinsum builds one contraction generic: the output letters are the
// parallel loops, the other letters reductions; "..." stands for the
// leading broadcast dimensions.
func onnxEinsum(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	eq := strings.ReplaceAll(o.attrStr("equation", ""), " ", "")
	lhs, out, explicit := strings.Cut(eq, "->")
	terms := strings.Split(lhs, ",")
	var ins []*ir.Value
	for _, v := range o.ins {
		if v != nil {
			ins = append(ins, v)
		}
	}
	if len(terms) != len(ins) {
		return nil, o.errorf("equation '%s' has %d operands, the op %d", eq, len(terms), len(ins))
	}
	// Ellipsis dimensions become the letters '0', '1', … (right-aligned).
	nEll := 0
	for i, t := range terms {
		if strings.Contains(t, "...") {
			k := len(tt(ins[i]).Dims) - (len(t) - 3)
			if k > nEll {
				nEll = k
			}
		}
	}
	ell := func(k int) string {
		var sb strings.Builder
		for i := nEll - k; i < nEll; i++ {
			sb.WriteByte(byte('0' + i))
		}
		return sb.String()
	}
	for i, t := range terms {
		if strings.Contains(t, "...") {
			terms[i] = strings.Replace(t, "...", ell(len(tt(ins[i]).Dims)-(len(t)-3)), 1)
		}
		if len(terms[i]) != len(tt(ins[i]).Dims) {
			return nil, o.errorf("term '%s' does not match operand rank %d", t, len(tt(ins[i]).Dims))
		}
	}
	if !explicit {
		count := map[byte]int{}
		for _, t := range terms {
			for j := 0; j < len(t); j++ {
				count[t[j]]++
			}
		}
		var ls []byte
		for c, k := range count {
			if k == 1 && (c < '0' || c > '9') {
				ls = append(ls, c)
			}
		}
		sort.Slice(ls, func(a, b int) bool { return ls[a] < ls[b] })
		out = ell(nEll) + string(ls)
	} else {
		out = strings.Replace(out, "...", ell(nEll), 1)
	}
	rt := o.rts[0]
	if len(out) != len(rt.Dims) {
		return nil, o.errorf("output '%s' does not match the result rank %d", out, len(rt.Dims))
	}
	pos := map[byte]int{}
	size := map[byte]int64{}
	for j := 0; j < len(out); j++ {
		pos[out[j]] = j
		size[out[j]] = rt.Dims[j]
	}
	nl := len(out)
	for i, t := range terms {
		for j := 0; j < len(t); j++ {
			c := t[j]
			if _, ok := pos[c]; !ok {
				pos[c] = nl
				nl++
			}
			if d := tt(ins[i]).Dims[j]; d > size[c] {
				size[c] = d
			}
		}
	}
	var maps []*ir.AffineMap
	for i, t := range terms {
		m := &ir.AffineMap{NumDims: nl}
		for j := 0; j < len(t); j++ {
			if tt(ins[i]).Dims[j] == 1 && size[t[j]] != 1 {
				m.Results = append(m.Results, cstExpr(0))
			} else {
				m.Results = append(m.Results, dimExpr(pos[t[j]]))
			}
		}
		maps = append(maps, m)
	}
	om := linalg.Identity(nl)
	om.Results = om.Results[:len(out)]
	maps = append(maps, om)
	its := make([]linalg.Iterator, nl)
	for i := len(out); i < nl; i++ {
		its[i] = linalg.Reduction
	}
	g := linalg.BuildGeneric(o.b, ins, []*ir.Value{filled(o.b, rt, 0)}, maps, its, func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		s := sc{bb, rt.Elem}
		p := castScalar(bb, args[0], rt.Elem, false, false)
		for _, a := range args[1 : len(args)-1] {
			p = s.mul(p, castScalar(bb, a, rt.Elem, false, false))
		}
		return []*ir.Value{s.add(args[len(args)-1], p)}
	})
	return []*ir.Value{g.Result(0)}, nil
}

// onnxGroupNorm normalizes each group of channels (with the spatial
// dimensions) of X [N, C, …], then scales per channel (opset 21) or per
// group (opset 18).
func onnxGroupNorm(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, rt := o.in(0), o.rts[0]
	xt := tt(x)
	G := o.attrInt("num_groups", 1)
	N, C := xt.Dims[0], xt.Dims[1]
	if G < 1 || C%G != 0 {
		return nil, o.errorf("has %d channels that %d groups do not divide", C, G)
	}
	total, _ := ir.NumElements(xt.Dims)
	grouped := reshape(o.b, x, ir.Tensor([]int64{N, G, total / (N * G)}, xt.Elem))
	elem := xt.Elem
	if core.Width(elem) < 32 {
		elem = ir.F32
	}
	y, _, _ := normalize(o.b, grouped, map[int]bool{2: true}, o.attrFloat("epsilon", 1e-5), nil, nil, nil, elem)
	y = reshape(o.b, y, rt)
	n := len(rt.Dims)
	scale, bias := o.in(1), o.in(2)
	cm := &ir.AffineMap{NumDims: n, Results: []ir.AffineExpr{dimExpr(1)}}
	if tt(scale).Dims[0] != C {
		cm.Results = []ir.AffineExpr{ir.AffineBinary(ir.AffineFloorDiv, dimExpr(1), cstExpr(C/G))}
	}
	y = mapGenericMaps(o.b, []*ir.Value{y, scale, bias}, []*ir.AffineMap{linalg.Identity(n), cm, cm}, rt, func(s sc, a []*ir.Value) *ir.Value {
		return s.add(s.mul(a[0], a[1]), a[2])
	})
	return []*ir.Value{y}, nil
}

// onnxLRN: y = x / (bias + alpha/size * sum of x² over nearby channels)^beta.
func onnxLRN(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, rt := o.in(0), o.rts[0]
	xt := tt(x)
	n := len(xt.Dims)
	size := o.attrInt("size", 1)
	alpha, beta, bias := o.attrFloat("alpha", 1e-4), o.attrFloat("beta", 0.75), o.attrFloat("bias", 1)
	lo := (size - 1) / 2
	win := empty(o.b, ir.Tensor([]int64{size}, rt.Elem))
	wm := &ir.AffineMap{NumDims: n + 1, Results: []ir.AffineExpr{dimExpr(n)}}
	om := linalg.Identity(n + 1)
	om.Results = om.Results[:n]
	its := make([]linalg.Iterator, n+1)
	its[n] = linalg.Reduction
	sq := linalg.BuildGeneric(o.b, []*ir.Value{win}, []*ir.Value{filled(o.b, rt, 0)}, []*ir.AffineMap{wm, om}, its, func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		s := sc{bb, rt.Elem}
		c := core.BinOp(bb, "arith.subi", core.BinOp(bb, "arith.addi", core.LoopIndex(bb, 1), core.LoopIndex(bb, n)), cIdx(bb, lo))
		ok := core.BinOp(bb, "arith.andi", core.CmpI(bb, core.PredSGE, c, cIdx(bb, 0)), core.CmpI(bb, core.PredSLT, c, cIdx(bb, xt.Dims[1])))
		cl := bb.Create("arith.minsi", []*ir.Value{bb.Create("arith.maxsi", []*ir.Value{c, cIdx(bb, 0)}, []ir.Type{ir.Index}).Result(0), cIdx(bb, xt.Dims[1]-1)}, []ir.Type{ir.Index}).Result(0)
		ix := []*ir.Value{core.LoopIndex(bb, 0), cl}
		for d := 2; d < n; d++ {
			ix = append(ix, core.LoopIndex(bb, d))
		}
		v := extractAt(bb, x, ix)
		return []*ir.Value{s.sel(ok, s.add(args[1], s.mul(v, v)), args[1])}
	}).Result(0)
	y := mapGeneric(o.b, []*ir.Value{x, sq}, rt, func(bb *ir.Builder, a []*ir.Value) *ir.Value {
		s := sc{bb, rt.Elem}
		d := s.add(s.c(bias), s.mul(s.c(alpha/float64(size)), a[1]))
		return s.op("arith.divf", a[0], s.op("math.powf", d, s.c(beta)))
	})
	return []*ir.Value{y}, nil
}

// onnxMVN: (x - mean) / (sqrt(variance) + 1e-9) over axes (default
// 0, 2, 3).
func onnxMVN(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, rt := o.in(0), o.rts[0]
	n := len(rt.Dims)
	axes, ok := o.attrInts("axes")
	if !ok {
		axes = []int64{0, 2, 3}
	}
	red := map[int]bool{}
	count := int64(1)
	for _, a := range axes {
		d, err := o.normAxis(a, n)
		if err != nil {
			return nil, err
		}
		red[d] = true
		count *= rt.Dims[d]
	}
	km := keptMap(n, red)
	add := func(s sc, a, v *ir.Value) *ir.Value { return s.add(a, v) }
	mean := reduceDims(o.b, x, red, rt.Elem, 0, nil, add)
	d := mapGenericMaps(o.b, []*ir.Value{x, mean}, []*ir.AffineMap{linalg.Identity(n), km}, rt, func(s sc, a []*ir.Value) *ir.Value {
		return s.sub(a[0], s.op("arith.divf", a[1], s.c(float64(count))))
	})
	v := reduceDims(o.b, d, red, rt.Elem, 0, func(s sc, v *ir.Value) *ir.Value { return s.mul(v, v) }, add)
	y := mapGenericMaps(o.b, []*ir.Value{d, v}, []*ir.AffineMap{linalg.Identity(n), km}, rt, func(s sc, a []*ir.Value) *ir.Value {
		sd := s.op("math.sqrt", s.op("arith.divf", a[1], s.c(float64(count))))
		return s.op("arith.divf", a[0], s.add(sd, s.c(1e-9)))
	})
	return []*ir.Value{y}, nil
}

// onnxHardmax sets 1 at the first maximum along the axis (the flattened
// trailing dimensions before opset 13), 0 elsewhere.
func onnxHardmax(o *onnxOp) ([]*ir.Value, error) {
	if err := o.static(); err != nil {
		return nil, err
	}
	x, rt := o.in(0), o.rts[0]
	xt := tt(x)
	n := len(xt.Dims)
	def := int64(-1)
	if o.c.opset < 13 {
		def = 1
	}
	ax, err := o.normAxis(o.attrInt("axis", def), n)
	if err != nil {
		return nil, err
	}
	src := x
	if o.c.opset < 13 {
		inner := int64(1)
		for _, d := range xt.Dims[ax:] {
			inner *= d
		}
		outer := int64(1)
		for _, d := range xt.Dims[:ax] {
			outer *= d
		}
		src = reshape(o.b, x, ir.Tensor([]int64{outer, inner}, xt.Elem))
		ax, n = 1, 2
	}
	st := tt(src)
	red := map[int]bool{ax: true}
	km := keptMap(n, red)
	var odims []int64
	for i := 0; i < n; i++ {
		if i != ax {
			odims = append(odims, st.Dims[i])
		}
	}
	its := make([]linalg.Iterator, n)
	its[ax] = linalg.Reduction
	vals := filled(o.b, ir.Tensor(odims, st.Elem), math.Inf(-1))
	idxs := filledInt(o.b, ir.Tensor(odims, ir.I64), 0)
	g := linalg.BuildGeneric(o.b, []*ir.Value{src}, []*ir.Value{vals, idxs}, []*ir.AffineMap{linalg.Identity(n), km, km}, its, func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		s := sc{bb, st.Elem}
		first := core.CmpI(bb, core.PredEQ, core.LoopIndex(bb, ax), cIdx(bb, 0))
		better := core.BinOp(bb, "arith.ori", s.cmp("gt", args[0], args[1], false), first)
		i := bb.Create("arith.index_cast", []*ir.Value{core.LoopIndex(bb, ax)}, []ir.Type{ir.I64}).Result(0)
		return []*ir.Value{s.sel(better, args[0], args[1]), bb.Create("arith.select", []*ir.Value{better, i, args[2]}, []ir.Type{ir.I64}).Result(0)}
	})
	y := mapGenericMaps(o.b, []*ir.Value{g.Result(1)}, []*ir.AffineMap{km}, ir.Tensor(st.Dims, st.Elem), func(s sc, a []*ir.Value) *ir.Value {
		i := s.b.Create("arith.index_cast", []*ir.Value{core.LoopIndex(s.b, ax)}, []ir.Type{ir.I64}).Result(0)
		hit := core.Cmp(s.b, "arith.cmpi", 0, a[0], i)
		return s.sel(hit, s.c(1), s.c(0))
	})
	return []*ir.Value{reshape(o.b, y, rt)}, nil
}
