package ir

import (
	"fmt"
	"strconv"
	"strings"
)

// AffineExpr is an affine expression over dimensions d_i and symbols s_j.
// Subtraction a - b is represented, as in MLIR, as a + b * -1.
type AffineExpr interface {
	// String returns the expression in MLIR syntax ("d0 + s0 * 2").
	String() string
	// Eval evaluates the expression for the given dimension and symbol
	// values.
	Eval(dims, syms []int64) (int64, error)
}

// AffineDimExpr is the dimension d<Pos>.
type AffineDimExpr struct{ Pos int }

// AffineSymbolExpr is the symbol s<Pos>.
type AffineSymbolExpr struct{ Pos int }

// AffineConstantExpr is an integer constant.
type AffineConstantExpr struct{ Value int64 }

// AffineBinaryKind is the operator of an AffineBinaryExpr.
type AffineBinaryKind uint8

// The affine binary operators.
const (
	AffineAdd AffineBinaryKind = iota
	AffineMul
	AffineMod
	AffineFloorDiv
	AffineCeilDiv
)

var affineOpNames = [...]string{" + ", " * ", " mod ", " floordiv ", " ceildiv "}

// AffineBinaryExpr is LHS <op> RHS.
type AffineBinaryExpr struct {
	Kind     AffineBinaryKind
	LHS, RHS AffineExpr
}

// String returns "d<Pos>".
func (e *AffineDimExpr) String() string { return "d" + strconv.Itoa(e.Pos) }

// String returns "s<Pos>".
func (e *AffineSymbolExpr) String() string { return "s" + strconv.Itoa(e.Pos) }

// String returns the decimal value.
func (e *AffineConstantExpr) String() string { return strconv.FormatInt(e.Value, 10) }

// String prints the expression with the parentheses its structure needs.
func (e *AffineBinaryExpr) String() string {
	if e.Kind == AffineAdd {
		lhs := e.LHS.String()
		if c, ok := e.RHS.(*AffineConstantExpr); ok && c.Value < 0 && c.Value != -c.Value {
			return lhs + " - " + strconv.FormatInt(-c.Value, 10)
		}
		if m, ok := e.RHS.(*AffineBinaryExpr); ok && m.Kind == AffineMul {
			if c, ok := m.RHS.(*AffineConstantExpr); ok && c.Value == -1 {
				inner, ok := m.LHS.(*AffineBinaryExpr)
				return lhs + " - " + affineOperand(m.LHS, ok && inner.Kind == AffineAdd)
			}
		}
		rhs := e.RHS.String()
		if b, ok := e.RHS.(*AffineBinaryExpr); ok && b.Kind == AffineAdd {
			rhs = "(" + rhs + ")"
		}
		return lhs + " + " + rhs
	}
	lhs := e.LHS.String()
	if b, ok := e.LHS.(*AffineBinaryExpr); ok && b.Kind == AffineAdd {
		lhs = "(" + lhs + ")"
	}
	return lhs + affineOpNames[e.Kind] + affineOperand(e.RHS, true)
}

// affineOperand prints e as a right operand, parenthesized when paren is
// set and e is a binary expression.
func affineOperand(e AffineExpr, paren bool) string {
	if _, ok := e.(*AffineBinaryExpr); ok && paren {
		return "(" + e.String() + ")"
	}
	return e.String()
}

// Eval returns dims[Pos].
func (e *AffineDimExpr) Eval(dims, _ []int64) (int64, error) {
	if e.Pos >= len(dims) {
		return 0, fmt.Errorf("ir: affine expression uses d%d but only %d dims were given", e.Pos, len(dims))
	}
	return dims[e.Pos], nil
}

// Eval returns syms[Pos].
func (e *AffineSymbolExpr) Eval(_, syms []int64) (int64, error) {
	if e.Pos >= len(syms) {
		return 0, fmt.Errorf("ir: affine expression uses s%d but only %d symbols were given", e.Pos, len(syms))
	}
	return syms[e.Pos], nil
}

// Eval returns the constant.
func (e *AffineConstantExpr) Eval(_, _ []int64) (int64, error) { return e.Value, nil }

// Eval applies the operator: floordiv and ceildiv round toward -inf and
// +inf, mod returns a result with the sign of the divisor (non-negative for
// a positive divisor); a zero divisor is an error.
func (e *AffineBinaryExpr) Eval(dims, syms []int64) (int64, error) {
	a, err := e.LHS.Eval(dims, syms)
	if err != nil {
		return 0, err
	}
	b, err := e.RHS.Eval(dims, syms)
	if err != nil {
		return 0, err
	}
	return affineApply(e.Kind, a, b)
}

func affineApply(k AffineBinaryKind, a, b int64) (int64, error) {
	switch k {
	case AffineAdd:
		return a + b, nil
	case AffineMul:
		return a * b, nil
	}
	if b == 0 {
		return 0, fmt.Errorf("ir: affine%sby zero", affineOpNames[k])
	}
	q, r := a/b, a%b
	switch k {
	case AffineFloorDiv:
		if r != 0 && (r < 0) != (b < 0) {
			q--
		}
		return q, nil
	case AffineCeilDiv:
		if r != 0 && (r < 0) == (b < 0) {
			q++
		}
		return q, nil
	default: // AffineMod
		if r != 0 && (r < 0) != (b < 0) {
			r += b
		}
		return r, nil
	}
}

// AffineBinary builds lhs <k> rhs, folding two constants (except a
// division by zero, which stays for Eval to report).
func AffineBinary(k AffineBinaryKind, lhs, rhs AffineExpr) AffineExpr {
	a, aok := lhs.(*AffineConstantExpr)
	b, bok := rhs.(*AffineConstantExpr)
	if aok && bok {
		if v, err := affineApply(k, a.Value, b.Value); err == nil {
			return &AffineConstantExpr{v}
		}
	}
	return &AffineBinaryExpr{Kind: k, LHS: lhs, RHS: rhs}
}

// AffineSub builds lhs - rhs as lhs + rhs * -1 (or lhs + (-c) for a
// constant c).
func AffineSub(lhs, rhs AffineExpr) AffineExpr {
	return AffineBinary(AffineAdd, lhs, AffineNeg(rhs))
}

// AffineNeg builds -e as e * -1 (or the negated constant).
func AffineNeg(e AffineExpr) AffineExpr {
	return AffineBinary(AffineMul, e, &AffineConstantExpr{-1})
}

// AffineMap is (d0, …)[s0, …] -> (results…).
type AffineMap struct {
	NumDims, NumSymbols int
	Results             []AffineExpr
}

// String returns e.g. "(d0, d1)[s0] -> (d0, s0 + d1)".
func (m *AffineMap) String() string {
	var sb strings.Builder
	sb.WriteByte('(')
	for i := 0; i < m.NumDims; i++ {
		if i > 0 {
			sb.WriteString(", ")
		}
		fmt.Fprintf(&sb, "d%d", i)
	}
	sb.WriteByte(')')
	if m.NumSymbols > 0 {
		sb.WriteByte('[')
		for i := 0; i < m.NumSymbols; i++ {
			if i > 0 {
				sb.WriteString(", ")
			}
			fmt.Fprintf(&sb, "s%d", i)
		}
		sb.WriteByte(']')
	}
	sb.WriteString(" -> (")
	for i, r := range m.Results {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(r.String())
	}
	sb.WriteByte(')')
	return sb.String()
}

// Eval evaluates every result for the given dimension and symbol values.
func (m *AffineMap) Eval(dims, syms []int64) ([]int64, error) {
	if len(dims) != m.NumDims || len(syms) != m.NumSymbols {
		return nil, fmt.Errorf("ir: affine map %s takes %d dims and %d symbols, got %d and %d",
			m, m.NumDims, m.NumSymbols, len(dims), len(syms))
	}
	out := make([]int64, len(m.Results))
	for i, r := range m.Results {
		v, err := r.Eval(dims, syms)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// IsIdentity reports whether the map is (d0, …, dn) -> (d0, …, dn).
func (m *AffineMap) IsIdentity() bool {
	if m.NumSymbols != 0 || len(m.Results) != m.NumDims {
		return false
	}
	for i, r := range m.Results {
		if d, ok := r.(*AffineDimExpr); !ok || d.Pos != i {
			return false
		}
	}
	return true
}

// AffineMapAttr wraps an affine map as an attribute.
type AffineMapAttr struct{ Map *AffineMap }

// String returns "affine_map<…>".
func (a *AffineMapAttr) String() string { return "affine_map<" + a.Map.String() + ">" }
