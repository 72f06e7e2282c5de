package llvmcpu

import (
	"fmt"
	"math"
	"strings"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/internal/half"
)

// scalarTy is the LLVM type of a kir scalar in registers.
func scalarTy(s kir.Scalar) string {
	switch s {
	case kir.I1:
		return "i1"
	case kir.I8:
		return "i8"
	case kir.I16:
		return "i16"
	case kir.I32:
		return "i32"
	case kir.I64:
		return "i64"
	case kir.F16:
		return "half"
	case kir.BF16:
		// bf16 values only move (loads, stores, shuffles, selects): their
		// arithmetic runs in f32 through integer conversions. As LLVM's
		// bfloat, x86 without AVX512-BF16 would legalize vectors of them
		// through __truncsfbf2, a runtime-library call the executable
		// cannot import.
		return "i16"
	case kir.F32:
		return "float"
	case kir.F64:
		return "double"
	}
	return "void"
}

// memTy is the LLVM type of a kir scalar in memory (i1 takes a byte).
func memTy(s kir.Scalar) string {
	if s == kir.I1 {
		return "i8"
	}
	return scalarTy(s)
}

// vecOf returns the LLVM type of n lanes of LLVM scalar type s (n ≤ 1: s).
func vecOf(s string, n int) string {
	if n <= 1 {
		return s
	}
	return fmt.Sprintf("<%d x %s>", n, s)
}

// ty returns the LLVM type of t.
func ty(t kir.Type) string { return vecOf(scalarTy(t.Elem), t.Width()) }

// intBitsTy is the integer type of s's width ("i16" for f16).
func intBitsTy(s kir.Scalar) string { return fmt.Sprintf("i%d", s.Bits()) }

// floatLit is the LLVM literal of x rounded to float type s.
func floatLit(s kir.Scalar, x float64) string {
	switch s {
	case kir.F16:
		return fmt.Sprintf("0xH%04X", half.F16(x))
	case kir.BF16:
		return fmt.Sprintf("%d", int16(half.BF16(x))) // bf16 values are i16 (ty)
	case kir.F32:
		x = float64(float32(x))
	}
	return fmt.Sprintf("0x%016X", math.Float64bits(x))
}

// intLit is the LLVM literal of x as an s integer (i1: true/false).
func intLit(s kir.Scalar, x int64) string {
	if s == kir.I1 {
		if x&1 != 0 {
			return "true"
		}
		return "false"
	}
	shift := 64 - uint(s.Bits())
	return fmt.Sprint(x << shift >> shift)
}

// splat returns the constant of n lanes of the LLVM scalar type st all
// holding lit (lit itself when n ≤ 1).
func splat(st string, n int, lit string) string {
	if n <= 1 {
		return lit
	}
	var b strings.Builder
	b.WriteByte('<')
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(st)
		b.WriteByte(' ')
		b.WriteString(lit)
	}
	b.WriteByte('>')
	return b.String()
}

// mangle is the type suffix of an overloaded LLVM intrinsic (".f32",
// ".v8f32", ".i64").
func mangle(s kir.Scalar, n int) string {
	var e string
	switch s {
	case kir.F16:
		e = "f16"
	case kir.BF16:
		e = "bf16"
	case kir.F32:
		e = "f32"
	case kir.F64:
		e = "f64"
	default:
		e = fmt.Sprintf("i%d", s.Bits())
	}
	if n > 1 {
		return fmt.Sprintf(".v%d%s", n, e)
	}
	return "." + e
}
