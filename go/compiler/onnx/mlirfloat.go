package onnx

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// floatSem describes a float format for printing: its precision in bits
// (with the implicit bit, as LLVM's fltSemantics counts it), its width, a
// decoder from bits and an encoder rounding a float64 to bits.
type floatSem struct {
	precision int
	width     int
	decode    func(bits uint64) float64
	encode    func(v float64) uint64
}

var semF32 = &floatSem{24, 32,
	func(b uint64) float64 { return float64(math.Float32frombits(uint32(b))) },
	func(v float64) uint64 { return uint64(math.Float32bits(float32(v))) }}

var semF64 = &floatSem{53, 64,
	func(b uint64) float64 { return math.Float64frombits(b) },
	func(v float64) uint64 { return math.Float64bits(v) }}

// formatMLIRFloat prints a float as MLIR's printer does (printFloatValue):
// the 6-digit exponential form when it reads back to the same bits, else
// APFloat's default shortest-round-trip form when it has a '.', else the
// bits in hexadecimal (also for infinities and NaNs).
func formatMLIRFloat(sem *floatSem, bits uint64) string {
	v := sem.decode(bits)
	if !math.IsInf(v, 0) && !math.IsNaN(v) {
		s := apFloatString(v, sem.precision, 6, 0, false)
		if back, err := strconv.ParseFloat(s, 64); err == nil && sem.encode(back) == bits {
			return s
		}
		s = apFloatString(v, sem.precision, 0, 3, true)
		if strings.Contains(s, ".") {
			return s
		}
	}
	return fmt.Sprintf("0x%0*X", sem.width/4, bits)
}

// apFloatString is LLVM's IEEEFloat::toString for a finite value: decimal
// digits rounded (after LLVM's truncating precision adjustment) to
// formatPrecision significant digits (0: 2 + precision*59/196), in
// scientific or plain notation by formatMaxPadding, with or without
// trailing zeros.
func apFloatString(v float64, precision, formatPrecision, formatMaxPadding int, truncateZero bool) string {
	var out strings.Builder
	if v == 0 {
		if math.Signbit(v) {
			out.WriteByte('-')
		}
		if formatMaxPadding == 0 {
			if truncateZero {
				out.WriteString("0.0E+0")
			} else {
				out.WriteString("0.0")
				if formatPrecision > 1 {
					out.WriteString(strings.Repeat("0", formatPrecision-1))
				}
				out.WriteString("e+00")
			}
		} else {
			out.WriteByte('0')
		}
		return out.String()
	}
	if v < 0 {
		out.WriteByte('-')
		v = -v
	}
	if formatPrecision == 0 {
		formatPrecision = 2 + precision*59/196
	}
	// v = sig * 2^exp with sig an integer.
	frac, e := math.Frexp(v)
	sig := new(big.Int).SetUint64(uint64(math.Ldexp(frac, 53)))
	exp := e - 53
	tz := sig.TrailingZeroBits()
	sig.Rsh(sig, tz)
	exp += int(tz)
	if exp > 0 {
		sig.Lsh(sig, uint(exp))
		exp = 0
	} else if exp < 0 {
		five := new(big.Int).Exp(big.NewInt(5), big.NewInt(int64(-exp)), nil)
		sig.Mul(sig, five)
	}
	// AdjustToPrecision on the integer: drop decimal digits by truncation.
	bits := sig.BitLen()
	bitsRequired := (formatPrecision*196 + 58) / 59
	if bits > bitsRequired {
		if tens := (bits - bitsRequired) * 59 / 196; tens > 0 {
			exp += tens
			sig.Quo(sig, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(tens)), nil))
		}
	}
	// Digits, least significant first, dropping trailing zeros into exp.
	ds := sig.String()
	var buf []byte
	inTrail := true
	for i := len(ds) - 1; i >= 0; i-- {
		if inTrail && ds[i] == '0' {
			exp++
			continue
		}
		inTrail = false
		buf = append(buf, ds[i])
	}
	buf, exp = adjustDigits(buf, exp, formatPrecision)
	n := len(buf)
	scientific := true
	if formatMaxPadding != 0 {
		if exp >= 0 {
			scientific = exp > formatMaxPadding || n+exp > formatPrecision
		} else if msd := exp + n - 1; msd >= 0 {
			scientific = false
		} else {
			scientific = -msd > formatMaxPadding
		}
	}
	if scientific {
		exp += n - 1
		out.WriteByte(buf[n-1])
		out.WriteByte('.')
		if n == 1 && truncateZero {
			out.WriteByte('0')
		} else {
			for i := 1; i < n; i++ {
				out.WriteByte(buf[n-1-i])
			}
		}
		if !truncateZero && formatPrecision > n-1 {
			out.WriteString(strings.Repeat("0", formatPrecision-n+1))
		}
		if truncateZero {
			out.WriteByte('E')
		} else {
			out.WriteByte('e')
		}
		if exp >= 0 {
			out.WriteByte('+')
		} else {
			out.WriteByte('-')
			exp = -exp
		}
		es := strconv.Itoa(exp)
		if !truncateZero && len(es) < 2 {
			es = "0" + es
		}
		out.WriteString(es)
		return out.String()
	}
	if exp >= 0 {
		for i := 0; i < n; i++ {
			out.WriteByte(buf[n-1-i])
		}
		out.WriteString(strings.Repeat("0", exp))
		return out.String()
	}
	whole := exp + n
	i := 0
	if whole > 0 {
		for ; i < whole; i++ {
			out.WriteByte(buf[n-1-i])
		}
		out.WriteByte('.')
	} else {
		out.WriteString("0.")
		out.WriteString(strings.Repeat("0", -whole))
	}
	for ; i < n; i++ {
		out.WriteByte(buf[n-1-i])
	}
	return out.String()
}

// adjustDigits rounds a little-endian digit buffer to formatPrecision
// digits, half up, as LLVM's AdjustToPrecision does.
func adjustDigits(buf []byte, exp, formatPrecision int) ([]byte, int) {
	n := len(buf)
	if n <= formatPrecision {
		return buf, exp
	}
	first := n - formatPrecision
	if buf[first-1] < '5' {
		for first < n && buf[first] == '0' {
			first++
		}
		return buf[first:], exp + first
	}
	for i := first; i < n; i++ {
		if buf[i] == '9' {
			first++
		} else {
			buf[i]++
			break
		}
	}
	if first == n {
		return []byte{'1'}, exp + first
	}
	return buf[first:], exp + first
}
