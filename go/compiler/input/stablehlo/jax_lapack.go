package stablehlo

import (
	"strconv"
	"strings"

	"github.com/gree-ml/gree/go/compiler/input/core"
	"github.com/gree-ml/gree/go/compiler/ir"
)

// JAX lowers jnp.linalg.cholesky, jax.scipy.linalg.solve_triangular and
// the LU-based solvers (jnp.linalg.solve, inv, det, slogdet, lu) on CPU to
// LAPACK custom calls: @lapack_{s,d}potrf_ffi, @lapack_{s,d}trsm_ffi and
// @lapack_{s,d}getrf_ffi.
// rewriteLAPACK replaces the real ones with the same algorithms
// written as a host scf.for over StableHLO ops (one row or column per
// step), which the conversion then compiles like the rest of the program.
// Batched calls (vmap) loop over their matrices. Complex calls and the
// other LAPACK routines stay errors naming their target.
func rewriteLAPACK(fn *ir.Operation) {
	var calls []*ir.Operation
	fn.Walk(func(op *ir.Operation) bool {
		if op.Name == "stablehlo.custom_call" {
			t := callTarget(op)
			switch strings.TrimSuffix(strings.TrimPrefix(t, "lapack_"), "_ffi") {
			case "spotrf", "dpotrf", "strsm", "dtrsm", "sgetrf", "dgetrf":
				calls = append(calls, op)
			}
		}
		return true
	})
	for _, op := range calls {
		nb := batchDims(op)
		if nb < 0 || !lapackShapesOK(op, nb) {
			continue
		}
		b := ir.NewBuilder(op.Loc)
		b.SetInsertionPointBefore(op)
		run := func(b *ir.Builder, ins []*ir.Value) []*ir.Value {
			switch t := callTarget(op); {
			case strings.Contains(t, "potrf"):
				return potrf(b, op, ins[0])
			case strings.Contains(t, "getrf"):
				return getrf(b, op, ins[0])
			}
			return []*ir.Value{trsm(b, op, ins[0], ins[1])}
		}
		var vals []*ir.Value
		if nb == 0 {
			vals = run(b, op.Operands)
		} else {
			vals = batchedLAPACK(b, op, nb, run)
		}
		for i, res := range op.Results {
			ir.ReplaceAllUsesWith(fn, res, vals[i])
		}
		op.Erase()
	}
}

// lapackShapesOK checks what the algorithms assume: static shapes, nb
// leading batch dimensions shared by every operand and result, then
// matrices (a square one for potrf and trsm's A), and the result counts.
func lapackShapesOK(op *ir.Operation, nb int) bool {
	var batch []int64
	mats := [][]int64{}
	for _, v := range append(append([]*ir.Value{}, op.Operands...), op.Results...) {
		t, ok := v.Type.(*ir.RankedTensorType)
		if !ok || !ir.HasStaticShape(t) || len(t.Dims) < nb || (isOperand(op, v) && !ir.IsFloat(t.Elem)) {
			return false
		}
		if batch == nil {
			batch = t.Dims[:nb]
		}
		for i := 0; i < nb; i++ {
			if t.Dims[i] != batch[i] {
				return false
			}
		}
		mats = append(mats, t.Dims[nb:])
	}
	square := func(d []int64) bool { return len(d) == 2 && d[0] == d[1] }
	switch t := callTarget(op); {
	case strings.Contains(t, "potrf"):
		return len(op.Operands) == 1 && len(op.Results) == 2 && square(mats[0])
	case strings.Contains(t, "getrf"):
		return len(op.Operands) == 1 && len(op.Results) == 3 && len(mats[0]) == 2
	}
	return len(op.Operands) == 2 && len(op.Results) == 1 && square(mats[0]) && len(mats[1]) == 2
}

func isOperand(op *ir.Operation, v *ir.Value) bool {
	for _, o := range op.Operands {
		if o == v {
			return true
		}
	}
	return false
}

// batchedLAPACK runs the algorithm once per matrix of a batched call (its
// leading nb dimensions flattened) in a host loop.
func batchedLAPACK(b *ir.Builder, op *ir.Operation, nb int, run func(*ir.Builder, []*ir.Value) []*ir.Value) []*ir.Value {
	h := hlo{b, ir.ElementTypeOf(op.Operands[0].Type)}
	flat := func(t *ir.RankedTensorType) (int64, []int64) {
		n := int64(1)
		for _, d := range t.Dims[:nb] {
			n *= d
		}
		return n, t.Dims[nb:]
	}
	var ins []*ir.Value
	for _, v := range op.Operands {
		n, rest := flat(v.Type.(*ir.RankedTensorType))
		ins = append(ins, h.reshape(v, append([]int64{n}, rest...)...))
	}
	var inits []*ir.Value
	for _, r := range op.Results {
		t := r.Type.(*ir.RankedTensorType)
		n, rest := flat(t)
		ft := ir.Tensor(append([]int64{n}, rest...), t.Elem)
		var zero *ir.DenseElementsAttr
		if ir.IsFloat(t.Elem) {
			zero = ir.DenseSplat(ft, 0.0)
		} else {
			zero = ir.DenseSplat(ft, int64(0))
		}
		inits = append(inits, h.op("constant", nil, ft, ir.Named("value", zero)))
	}
	n, _ := flat(op.Operands[0].Type.(*ir.RankedTensorType))
	outs := core.ForLoop(b, n, inits, func(bb *ir.Builder, i *ir.Value, carried []*ir.Value) []*ir.Value {
		h := hlo{bb, h.elem}
		it := h.indexTensor(i)
		zi := h.i32(0)
		var mats []*ir.Value
		for _, v := range ins {
			d := v.Type.(*ir.RankedTensorType).Dims
			at := []*ir.Value{it}
			for range d[1:] {
				at = append(at, zi)
			}
			mats = append(mats, h.reshape(h.slice(v, at, append([]int64{1}, d[1:]...)...), d[1:]...))
		}
		vals := run(bb, mats)
		next := make([]*ir.Value, len(vals))
		for k, v := range vals {
			d := v.Type.(*ir.RankedTensorType).Dims
			at := []*ir.Value{it}
			for range d {
				at = append(at, zi)
			}
			one := h.reshape(v, append([]int64{1}, d...)...)
			next[k] = h.op("dynamic_update_slice", append([]*ir.Value{carried[k], one}, at...), carried[k].Type)
		}
		return next
	})
	vals := make([]*ir.Value, len(outs)) // outs is the loop's own result list
	for k, r := range op.Results {
		vals[k] = h.reshape(outs[k], r.Type.(*ir.RankedTensorType).Dims...)
	}
	return vals
}

// batchDims is the call's num_batch_dims frontend attribute (-1 when
// unreadable).
func batchDims(op *ir.Operation) int {
	fa, ok := op.Attr("mhlo.frontend_attributes").(*ir.DictAttr)
	if !ok {
		return 0
	}
	s, ok := fa.Get("num_batch_dims").(*ir.StringAttr)
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(s.Value)
	if err != nil || n < 0 {
		return -1
	}
	return n
}

// lapackFlag reads a one-character LAPACK option (uplo, side, trans_x,
// diag) from the call's backend config.
func lapackFlag(op *ir.Operation, name string) byte {
	cfg, _ := op.Attr("mhlo.backend_config").(*ir.DictAttr)
	if cfg == nil {
		return 0
	}
	if a, ok := cfg.Get(name).(*ir.IntegerAttr); ok {
		return byte(a.Value)
	}
	return 0
}

// potrf: the Cholesky factor of the uplo triangle of a (A = L Lᵀ or
// A = Uᵀ U), column by column; the other triangle keeps a's values, as
// LAPACK leaves them. info is 0, or the 1-based order of the first
// leading minor that is not positive definite.
func potrf(b *ir.Builder, op *ir.Operation, a *ir.Value) []*ir.Value {
	at := a.Type.(*ir.RankedTensorType)
	n := at.Dims[0]
	h := hlo{b, at.Elem}
	upper := lapackFlag(op, "uplo") == 'U'
	src := a
	if upper { // Uᵀ U = A: U is the lower factor of Aᵀ, transposed
		src = h.transpose(a)
	}
	zi := h.i32(0)
	iota := h.iota(0, n)
	res := core.ForLoop(b, n, []*ir.Value{h.zeros(n, n), zi}, func(bb *ir.Builder, j *ir.Value, c []*ir.Value) []*ir.Value {
		h := hlo{bb, at.Elem}
		l, info := c[0], c[1]
		jt := h.indexTensor(j)
		row := h.reshape(h.slice(l, []*ir.Value{jt, zi}, 1, n), n)
		ajj := h.reshape(h.slice(src, []*ir.Value{jt, jt}, 1, 1))
		d := h.bin("subtract", ajj, h.dot(row, row, 0, 0))
		// info: the first j whose pivot is not positive (or is NaN).
		bad := h.op("not", []*ir.Value{h.cmp("GT", "FLOAT", d, h.zerosLike(d))}, ir.WithElementType(d.Type, ir.I1))
		first := h.bin("and", bad, h.cmp("EQ", "SIGNED", info, zi))
		info = h.sel(first, h.bin("add", jt, h.i32(1)), info)
		ljj := h.op("sqrt", []*ir.Value{d}, d.Type)
		acol := h.reshape(h.slice(src, []*ir.Value{zi, jt}, n, 1), n)
		lb := h.bcast(ljj, nil, n)
		col := h.bin("divide", h.bin("subtract", acol, h.dot(l, row, 1, 0, n)), lb)
		jb := h.bcast(jt, nil, n)
		col = h.sel(h.cmp("GT", "SIGNED", iota, jb), col, h.zeros(n))
		col = h.sel(h.cmp("EQ", "SIGNED", iota, jb), lb, col)
		l = h.op("dynamic_update_slice", []*ir.Value{l, h.reshape(col, n, 1), zi, jt}, l.Type)
		return []*ir.Value{l, info}
	})
	l := res[0]
	// The strictly upper part of the lower factor holds a's values.
	rows, cols := h.iota(0, n, n), h.iota(1, n, n)
	if upper {
		l = h.transpose(l)
		l = h.sel(h.cmp("LE", "SIGNED", rows, cols), l, a)
	} else {
		l = h.sel(h.cmp("GE", "SIGNED", rows, cols), l, a)
	}
	return []*ir.Value{l, res[1]}
}

// trsm solves op(A) X = B (side L) or X op(A) = B (side R) for X, A
// triangular (uplo), op(A) = A or Aᵀ (trans_x), with a unit diagonal when
// diag is 'U': row by row substitution.
func trsm(b *ir.Builder, op *ir.Operation, a, bm *ir.Value) *ir.Value {
	at := a.Type.(*ir.RankedTensorType)
	h := hlo{b, at.Elem}
	lower := lapackFlag(op, "uplo") != 'U'
	trans := lapackFlag(op, "trans_x") != 'N'
	right := lapackFlag(op, "side") == 'R'
	unit := lapackFlag(op, "diag") == 'U'
	// Solve M Y = C with M = op(A) (left) or op(A)ᵀ (right, Y = Xᵀ).
	m, c := a, bm
	if trans != right {
		m, lower = h.transpose(a), !lower
	}
	if right {
		c = h.transpose(bm)
	}
	n, k := at.Dims[0], c.Type.(*ir.RankedTensorType).Dims[1]
	zi := h.i32(0)
	iota := h.iota(0, n)
	y := core.ForLoop(b, n, []*ir.Value{h.zeros(n, k)}, func(bb *ir.Builder, t *ir.Value, cur []*ir.Value) []*ir.Value {
		h := hlo{bb, at.Elem}
		x := cur[0]
		it := h.indexTensor(t)
		if !lower { // backward substitution: rows n-1 … 0
			it = h.bin("subtract", h.i32(n-1), it)
		}
		row := h.reshape(h.slice(m, []*ir.Value{it, zi}, 1, n), n)
		ib := h.bcast(it, nil, n)
		dir := "LT"
		if !lower {
			dir = "GT"
		}
		row = h.sel(h.cmp(dir, "SIGNED", iota, ib), row, h.zeros(n))
		ci := h.reshape(h.slice(c, []*ir.Value{it, zi}, 1, k), k)
		xi := h.bin("subtract", ci, h.dot(row, x, 0, 0, k))
		if !unit {
			mii := h.reshape(h.slice(m, []*ir.Value{it, it}, 1, 1))
			xi = h.bin("divide", xi, h.bcast(mii, nil, k))
		}
		return []*ir.Value{h.op("dynamic_update_slice", []*ir.Value{x, h.reshape(xi, 1, k), it, zi}, x.Type)}
	})[0]
	if right {
		y = h.transpose(y)
	}
	return y
}

// getrf: the LU factorization with partial pivoting of an m×n matrix, as
// LAPACK's getrf returns it: L (unit diagonal, below) and U (on and above)
// in one matrix, the 1-based pivot rows, and info (0, or the 1-based
// column of the first zero pivot). Step j picks the largest |a[i][j]|,
// i ≥ j (the first one on ties), swaps rows, scales the column below the
// pivot and updates the trailing matrix.
func getrf(b *ir.Builder, op *ir.Operation, a *ir.Value) []*ir.Value {
	at := a.Type.(*ir.RankedTensorType)
	m, n := at.Dims[0], at.Dims[1]
	k := min(m, n)
	h := hlo{b, at.Elem}
	zi := h.i32(0)
	rowsV, colsV := h.iota(0, m), h.iota(0, n)
	pivT := ir.Tensor([]int64{k}, ir.I32)
	piv0 := h.op("constant", nil, pivT, ir.Named("value", ir.DenseSplat(pivT, int64(0))))
	res := core.ForLoop(b, k, []*ir.Value{a, piv0, zi}, func(bb *ir.Builder, j *ir.Value, c []*ir.Value) []*ir.Value {
		h := hlo{bb, at.Elem}
		lu, piv, info := c[0], c[1], c[2]
		jt := h.indexTensor(j)
		jm := h.bcast(jt, nil, m)
		// The pivot row: the first i ≥ j with the largest |a[i][j]|.
		col := h.reshape(h.slice(lu, []*ir.Value{zi, jt}, m, 1), m)
		mag := h.sel(h.cmp("GE", "SIGNED", rowsV, jm), h.op("abs", []*ir.Value{col}, col.Type), h.bcast(h.scalar(-1), nil, m))
		best := h.reduce("maximum", mag, h.scalar(-1))
		isBest := h.cmp("EQ", "FLOAT", mag, h.bcast(best, nil, m))
		p := h.reduce("minimum", h.sel(isBest, rowsV, h.bcast(h.i32(m), nil, m)), h.i32(m))
		p = h.op("minimum", []*ir.Value{p, h.i32(m - 1)}, p.Type) // all-NaN column: stay in range
		piv = h.op("dynamic_update_slice", []*ir.Value{piv, h.reshape(h.bin("add", p, h.i32(1)), 1), jt}, piv.Type)
		// Swap rows j and p.
		rj := h.slice(lu, []*ir.Value{jt, zi}, 1, n)
		rp := h.slice(lu, []*ir.Value{p, zi}, 1, n)
		lu = h.op("dynamic_update_slice", []*ir.Value{lu, rp, jt, zi}, lu.Type)
		lu = h.op("dynamic_update_slice", []*ir.Value{lu, rj, p, zi}, lu.Type)
		// Scale the column below a non-zero pivot.
		pivot := h.reshape(h.slice(lu, []*ir.Value{jt, jt}, 1, 1))
		zero := h.cmp("EQ", "FLOAT", pivot, h.zerosLike(pivot))
		info = h.sel(h.bin("and", zero, h.cmp("EQ", "SIGNED", info, zi)), h.bin("add", jt, h.i32(1)), info)
		col = h.reshape(h.slice(lu, []*ir.Value{zi, jt}, m, 1), m)
		below := h.bin("and", h.cmp("GT", "SIGNED", rowsV, jm), h.op("not", []*ir.Value{h.bcast(zero, nil, m)}, ir.Tensor([]int64{m}, ir.I1)))
		l := h.sel(below, h.bin("divide", col, h.bcast(pivot, nil, m)), col)
		lu = h.op("dynamic_update_slice", []*ir.Value{lu, h.reshape(l, m, 1), zi, jt}, lu.Type)
		// Trailing update: a[i][c] -= l[i] u[c] for i > j, c > j.
		lz := h.sel(below, l, h.zeros(m))
		u := h.reshape(h.slice(lu, []*ir.Value{jt, zi}, 1, n), n)
		u = h.sel(h.cmp("GT", "SIGNED", colsV, h.bcast(jt, nil, n)), u, h.zeros(n))
		outer := h.bin("multiply", h.bcast(lz, []int64{0}, m, n), h.bcast(u, []int64{1}, m, n))
		lu = h.bin("subtract", lu, outer)
		return []*ir.Value{lu, piv, info}
	})
	return res
}
