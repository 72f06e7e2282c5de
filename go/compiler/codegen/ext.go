package codegen

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// extOp returns the scatter, sort, topk_v2 or scan that a dispatch region holds alone
// (flow.FormExtDispatches), or nil.
func extOp(body *ir.Block) *ir.Operation {
	for _, op := range body.Ops {
		if linalg.IsExtOp(op) {
			return op
		}
	}
	return nil
}

// lowerExt lowers a region holding one scatter, sort, topk_v2 or scan.
func lowerExt(region, op *ir.Operation, name string, st Strategy) (*Dispatch, error) {
	body := region.Regions[0].Blocks[0]
	ret := body.Terminator()
	if len(body.Ops) != 2 || ret == nil || len(ret.Operands) != len(op.Results) {
		return nil, ir.OpErrorf(op, "must be alone in its dispatch region")
	}
	results := make([]*ir.Value, len(op.Results))
	for k, v := range ret.Operands {
		if v.Owner() != op {
			return nil, ir.OpErrorf(region, "returns a value its %s does not produce", op.Name)
		}
		results[v.Index()] = region.Results[k]
	}
	g := newGen(region, name, st)
	var err error
	switch op.Name {
	case linalg.ScatterName:
		err = g.lowerScatter(op, results[0])
	case linalg.SortName:
		err = g.lowerSort(op, results)
	case linalg.TopKV2Name:
		err = g.lowerTopKV2(op, results)
	case linalg.ScanName:
		err = g.lowerScan(op, results)
	}
	if err != nil {
		return nil, err
	}
	g.b.Append(&kir.Op{Kind: kir.Yield})
	return g.d, nil
}

// loadElem loads the element of tensor t (bound at bi) at off, decoding
// 8-bit float codes.
func (g *gen) loadElem(b *kir.Builder, t *ir.Value, bi int, off kir.Value) (raw, val kir.Value) {
	raw = b.Load(bi, kir.S(g.k.Bindings[bi].Elem), off)
	val = raw
	if f, ok := f8Of(ir.ElementTypeOf(t.Type)); ok {
		val = f.decode(b, raw, 1)
	}
	return raw, val
}

// storeElem stores v as an element of tensor t (bound at bi) at off,
// encoding 8-bit floats.
func (g *gen) storeElem(b *kir.Builder, t *ir.Value, bi int, off, v kir.Value) {
	if f, ok := f8Of(ir.ElementTypeOf(t.Type)); ok {
		v = f.encode(b, v, 1)
	}
	b.Store(bi, off, v)
}

// regionBody translates an ext op's scalar region at one point: the
// block's arguments are args; it returns the yielded values.
func (g *gen) regionBody(b *kir.Builder, op *ir.Operation, args []kir.Value) ([]kir.Value, error) {
	blk := linalg.ExtBody(op)
	if blk == nil || len(blk.Args) != len(args) {
		return nil, ir.OpErrorf(op, "has a region with %d arguments; expected %d", argCount(blk), len(args))
	}
	vals := map[*ir.Value]kir.Value{}
	for i, a := range blk.Args {
		vals[a] = args[i]
	}
	get := func(v *ir.Value) (kir.Value, error) {
		if kv, ok := vals[v]; ok {
			return kv, nil
		}
		s, err := g.scalarCapture(v)
		if err != nil {
			return 0, ir.OpErrorf(op, "%v", err)
		}
		return s, nil
	}
	for _, o := range blk.Ops {
		if o.Name == linalg.ExtYieldName {
			ys := make([]kir.Value, len(o.Operands))
			for i, v := range o.Operands {
				y, err := get(v)
				if err != nil {
					return nil, err
				}
				ys[i] = y
			}
			return ys, nil
		}
		rs, err := scalarOp(b, o, 1, get)
		if err != nil {
			return nil, err
		}
		for i, r := range rs {
			vals[o.Results[i]] = r
		}
	}
	return nil, ir.OpErrorf(op, "has a region without %s", linalg.ExtYieldName)
}

func argCount(blk *ir.Block) int {
	if blk == nil {
		return 0
	}
	return len(blk.Args)
}

// nest emits loops 0 ≤ ivs[k] < dims[k] around body.
func (g *gen) nest(b *kir.Builder, dims []kir.Value, body func(b *kir.Builder, ivs []kir.Value) error) error {
	los := make([]kir.Value, len(dims))
	for i := range los {
		los[i] = g.idx(0)
	}
	return g.nestRange(b, los, dims, body)
}

// nestRange emits loops los[k] ≤ ivs[k] < his[k] around body.
func (g *gen) nestRange(b *kir.Builder, los, his []kir.Value, body func(b *kir.Builder, ivs []kir.Value) error) error {
	var err error
	var rec func(b *kir.Builder, ivs []kir.Value)
	rec = func(b *kir.Builder, ivs []kir.Value) {
		if len(ivs) == len(his) {
			if e := body(b, ivs); e != nil && err == nil {
				err = e
			}
			return
		}
		k := len(ivs)
		b.For(los[k], his[k], g.idx(1), nil, func(b *kir.Builder, iv kir.Value, _ []kir.Value) []kir.Value {
			rec(b, append(append([]kir.Value{}, ivs...), iv))
			return nil
		})
	}
	rec(b, nil)
	return err
}

// offset is Σ ivs[k]·strides[k].
func (g *gen) offset(b *kir.Builder, ivs, strides []kir.Value) kir.Value {
	off := g.idx(0)
	for k, iv := range ivs {
		off = b.Bin(kir.Add, off, b.Bin(kir.Mul, iv, strides[k]))
	}
	return off
}

// numElements is the product of dims, at the top of the kernel.
func (g *gen) numElements(dims []kir.Value) kir.Value {
	n := g.idx(1)
	for _, d := range dims {
		n = g.b.Bin(kir.Mul, n, d)
	}
	return n
}

// copyAll copies every element of src (bound at from) to binding to.
func (g *gen) copyAll(from, to int, dims []kir.Value) {
	g.b.For(g.idx(0), g.numElements(dims), g.idx(1), nil, func(b *kir.Builder, i kir.Value, _ []kir.Value) []kir.Value {
		b.Store(to, i, b.Load(from, kir.S(g.k.Bindings[from].Elem), i))
		return nil
	})
}
