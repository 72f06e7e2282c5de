package linalg

import "github.com/gree-ml/gree/go/compiler/ir"

// ContractShape is a matmul-shaped generic's loops: batch (-1 when
// absent), m, n and k.
type ContractShape struct {
	Batch, M, N, K int
}

// MatchContract recognizes C[b?,m,n] += A[b?,m,k] * B[b?,k,n] (any operand
// layout, the plain multiply-add body) on tensors: with a batch loop, A
// may leave it out (one A for every batch element, as a packed GEMV's
// vector: see flow's packConstantGEMV); then of the two loops B and C
// share, the outer one in C is the batch.
func MatchContract(op Generic) (ContractShape, bool) {
	if op.NumInputs() != 2 || len(op.Op.Results) != 1 || !IsMulAddBody(op) {
		return ContractShape{}, false
	}
	return MatchContractMaps(op.Maps(), op.Iterators())
}

// MatchContractMaps is MatchContract's test of the loops alone: maps are
// A's, B's and C's indexing maps, its the loops' iterator types.
func MatchContractMaps(maps []*ir.AffineMap, its []Iterator) (ContractShape, bool) {
	if len(maps) != 3 || (len(its) != 3 && len(its) != 4) {
		return ContractShape{}, false
	}
	dims := func(m *ir.AffineMap) (map[int]int, bool) {
		s := map[int]int{}
		for i, r := range m.Results {
			d, ok := r.(*ir.AffineDimExpr)
			if !ok {
				return nil, false
			}
			s[d.Pos] = i + 1
		}
		return s, len(s) == len(m.Results)
	}
	a, ok1 := dims(maps[0])
	b, ok2 := dims(maps[1])
	c, ok3 := dims(maps[2])
	if !ok1 || !ok2 || !ok3 {
		return ContractShape{}, false
	}
	sh := ContractShape{Batch: -1, M: -1, N: -1, K: -1}
	var bc []int // loops of B and C only
	for l, it := range its {
		switch {
		case it == Reduction && a[l] > 0 && b[l] > 0 && c[l] == 0 && sh.K < 0:
			sh.K = l
		case it == Parallel && a[l] > 0 && b[l] > 0 && c[l] > 0 && sh.Batch < 0:
			sh.Batch = l
		case it == Parallel && a[l] > 0 && b[l] == 0 && c[l] > 0 && sh.M < 0:
			sh.M = l
		case it == Parallel && a[l] == 0 && b[l] > 0 && c[l] > 0 && len(bc) < 2:
			bc = append(bc, l)
		default:
			return ContractShape{}, false
		}
	}
	switch {
	case len(bc) == 1:
		sh.N = bc[0]
	case len(bc) == 2 && sh.Batch < 0:
		sh.Batch, sh.N = bc[0], bc[1]
		if c[bc[0]] > c[bc[1]] {
			sh.Batch, sh.N = bc[1], bc[0]
		}
	}
	if sh.M < 0 || sh.N < 0 || sh.K < 0 || (len(its) == 4) != (sh.Batch >= 0) {
		return ContractShape{}, false
	}
	return sh, true
}

// IsMulAddBody reports whether a two-input generic's body is
// yield(addf(out, mulf(in0, in1))), in either operand order.
func IsMulAddBody(op Generic) bool {
	body := op.Body()
	if op.NumInputs() != 2 || len(body.Ops) != 3 || len(body.Args) != 3 {
		return false
	}
	mul, add, y := body.Ops[0], body.Ops[1], body.Ops[2]
	args := body.Args
	isPair := func(o *ir.Operation, x, z *ir.Value) bool {
		return (o.Operands[0] == x && o.Operands[1] == z) || (o.Operands[0] == z && o.Operands[1] == x)
	}
	return mul.Name == "arith.mulf" && add.Name == "arith.addf" && y.Name == "linalg.yield" &&
		isPair(mul, args[0], args[1]) && isPair(add, args[2], mul.Results[0]) && y.Operands[0] == add.Results[0]
}
