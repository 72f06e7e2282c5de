package targettest

import (
	"encoding/binary"
	"math"
	"math/rand/v2"

	"github.com/gree-ml/gree/go/compiler/codegen"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/internal/half"
)

// EncFloats encodes xs as little-endian elements of the float type s,
// rounded to nearest even.
func EncFloats(s kir.Scalar, xs []float64) []byte {
	b := make([]byte, s.ByteSize()*len(xs))
	for i, x := range xs {
		switch s {
		case kir.F16:
			binary.LittleEndian.PutUint16(b[2*i:], half.F16(x))
		case kir.BF16:
			binary.LittleEndian.PutUint16(b[2*i:], half.BF16(x))
		case kir.F32:
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(x)))
		default:
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
		}
	}
	return b
}

// SweepDynamicDim is the extent SweepInputs gives every dynamic dimension.
const SweepDynamicDim = 7

// SweepInputs makes the bindings, push constants and grid of one run of
// d, seeded: every dynamic dimension is SweepDynamicDim, scalar push
// constants 3, written-only bindings zero and read ones random (small
// integers and floats in ±2; with wide, also integers of any width and
// floats of varied magnitude).
func SweepInputs(d *codegen.Dispatch, seed uint64, wide bool) (bufs [][]byte, pcs []int64, grid [3]int64) {
	r := rand.New(rand.NewPCG(seed, 7))
	k := d.Kernel
	for i, v := range d.Bindings {
		n := int64(1)
		if tt, ok := v.Type.(*ir.RankedTensorType); ok {
			for _, x := range tt.Dims {
				if x < 0 {
					x = SweepDynamicDim
				}
				n *= x
			}
		}
		s := k.Bindings[i].Elem
		if k.Bindings[i].Access&kir.Read == 0 {
			bufs = append(bufs, make([]byte, n*int64(s.ByteSize())))
			continue
		}
		if s.IsFloat() {
			xs := make([]float64, n)
			for j := range xs {
				xs[j] = r.Float64()*4 - 2
				if wide && j%3 == 0 {
					xs[j] *= math.Pow(10, float64(r.IntN(9)-4))
				}
			}
			bufs = append(bufs, EncFloats(s, xs))
			continue
		}
		xs := make([]int64, n)
		for j := range xs {
			switch {
			case s == kir.I1:
				xs[j] = int64(r.IntN(2))
			case !wide:
				xs[j] = int64(r.IntN(16)) - 4
			case j%2 == 0:
				xs[j] = int64(r.IntN(512)) - 256
			default:
				xs[j] = int64(r.Uint64())
			}
		}
		bufs = append(bufs, EncInts(s, xs))
	}
	for _, p := range d.Push {
		if p.Dim < 0 {
			pcs = append(pcs, 3)
			continue
		}
		x := int64(SweepDynamicDim)
		if tt, ok := p.Value.Type.(*ir.RankedTensorType); ok && tt.Dims[p.Dim] >= 0 {
			x = tt.Dims[p.Dim]
		}
		pcs = append(pcs, x)
	}
	for i, g := range k.Grid {
		n := g.Static
		for _, pc := range g.PushConstants {
			n *= pcs[pc]
		}
		grid[i] = max((n+g.Tile-1)/g.Tile, 1)
	}
	return bufs, pcs, grid
}
