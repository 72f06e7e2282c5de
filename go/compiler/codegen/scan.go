package codegen

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/kir"
)

// lowerScan runs an iree_linalg_ext.scan on one workgroup per slice, as
// IREE's scalar implementation defines it: output 0 is the input's first
// element (inclusive) or the accumulator (exclusive); output i combines
// output i-1 with input i (inclusive) or input i-1 (exclusive); the
// accumulator ends as the last combined value (unchanged when the slice
// has fewer than two elements).
func (g *gen) lowerScan(op *ir.Operation, results []*ir.Value) error {
	dim := int(op.Attr("dimension").(*ir.IntegerAttr).Value)
	inclusive := op.Attr("inclusive").(*ir.BoolAttr).Value
	in, accInit := op.Operands[0], op.Operands[2]
	bind := func(v *ir.Value, a kir.Access) (int, error) {
		i, err := g.bind(v, a)
		if err != nil {
			return 0, ir.OpErrorf(op, "%v", err)
		}
		return i, nil
	}
	bIn, err := bind(in, kir.Read)
	if err != nil {
		return err
	}
	bAccIn, err := bind(accInit, kir.Read)
	if err != nil {
		return err
	}
	bOut, err := bind(results[0], kir.Write)
	if err != nil {
		return err
	}
	bAcc, err := bind(results[1], kir.Write)
	if err != nil {
		return err
	}
	it := in.Type.(*ir.RankedTensorType)
	grid := kir.GridDim{Static: 1, Tile: 1}
	for d, sz := range it.Dims {
		switch {
		case d == dim:
		case sz >= 0:
			grid.Static *= sz
		default:
			grid.PushConstants = append(grid.PushConstants, g.pushOf[Push{Value: in, Dim: d}])
		}
	}
	g.k.Grid[0] = grid
	b := g.b
	dims, inStr, outStr, accStr := g.dims[in], g.strides[in], g.strides[results[0]], g.strides[results[1]]
	rem := b.Query(kir.WorkgroupID, 0)
	baseIn, baseOut, accOff := g.idx(0), g.idx(0), g.idx(0)
	for d, a := len(dims)-1, len(accStr)-1; d >= 0; d-- {
		if d == dim {
			continue
		}
		c := b.Bin(kir.RemU, rem, dims[d])
		rem = b.Bin(kir.DivU, rem, dims[d])
		baseIn = b.Bin(kir.Add, baseIn, b.Bin(kir.Mul, c, inStr[d]))
		baseOut = b.Bin(kir.Add, baseOut, b.Bin(kir.Mul, c, outStr[d]))
		accOff = b.Bin(kir.Add, accOff, b.Bin(kir.Mul, c, accStr[a]))
		a--
	}
	inAt := func(b *kir.Builder, i kir.Value) kir.Value {
		return b.Bin(kir.Add, baseIn, b.Bin(kir.Mul, i, inStr[dim]))
	}
	outAt := func(b *kir.Builder, i kir.Value) kir.Value {
		return b.Bin(kir.Add, baseOut, b.Bin(kir.Mul, i, outStr[dim]))
	}
	n := dims[dim]
	_, acc0 := g.loadElem(b, accInit, bAccIn, accOff)
	// The accumulator result starts as the initial accumulator.
	g.storeElem(b, results[1], bAcc, accOff, acc0)
	nonEmpty := b.Cmp(kir.CmpI, kir.PredSGT, n, g.idx(0))
	b.If(nonEmpty, nil, func(b *kir.Builder) []kir.Value {
		first := acc0
		if inclusive {
			_, first = g.loadElem(b, in, bIn, inAt(b, g.idx(0)))
		}
		g.storeElem(b, results[0], bOut, outAt(b, g.idx(0)), first)
		b.For(g.idx(1), n, g.idx(1), []kir.Value{first}, func(b *kir.Builder, i kir.Value, prev []kir.Value) []kir.Value {
			j := i
			if !inclusive {
				j = b.Bin(kir.Sub, i, g.idx(1))
			}
			_, x := g.loadElem(b, in, bIn, inAt(b, j))
			ys, e := g.regionBody(b, op, []kir.Value{prev[0], x})
			if e == nil && len(ys) != 1 {
				e = ir.OpErrorf(op, "must yield one value")
			}
			if e != nil {
				err = e
				return prev
			}
			g.storeElem(b, results[0], bOut, outAt(b, i), ys[0])
			g.storeElem(b, results[1], bAcc, accOff, ys[0])
			return ys
		})
		return nil
	}, nil)
	return err
}
