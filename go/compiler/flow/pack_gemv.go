package flow

import (
	"bytes"
	"fmt"

	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// A matrix-vector product with a constant matrix (a classifier's Gemm:
// one row of activations times a weight read once per inference) reads
// the whole weight from memory along its rows, far apart. packConstantGEMV
// stores such a weight packed instead, as IREE's data tiling and
// onnxruntime's prepacked weights do: blocks of w columns, each a
// contiguous K×w panel, so the product reads one sequential stream.
//
// C[0, n] = Σ_k A[0, k]·B[k, n] (B a constant [K, N] or [N, K]) becomes
// C'[b, 0, j] = Σ_k A[0, k]·P[b, k, j], P[b, k, j] = B[k, b·w + j], a
// batched product whose A is shared by every batch element, followed by
// a reshape of C' [N/w, 1, w] to C [1, N] (the same elements in the same
// order). Every element's sum keeps its k order: results are unchanged.
//
// Measured on MobileNetV2's classifier (1×1280 · 1280×1000, transposed
// weight), llvm-cpu, alone with the weight in cache: 51 → 32 µs at two
// threads; see docs/performance.md for the model.
const (
	packMinN     = 256
	packMinK     = 64
	packMaxWidth = 64
)

// packConstantGEMVs applies the packing to every eligible generic of fn.
func packConstantGEMVs(m *ir.Module, fn *ir.Operation) {
	for _, op := range generics(fn) {
		packConstantGEMV(m, fn, op)
	}
}

// generics lists fn's linalg.generic ops (not those nested in one), so
// that a rewrite may replace them as it goes.
func generics(fn *ir.Operation) []*ir.Operation {
	var gens []*ir.Operation
	fn.Walk(func(op *ir.Operation) bool {
		if op.Name == linalg.GenericName {
			gens = append(gens, op)
			return false
		}
		return true
	})
	return gens
}

// packWidth returns the panel width for N columns: the divisor of N in
// [16, packMaxWidth] that wastes the fewest lanes of 8-lane vectors
// (ties: the wider), or 0 when none.
func packWidth(n int64) int64 {
	best, bestEff := int64(0), 0.0
	for w := int64(16); w <= packMaxWidth; w++ {
		if n%w != 0 {
			continue
		}
		eff := float64(w) / float64((w+7)/8*8)
		if eff >= bestEff {
			best, bestEff = w, eff
		}
	}
	return best
}

// packConstantGEMV rewrites op when it is C = A·B with one static row,
// a constant f32 B of at least packMinK × packMinN, C starting from a
// fill, and N with a panel width (packWidth).
func packConstantGEMV(m *ir.Module, fn, op *ir.Operation) {
	g, ok := linalg.AsGeneric(op)
	if !ok {
		return
	}
	sh, ok := linalg.MatchContract(g)
	if !ok || sh.Batch >= 0 {
		return
	}
	maps := g.Maps()
	A, B, C := g.Inputs()[0], g.Inputs()[1], g.Outputs()[0]
	at, bt, ct := rankedF32(A), rankedF32(B), rankedF32(C)
	if at == nil || bt == nil || ct == nil || len(at.Dims) != 2 || len(bt.Dims) != 2 || len(ct.Dims) != 2 {
		return
	}
	// A is [M, K] and C [M, N] in that order; B either way.
	pos := func(mp *ir.AffineMap, loop int) int {
		for i, r := range mp.Results {
			if r.(*ir.AffineDimExpr).Pos == loop {
				return i
			}
		}
		return -1
	}
	if pos(maps[0], sh.M) != 0 || pos(maps[2], sh.M) != 0 || at.Dims[0] != 1 {
		return
	}
	K, N := at.Dims[1], ct.Dims[1]
	transposed := pos(maps[1], sh.N) == 0 // B is [N, K]
	w := packWidth(N)
	if K < packMinK || N < packMinN || w == 0 {
		return
	}
	// The fill's scalar, unless it is a constant inside the fill's body
	// (the new fill below could not read it there).
	fill := FillScalar(C)
	data := constantF32(B)
	if fill == nil || data == nil || fill.ParentBlock() == C.Owner().Regions[0].Blocks[0] {
		return
	}
	nb := N / w
	packed := make([]byte, 4*N*K)
	for b := int64(0); b < nb; b++ {
		for k := int64(0); k < K; k++ {
			for j := int64(0); j < w; j++ {
				n := b*w + j
				src := k*N + n
				if transposed {
					src = n*K + k
				}
				copy(packed[4*((b*K+k)*w+j):], data[4*src:4*src+4])
			}
		}
	}
	res := &ir.Resource{Dialect: "builtin", Key: uniqueKey(m, "__gree_gemv_packed"), Blob: packed, Alignment: 64, Defined: true}
	m.Resources = append(m.Resources, res)

	b := ir.NewBuilder(op.Loc)
	b.SetInsertionPointBefore(op)
	pt := ir.Tensor([]int64{nb, K, w}, ir.F32)
	P := b.Constant(&ir.DenseResourceAttr{Type: pt, Resource: res})
	outT := ir.Tensor([]int64{nb, 1, w}, ir.F32)
	init := copyTo(b, fill, &ir.AffineMap{NumDims: 3}, outT)
	// Loops (b, m, n, k).
	prod := linalg.BuildGeneric(b, []*ir.Value{A, P}, []*ir.Value{init},
		[]*ir.AffineMap{linalg.DimMap(4, 1, 3), linalg.DimMap(4, 0, 3, 2), linalg.DimMap(4, 0, 1, 2)},
		[]linalg.Iterator{linalg.Parallel, linalg.Parallel, linalg.Parallel, linalg.Reduction},
		func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
			mul := bb.Create("arith.mulf", []*ir.Value{args[0], args[1]}, []ir.Type{ir.F32}).Result(0)
			return []*ir.Value{bb.Create("arith.addf", []*ir.Value{args[2], mul}, []ir.Type{ir.F32}).Result(0)}
		}).Result(0)
	shape := b.Constant(&ir.DenseElementsAttr{Type: ir.Tensor([]int64{2}, ir.I64), Ints: []int64{1, N}})
	out := b.Create("tensor.reshape", []*ir.Value{prod, shape}, []ir.Type{op.Results[0].Type}).Result(0)
	ir.ReplaceAllUsesWith(fn, op.Results[0], out)
	op.Erase()
}

// rankedF32 returns v's type when it is a static f32 tensor.
func rankedF32(v *ir.Value) *ir.RankedTensorType {
	t, ok := v.Type.(*ir.RankedTensorType)
	if !ok || t.Elem.String() != "f32" || !ir.HasStaticShape(t) {
		return nil
	}
	return t
}

// FillScalar returns the scalar a tensor is filled with when v is the
// result of a fill (a generic, possibly inside a dispatch region, that
// yields one scalar from outside its body), or nil.
func FillScalar(v *ir.Value) *ir.Value {
	def := v.Owner()
	if def == nil {
		return nil
	}
	if def.Name == RegionName {
		ret := def.Regions[0].Blocks[0].Terminator()
		if ret == nil || v.Index() >= len(ret.Operands) {
			return nil
		}
		return FillScalar(ret.Operands[v.Index()])
	}
	g, ok := linalg.AsGeneric(def)
	if !ok || len(def.Results) != 1 {
		return nil
	}
	body := g.Body()
	y := body.Terminator()
	if y == nil || len(y.Operands) != 1 {
		return nil
	}
	s := y.Operands[0]
	if s.ArgBlock() == body && s.Index() < g.NumInputs() {
		in := g.Inputs()[s.Index()]
		if _, isTensor := in.Type.(*ir.RankedTensorType); !isTensor {
			return in
		}
		return nil
	}
	if s.ParentBlock() != body && !s.IsBlockArgument() {
		return s
	}
	if c := s.Owner(); c != nil && c.Name == "arith.constant" && len(body.Ops) == 2 {
		return s
	}
	return nil
}

// constantF32 returns the little-endian f32 data of the arith.constant
// that defines v, or nil.
func constantF32(v *ir.Value) []byte { return constantData(v, 4) }

// constantData returns the little-endian data of the arith.constant that
// defines v, whose elements are size bytes each, or nil.
func constantData(v *ir.Value, size int64) []byte {
	op := v.Owner()
	if op == nil || op.Name != "arith.constant" {
		return nil
	}
	switch a := op.Attr("value").(type) {
	case *ir.DenseResourceAttr:
		n, _ := ir.NumElements(a.Type.(*ir.RankedTensorType).Dims)
		if a.Resource.Blob != nil && int64(len(a.Resource.Blob)) == size*n {
			return a.Resource.Blob
		}
	case *ir.DenseElementsAttr:
		raw, err := a.Bytes()
		if err != nil {
			return nil
		}
		n, _ := ir.NumElements(a.Type.(*ir.RankedTensorType).Dims)
		if a.Splat {
			raw = bytes.Repeat(raw, int(n))
		}
		if int64(len(raw)) != size*n {
			return nil
		}
		return raw
	}
	return nil
}

// uniqueKey returns stem, or stem_<n>, whichever no resource of m uses.
func uniqueKey(m *ir.Module, stem string) string {
	key := stem
	for i := 1; m.Resource("builtin", key) != nil; i++ {
		key = fmt.Sprintf("%s_%d", stem, i)
	}
	return key
}
