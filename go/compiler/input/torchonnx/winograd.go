package torchonnx

import (
	"encoding/binary"
	"math"

	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// Winograd convolutions: a 3×3 convolution with unit strides computed by
// Winograd's minimal filtering algorithm F(4×4, 3×3) (Lavin and Gray,
// "Fast Algorithms for Convolutional Neural Networks", 2016). Each 4×4
// block of outputs (a tile) comes from the 6×6 input patch d around it:
//
//	Y = Aᵀ·[(G·g·Gᵀ) ⊙ (Bᵀ·d·B)]·A
//
// for each input channel's 3×3 filter g, summed over the input channels.
// The element-wise product summed over channels is, for each of the 36
// points of a 6×6 transformed tile, a matrix product of the transformed
// filters U [K, C] and the transformed input tiles V [C, tiles]: 36
// products with 4 multiply-adds per output where the direct convolution
// has 9. The transforms are matrix products too, with Kronecker products
// of the transform matrices (their zeros cost multiply-adds, but they run
// on the same GEMM kernels): V = (Bᵀ⊗Bᵀ)·patches, Y = (Aᵀ⊗Aᵀ)·M. The
// filters' transform U = (G⊗G)·g runs at compile time.
//
// Measured on llvm-cpu (two Zen 4 cores, prototype of this form against
// the tapped convolution, 3×3 with as many output as input channels):
// 2.4× faster at 28×28 and 128 channels, 1.9× at 14×14 and 256 (in a
// whole ResNet less: its 9 MiB of transformed filters per layer stream
// from memory), about 1.2× at 56×56 and 64 (the input transform's product
// costs as much as a third of the main products with few channels), 2×
// slower at 7×7 and 512 (4 tiles: the 36 products read 36×C×K weights for
// 4 columns). The transformed filters are 4× the weight, so only layers
// whose filters stay small are transformed (winogradMaxFilterBytes).
var (
	winogradBT = [6][6]float64{
		{4, 0, -5, 0, 1, 0},
		{0, -4, -4, 1, 1, 0},
		{0, 4, -4, -1, 1, 0},
		{0, -2, -1, 2, 1, 0},
		{0, 2, -1, -2, 1, 0},
		{0, 4, 0, -5, 0, 1},
	}
	winogradG = [6][3]float64{
		{1.0 / 4, 0, 0},
		{-1.0 / 6, -1.0 / 6, -1.0 / 6},
		{-1.0 / 6, 1.0 / 6, -1.0 / 6},
		{1.0 / 24, 1.0 / 12, 1.0 / 6},
		{1.0 / 24, -1.0 / 12, 1.0 / 6},
		{0, 0, 1},
	}
	winogradAT = [4][6]float64{
		{1, 1, 1, 1, 1, 0},
		{0, 1, -1, 2, -2, 0},
		{0, 1, 1, 4, 4, 0},
		{0, 1, -1, 8, -8, 1},
	}
)

// Limits of winograd (measured, see above).
const (
	// winogradMinChannels is the fewest input and output channels.
	winogradMinChannels = 128
	// winogradMinTiles is the fewest 4×4 output tiles (14×14 outputs
	// make 16).
	winogradMinTiles = 16
	// winogradTileColumns is the fewest tiles that are the 36 products'
	// columns; with fewer (16 at 14×14) they are the rows, and the output
	// channels the columns, which fill the GEMM kernel's 32-wide column
	// blocks (16 columns ran at half its rate).
	winogradTileColumns = 128
	// winogradMaxFilterBytes bounds one convolution's transformed filters
	// (36·K·C f32, 4× its weight): ResNet's 128-channel layers (2.25 MiB)
	// but not its 256-channel ones (9 MiB each, 1.9× faster at 14×14 but
	// 54 MB more module and compile memory on resnet50, whose compile
	// stays within three times its weights).
	winogradMaxFilterBytes = 4 << 20
)

// winograd reports whether a convolution of input xt, weight w and result
// rt runs as convWinograd: f32 at batch 1, a 3×3 window with unit strides
// and dilations, at least winogradMinChannels input and output channels
// (and transformed filters of at most winogradMaxFilterBytes),
// at least winogradMinTiles tiles, and a constant weight (transformed at
// compile time).
func winograd(xt *ir.RankedTensorType, w *ir.Value, rt *ir.RankedTensorType, strides, dil []int64) bool {
	wt := tt(w)
	if len(xt.Dims) != 4 || len(wt.Dims) != 4 || len(rt.Dims) != 4 || xt.Dims[0] != 1 || !ir.HasStaticShape(xt) {
		return false
	}
	for _, t := range []*ir.RankedTensorType{xt, wt, rt} {
		if !ir.TypesEqual(t.Elem, ir.F32) {
			return false
		}
	}
	if wt.Dims[2] != 3 || wt.Dims[3] != 3 || strides[0] != 1 || strides[1] != 1 || dil[0] != 1 || dil[1] != 1 {
		return false
	}
	if wt.Dims[0] < winogradMinChannels || wt.Dims[1] < winogradMinChannels || 36*4*wt.Dims[0]*wt.Dims[1] > winogradMaxFilterBytes {
		return false
	}
	if (rt.Dims[2]+3)/4*((rt.Dims[3]+3)/4) < winogradMinTiles {
		return false
	}
	return w.Owner() != nil && w.Owner().Name == "arith.constant"
}

// convWinograd is the convolution of x [1, C, H, W] with the constant
// weight w [K, C, 3, 3] (low: the padding before each spatial axis) as
// F(4×4, 3×3) (see above), or nil when the weight's elements cannot be
// read.
func convWinograd(b *ir.Builder, x, w, bias *ir.Value, rt *ir.RankedTensorType, low []int64) *ir.Value {
	g := constF32(w)
	if g == nil {
		return nil
	}
	xt := tt(x)
	C, H, W, K := xt.Dims[1], xt.Dims[2], xt.Dims[3], rt.Dims[1]
	OH, OW := rt.Dims[2], rt.Dims[3]
	TH, TW := (OH+3)/4, (OW+3)/4
	T := TH * TW
	f32 := ir.Tensor
	// Padded so that every tile's patch lies inside: rows 0 … 4·TH+1.
	pin := padWithValue(b, x, []int64{0, 0, low[0], low[1]}, []int64{0, 0, 4*TH + 2 - H - low[0], 4*TW + 2 - W - low[1]}, 0)
	// patches[i, j, c, ty, tx] = pin[0, c, 4·ty+i, 4·tx+j]
	pm := &ir.AffineMap{NumDims: 5, Results: []ir.AffineExpr{cstExpr(0), dimExpr(2),
		addExpr(mulExpr(dimExpr(3), 4), dimExpr(0)), addExpr(mulExpr(dimExpr(4), 4), dimExpr(1))}}
	patches := copyGeneric(b, pin, pm, f32([]int64{6, 6, C, TH, TW}, ir.F32))
	v := product(b, kronConst(b, winogradBT[:], winogradBT[:]), reshape(b, patches, f32([]int64{36, C * T}, ir.F32)), false)
	v3 := reshape(b, v, f32([]int64{36, C, T}, ir.F32))
	// M [36, K, T] = U·V per point; with few tiles the tiles are the rows
	// instead (Mᵀ = Vᵀ·Uᵀ, [36, T, K]), so that the output channels fill
	// the kernel's column blocks.
	rows := T < winogradTileColumns
	var m *ir.Value
	if rows {
		m = product(b, v3, blobConst(b, f32([]int64{36, C, K}, ir.F32), "__gree_winograd_filters", winogradFilters(g, K, C, true)), true)
	} else {
		m = product(b, blobConst(b, f32([]int64{36, K, C}, ir.F32), "__gree_winograd_filters", winogradFilters(g, K, C, false)), v3, false)
	}
	y := product(b, kronConst(b, winogradAT[:], winogradAT[:]), reshape(b, m, f32([]int64{36, K * T}, ir.F32)), false)
	// out[k, ty, p, tx, q] = y[p, q, k, ty, tx] (rows: y[p, q, ty, tx, k]):
	// the tiles in place.
	ydims, om := []int64{4, 4, K, TH, TW}, &ir.AffineMap{NumDims: 5, Results: []ir.AffineExpr{dimExpr(2), dimExpr(4), dimExpr(0), dimExpr(1), dimExpr(3)}}
	if rows {
		ydims, om = []int64{4, 4, TH, TW, K}, &ir.AffineMap{NumDims: 5, Results: []ir.AffineExpr{dimExpr(2), dimExpr(4), dimExpr(1), dimExpr(3), dimExpr(0)}}
	}
	out := copyGeneric(b, reshape(b, y, f32(ydims, ir.F32)), om, f32([]int64{K, TH, 4, TW, 4}, ir.F32))
	out = reshape(b, out, f32([]int64{1, K, 4 * TH, 4 * TW}, ir.F32))
	if 4*TH != OH || 4*TW != OW {
		out = copyGeneric(b, out, linalg.Identity(4), rt)
	}
	if bias != nil {
		bm := &ir.AffineMap{NumDims: 4, Results: []ir.AffineExpr{dimExpr(1)}}
		out = linalg.BuildGeneric(b, []*ir.Value{out, bias}, []*ir.Value{empty(b, rt)}, []*ir.AffineMap{linalg.Identity(4), bm, linalg.Identity(4)}, core.Parallel(4), func(bb *ir.Builder, a []*ir.Value) []*ir.Value {
			return []*ir.Value{sc{bb, ir.F32}.add(a[0], a[1])}
		}).Result(0)
	}
	return out
}

// winogradFilters is U [36, K, C] of the weight g [K, C, 3, 3] (when
// transposed, [36, C, K]) as little-endian f32: for each filter, G·g·Gᵀ
// (6×6, row-major in the first axis), computed in float64.
func winogradFilters(g []float32, K, C int64, transposed bool) []byte {
	u := make([]byte, 4*36*K*C)
	var t [6][3]float64
	for k := int64(0); k < K; k++ {
		for c := int64(0); c < C; c++ {
			f := g[(k*C+c)*9:]
			for a := range 6 {
				for j := range 3 {
					t[a][j] = winogradG[a][0]*float64(f[j]) + winogradG[a][1]*float64(f[3+j]) + winogradG[a][2]*float64(f[6+j])
				}
			}
			for a := range 6 {
				for bb := range 6 {
					s := t[a][0]*winogradG[bb][0] + t[a][1]*winogradG[bb][1] + t[a][2]*winogradG[bb][2]
					i := (int64(a*6+bb)*K+k)*C + c
					if transposed {
						i = (int64(a*6+bb)*C+c)*K + k
					}
					binary.LittleEndian.PutUint32(u[4*i:], math.Float32bits(float32(s)))
				}
			}
		}
	}
	return u
}

// constF32 returns the elements of an f32 constant, or nil.
func constF32(v *ir.Value) []float32 {
	op := v.Owner()
	if op == nil || op.Name != "arith.constant" {
		return nil
	}
	n, _ := ir.NumElements(tt(v).Dims)
	out := make([]float32, n)
	if a, ok := op.Attr("value").(*ir.DenseResourceAttr); ok && int64(len(a.Resource.Blob)) == 4*n {
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(a.Resource.Blob[4*i:]))
		}
		return out
	}
	d := constElements(v)
	if d == nil {
		return nil
	}
	for i := range out {
		out[i] = float32(d.FloatAt(int64(i)))
	}
	return out
}

// blobConst is a constant of type t whose elements are the little-endian
// bytes data, held in a resource of its own (named key; input.Run adds it
// to the module's resources, with a unique name).
func blobConst(b *ir.Builder, t *ir.RankedTensorType, key string, data []byte) *ir.Value {
	res := &ir.Resource{Dialect: "builtin", Key: key, Blob: data, Alignment: 64, Defined: true}
	return b.Create("arith.constant", nil, []ir.Type{t}, ir.Named("value", &ir.DenseResourceAttr{Type: t, Resource: res})).Result(0)
}

// kronConst is the constant Kronecker product p⊗q of two matrices with 6
// columns: (p⊗q)[a·len(q)+b, i·6+j] = p[a][i]·q[b][j].
func kronConst(b *ir.Builder, p, q [][6]float64) *ir.Value {
	rows := int64(len(p) * len(q))
	vals := make([]float64, 0, rows*36)
	for _, pa := range p {
		for _, qb := range q {
			for i := range 6 {
				for j := range 6 {
					vals = append(vals, pa[i]*qb[j])
				}
			}
		}
	}
	return denseOf(b, ir.Tensor([]int64{rows, 36}, ir.F32), vals, nil)
}
