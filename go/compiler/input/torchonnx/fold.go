package torchonnx

import (
	"math"

	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/onnx/intfold"
)

// Shape arithmetic on constants (Shape → Gather → Concat → Reshape, the
// ConstantOfShape/Range chains of ONNX function bodies) is folded while
// converting, so the results are constants with static shapes even where
// the importer's types say '?'. Only small tensors are folded.

const maxFoldElements = 1 << 14

// cval is a folded tensor: dims and values (floats or ints by the element
// type).
type cval struct {
	dims []int64
	f    []float64
	i    []int64
	fl   bool
}

func (v *cval) n() int64 {
	n := int64(1)
	for _, d := range v.dims {
		n *= d
	}
	return n
}

func (v *cval) at(k int64) float64 {
	if v.fl {
		return v.f[k]
	}
	return float64(v.i[k])
}

func (v *cval) atI(k int64) int64 {
	if v.fl {
		return int64(v.f[k])
	}
	return v.i[k]
}

// cvalOf reads a constant input.
func cvalOf(x *ir.Value) *cval {
	d := constElements(x)
	if d == nil {
		return nil
	}
	t := tt(x)
	if t == nil || !ir.HasStaticShape(t) {
		return nil
	}
	v := &cval{dims: append([]int64{}, t.Dims...), fl: ir.IsFloat(t.Elem)}
	n := v.n()
	if n > maxFoldElements {
		return nil
	}
	for k := int64(0); k < n; k++ {
		if v.fl {
			v.f = append(v.f, d.FloatAt(k))
		} else {
			v.i = append(v.i, d.IntAt(k))
		}
	}
	return v
}

// strides returns the row-major strides of dims.
func strides(dims []int64) []int64 {
	s := make([]int64, len(dims))
	acc := int64(1)
	for i := len(dims) - 1; i >= 0; i-- {
		s[i] = acc
		acc *= dims[i]
	}
	return s
}

// unravel turns a flat index into coordinates.
func unravel(k int64, dims []int64) []int64 {
	ix := make([]int64, len(dims))
	for i := len(dims) - 1; i >= 0; i-- {
		if dims[i] > 0 {
			ix[i] = k % dims[i]
			k /= dims[i]
		}
	}
	return ix
}

// bcastDims is the numpy broadcast of shapes (nil when incompatible).
func bcastDims(shapes ...[]int64) []int64 {
	r := 0
	for _, s := range shapes {
		if len(s) > r {
			r = len(s)
		}
	}
	out := make([]int64, r)
	for i := range out {
		out[i] = 1
	}
	for _, s := range shapes {
		for i, d := range s {
			j := r - len(s) + i
			switch {
			case d == out[j] || d == 1:
			case out[j] == 1:
				out[j] = d
			default:
				return nil
			}
		}
	}
	return out
}

// bcastIndex maps output coordinates to the flat index of an input.
func bcastIndex(ix []int64, dims []int64) int64 {
	st := strides(dims)
	k := int64(0)
	for i, d := range dims {
		j := len(ix) - len(dims) + i
		if d != 1 {
			k += ix[j] * st[i]
		}
	}
	return k
}

// fold computes o on constant inputs; ok is false when it does not apply.
func (o *onnxOp) fold() ([]*ir.Value, bool) {
	if len(o.rts) != 1 || o.rts[0] == nil || len(o.op.Regions) > 0 {
		return nil, false
	}
	var ins []*cval
	for _, x := range o.ins {
		if x == nil {
			ins = append(ins, nil)
			continue
		}
		v := cvalOf(x)
		if v == nil {
			return nil, false
		}
		ins = append(ins, v)
	}
	rt := o.rts[0]
	outF := ir.IsFloat(rt.Elem)
	res := &cval{fl: outF}
	set := func(vals []float64) {
		for _, x := range vals {
			if outF {
				res.f = append(res.f, x)
			} else {
				res.i = append(res.i, int64(x))
			}
		}
	}
	in := func(i int) *cval {
		if i < len(ins) {
			return ins[i]
		}
		return nil
	}
	switch o.kind {
	case "Identity", "Reshape", "Flatten", "Squeeze", "Unsqueeze":
		x := in(0)
		if x == nil {
			return nil, false
		}
		dims, ok := o.foldShape(x)
		if !ok {
			return nil, false
		}
		res.dims = dims
		for k := int64(0); k < x.n(); k++ {
			set([]float64{x.at(k)})
		}
		if !outF && !x.fl {
			res.i = append([]int64{}, x.i...)
		}
	case "Cast", "Neg", "Abs", "Not", "Sqrt", "Floor", "Ceil", "Reciprocal":
		x := in(0)
		if x == nil || isE8M0(rt.Elem) { // e8m0 casts round by round_mode (castToE8M0)
			return nil, false
		}
		res.dims = x.dims
		for k := int64(0); k < x.n(); k++ {
			if !x.fl && !outF {
				a := x.i[k]
				switch o.kind {
				case "Cast":
					if core.IsBool(rt.Elem) {
						a = int64(b2f(a != 0))
					}
				case "Sqrt", "Reciprocal":
					return nil, false
				default:
					a = intfold.Unary(o.kind, a)
				}
				res.i = append(res.i, a)
				continue
			}
			a := x.at(k)
			switch o.kind {
			case "Cast":
				if core.IsBool(rt.Elem) {
					a = b2f(a != 0)
				} else if !outF {
					a = math.Trunc(a)
				}
			case "Neg":
				a = -a
			case "Abs":
				a = math.Abs(a)
			case "Not":
				a = b2f(a == 0)
			case "Sqrt":
				a = math.Sqrt(a)
			case "Floor":
				a = math.Floor(a)
			case "Ceil":
				a = math.Ceil(a)
			case "Reciprocal":
				a = 1 / a
			}
			set([]float64{a})
		}
	case "Add", "Sub", "Mul", "Div", "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or", "Max", "Min", "Mod", "Pow", "Where":
		n := 2
		if o.kind == "Where" {
			n = 3
		}
		var shapes [][]int64
		for i := 0; i < n; i++ {
			if in(i) == nil {
				return nil, false
			}
			shapes = append(shapes, in(i).dims)
		}
		if len(ins) != n {
			return nil, false
		}
		res.dims = bcastDims(shapes...)
		if res.dims == nil {
			return nil, false
		}
		total := (&cval{dims: res.dims}).n()
		intArith := !in(0).fl && o.kind != "Where"
		for k := int64(0); k < total; k++ {
			ix := unravel(k, res.dims)
			if o.kind == "Where" {
				c := in(0).at(bcastIndex(ix, in(0).dims))
				var v float64
				src := in(2)
				if c != 0 {
					src = in(1)
				}
				if !src.fl && !outF {
					res.i = append(res.i, src.i[bcastIndex(ix, src.dims)])
					continue
				}
				v = src.at(bcastIndex(ix, src.dims))
				set([]float64{v})
				continue
			}
			ka, kb := bcastIndex(ix, in(0).dims), bcastIndex(ix, in(1).dims)
			if intArith {
				a, b := in(0).i[ka], in(1).i[kb]
				r, ok := intfold.Binary(o.kind, a, b, o.attrInt("fmod", 0) != 0)
				if !ok {
					return nil, false
				}
				if outF {
					res.f = append(res.f, float64(r))
				} else {
					res.i = append(res.i, r)
				}
				continue
			}
			a, b := in(0).at(ka), in(1).at(kb)
			set([]float64{foldFloatBinary(o.kind, a, b, o.attrInt("fmod", 0) != 0)})
		}
	case "Concat":
		var xs []*cval
		for _, x := range ins {
			if x != nil {
				xs = append(xs, x)
			}
		}
		if len(xs) == 0 {
			return nil, false
		}
		r := len(xs[0].dims)
		ax, err := o.normAxis(o.attrInt("axis", 0), r)
		if err != nil {
			return nil, false
		}
		res.dims = append([]int64{}, xs[0].dims...)
		res.dims[ax] = 0
		for _, x := range xs {
			if len(x.dims) != r {
				return nil, false
			}
			res.dims[ax] += x.dims[ax]
		}
		total := (&cval{dims: res.dims}).n()
		for k := int64(0); k < total; k++ {
			ix := unravel(k, res.dims)
			p := ix[ax]
			for _, x := range xs {
				if p < x.dims[ax] {
					ix[ax] = p
					set([]float64{x.at(flatAt(ix, x.dims))})
					if !outF && !x.fl {
						res.i[len(res.i)-1] = x.i[flatAt(ix, x.dims)]
					}
					break
				}
				p -= x.dims[ax]
			}
		}
	case "Gather":
		x, ind := in(0), in(1)
		if x == nil || ind == nil {
			return nil, false
		}
		ax, err := o.normAxis(o.attrInt("axis", 0), len(x.dims))
		if err != nil {
			return nil, false
		}
		res.dims = append(append(append([]int64{}, x.dims[:ax]...), ind.dims...), x.dims[ax+1:]...)
		total := (&cval{dims: res.dims}).n()
		q := len(ind.dims)
		for k := int64(0); k < total; k++ {
			ix := unravel(k, res.dims)
			j := ind.atI(flatAt(ix[ax:ax+q], ind.dims))
			if j < 0 {
				j += x.dims[ax]
			}
			if j < 0 || j >= x.dims[ax] {
				return nil, false
			}
			src := append(append(append([]int64{}, ix[:ax]...), j), ix[ax+q:]...)
			if !outF && !x.fl {
				res.i = append(res.i, x.i[flatAt(src, x.dims)])
			} else {
				set([]float64{x.at(flatAt(src, x.dims))})
			}
		}
	case "Transpose":
		// torch's F.pad transposes its [n, 2] pad pairs.
		x := in(0)
		if x == nil {
			return nil, false
		}
		r := len(x.dims)
		perm, ok := o.attrInts("perm")
		if !ok {
			for i := r - 1; i >= 0; i-- {
				perm = append(perm, int64(i))
			}
		}
		if len(perm) != r {
			return nil, false
		}
		seen := make([]bool, r)
		for _, p := range perm {
			if p < 0 || p >= int64(r) || seen[p] {
				return nil, false
			}
			seen[p] = true
			res.dims = append(res.dims, x.dims[p])
		}
		total := (&cval{dims: res.dims}).n()
		src := make([]int64, r)
		for k := int64(0); k < total; k++ {
			ix := unravel(k, res.dims)
			for i, p := range perm {
				src[p] = ix[i]
			}
			if !outF && !x.fl {
				res.i = append(res.i, x.i[flatAt(src, x.dims)])
			} else {
				set([]float64{x.at(flatAt(src, x.dims))})
			}
		}
	case "Slice":
		x := in(0)
		if x == nil || o.c.opset < 10 || in(1) == nil || in(2) == nil {
			return nil, false
		}
		r := len(x.dims)
		start := make([]int64, r)
		step := make([]int64, r)
		res.dims = append([]int64{}, x.dims...)
		for i := range step {
			step[i] = 1
		}
		for k := int64(0); k < in(1).n(); k++ {
			a := k
			if in(3) != nil {
				a = in(3).atI(k)
			}
			d, err := o.normAxis(a, r)
			if err != nil {
				return nil, false
			}
			s := int64(1)
			if in(4) != nil {
				s = in(4).atI(k)
			}
			if s == 0 {
				return nil, false
			}
			dim := x.dims[d]
			st, en := in(1).atI(k), in(2).atI(k)
			if st < 0 {
				st += dim
			}
			if en < 0 {
				en += dim
			}
			if s > 0 {
				st, en = clampI(st, 0, dim), clampI(en, 0, dim)
				res.dims[d] = max64(0, (en-st+s-1)/s)
			} else {
				st, en = clampI(st, -1, dim-1), clampI(en, -1, dim-1)
				res.dims[d] = max64(0, (st-en-s-1)/(-s))
			}
			start[d], step[d] = st, s
		}
		total := (&cval{dims: res.dims}).n()
		for k := int64(0); k < total; k++ {
			ix := unravel(k, res.dims)
			for d := range ix {
				ix[d] = start[d] + ix[d]*step[d]
			}
			if !outF && !x.fl {
				res.i = append(res.i, x.i[flatAt(ix, x.dims)])
			} else {
				set([]float64{x.at(flatAt(ix, x.dims))})
			}
		}
	case "ConstantOfShape":
		s := in(0)
		if s == nil {
			return nil, false
		}
		for k := int64(0); k < s.n(); k++ {
			res.dims = append(res.dims, s.atI(k))
		}
		total := (&cval{dims: res.dims}).n()
		if total > maxFoldElements {
			return nil, false
		}
		v := o.valueAttr()
		for k := int64(0); k < total; k++ {
			set([]float64{v})
		}
	case "Range":
		if in(0) == nil || in(1) == nil || in(2) == nil {
			return nil, false
		}
		st, lim, dl := in(0).at(0), in(1).at(0), in(2).at(0)
		if dl == 0 {
			return nil, false
		}
		n := int64(math.Max(math.Ceil((lim-st)/dl), 0))
		if n > maxFoldElements {
			return nil, false
		}
		res.dims = []int64{n}
		for k := int64(0); k < n; k++ {
			if !outF {
				res.i = append(res.i, in(0).atI(0)+k*in(2).atI(0))
			} else {
				set([]float64{st + float64(k)*dl})
			}
		}
	default:
		return nil, false
	}
	if int64(len(res.dims)) != int64(len(rt.Dims)) {
		return nil, false
	}
	for i, d := range rt.Dims {
		if d >= 0 && d != res.dims[i] {
			return nil, false
		}
	}
	t := ir.Tensor(res.dims, rt.Elem)
	return []*ir.Value{denseOf(o.b, t, res.f, res.i)}, true
}

// valueAttr reads ConstantOfShape's one-element value attribute, inline
// (dense<...>) or a resource blob (dense_resource<...>, as IREE's importer
// writes it); 0 when absent.
func (o *onnxOp) valueAttr() float64 {
	var d *ir.DenseElementsAttr
	switch a := o.attr("value").(type) {
	case *ir.DenseElementsAttr:
		d = a
	case *ir.DenseResourceAttr:
		d, _ = a.Elements()
	}
	if d == nil || d.NumElements() < 1 {
		return 0
	}
	if ir.IsFloat(d.ElementType()) {
		return d.FloatAt(0)
	}
	return float64(d.IntAt(0))
}

// foldShape returns the result dims of the reshaping ops on x.
func (o *onnxOp) foldShape(x *cval) ([]int64, bool) {
	rt := o.rts[0]
	if ir.HasStaticShape(rt) {
		return append([]int64{}, rt.Dims...), true
	}
	if o.kind != "Reshape" {
		return nil, false
	}
	s := cvalOfIndex(o, 1)
	if s == nil {
		return nil, false
	}
	dims := make([]int64, s.n())
	known, neg := int64(1), -1
	for k := range dims {
		d := s.atI(int64(k))
		if d == 0 && o.attrInt("allowzero", 0) == 0 && k < len(x.dims) {
			d = x.dims[k]
		}
		if d == -1 {
			neg = k
		} else {
			known *= d
		}
		dims[k] = d
	}
	if neg >= 0 {
		if known == 0 {
			return nil, false
		}
		dims[neg] = x.n() / known
	}
	return dims, true
}

func cvalOfIndex(o *onnxOp, i int) *cval { return cvalOf(o.in(i)) }

func flatAt(ix, dims []int64) int64 {
	st := strides(dims)
	k := int64(0)
	for i := range dims {
		k += ix[i] * st[i]
	}
	return k
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func foldFloatBinary(kind string, a, b float64, fmod bool) float64 {
	switch kind {
	case "Add":
		return a + b
	case "Sub":
		return a - b
	case "Mul":
		return a * b
	case "Div":
		return a / b
	case "Mod":
		return math.Mod(a, b)
	case "Max":
		return math.Max(a, b)
	case "Min":
		return math.Min(a, b)
	case "Pow":
		return math.Pow(a, b)
	case "Equal":
		return b2f(a == b)
	case "Less":
		return b2f(a < b)
	case "Greater":
		return b2f(a > b)
	case "LessOrEqual":
		return b2f(a <= b)
	case "GreaterOrEqual":
		return b2f(a >= b)
	case "And":
		return b2f(a != 0 && b != 0)
	case "Or":
		return b2f(a != 0 || b != 0)
	}
	return math.NaN()
}
