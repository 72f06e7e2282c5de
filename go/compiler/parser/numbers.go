package parser

import (
	"math"
	"strconv"
	"strings"

	"github.com/gree-ml/gree/go/compiler/ir"
)

type litKind uint8

const (
	litInt litKind = iota
	litFloat
	litBool
)

// scalarLit is a number or bool literal whose type is not known yet.
type scalarLit struct {
	kind litKind
	neg  bool
	text string // digits as written (without the sign); "true"/"false"
	pos  int
}

// String returns the literal as written, with its sign.
func (l scalarLit) String() string {
	if l.neg {
		return "-" + l.text
	}
	return l.text
}

func (l scalarLit) isHex() bool {
	return l.kind == litInt && (strings.HasPrefix(l.text, "0x") || strings.HasPrefix(l.text, "0X"))
}

// parseScalarLit parses an optionally negated integer or float literal, or
// true/false.
func (p *parser) parseScalarLit() (scalarLit, error) {
	lit := scalarLit{pos: p.tok.pos}
	if p.optional("-") {
		lit.neg = true
	}
	switch {
	case p.tok.kind == tokInt:
		lit.kind = litInt
	case p.tok.kind == tokFloat:
		lit.kind = litFloat
	case !lit.neg && (p.isKeyword("true") || p.isKeyword("false")):
		lit.kind = litBool
	default:
		return lit, p.unexpected("a number literal")
	}
	lit.text = p.tok.text
	p.advance()
	return lit, nil
}

// intValue converts a literal to a value of integer (or index) type t,
// checking that it fits.
func (p *parser) intValue(lit scalarLit, t ir.Type) (int64, error) {
	width, sign := 64, ir.Signed
	if it, ok := t.(*ir.IntegerType); ok {
		width, sign = it.Width, it.Signedness
	}
	switch lit.kind {
	case litBool:
		if width != 1 {
			return 0, p.errorf(lit.pos, "'%s' is a bool literal, but the type is '%s' (expected i1)", lit.text, t)
		}
		if lit.text == "true" {
			return ir.NormalizeInt(1, t), nil
		}
		return 0, nil
	case litFloat:
		return 0, p.errorf(lit.pos, "expected an integer literal for type '%s', found '%s'", t, lit)
	}
	mag, err := parseUintText(lit.text)
	if err != nil {
		return 0, p.errorf(lit.pos, "integer literal '%s' does not fit in 64 bits", lit)
	}
	w := min(width, 64)
	var maxPos, maxNeg uint64 // largest magnitudes allowed
	switch sign {
	case ir.Unsigned:
		maxPos = math.MaxUint64 >> (64 - w)
	case ir.Signed:
		maxPos, maxNeg = math.MaxUint64>>(65-w), 1<<(w-1)
	default:
		maxPos, maxNeg = math.MaxUint64>>(64-w), 1<<(w-1)
	}
	if lit.neg && mag > maxNeg || !lit.neg && mag > maxPos {
		return 0, p.errorf(lit.pos, "integer literal '%s' is out of range for type '%s'", lit, t)
	}
	v := int64(mag)
	if lit.neg {
		v = -v
	}
	return ir.NormalizeInt(v, t), nil
}

// floatValue converts a literal to a value of float type t: decimal
// literals are rounded to t, hexadecimal integers are bit patterns.
func (p *parser) floatValue(lit scalarLit, t *ir.FloatType) (float64, error) {
	switch {
	case lit.kind == litBool:
		return 0, p.errorf(lit.pos, "expected a float literal for type '%s', found '%s'", t, lit.text)
	case lit.isHex():
		if lit.neg {
			return 0, p.errorf(lit.pos, "a hexadecimal float literal (a bit pattern) cannot be negated")
		}
		bits, err := strconv.ParseUint(lit.text[2:], 16, 64)
		if err != nil || t.Kind.Width() < 64 && bits>>t.Kind.Width() != 0 {
			return 0, p.errorf(lit.pos, "hexadecimal literal '%s' does not fit the %d bits of '%s'", lit.text, t.Kind.Width(), t)
		}
		v, ok := ir.FloatFromBits(t.Kind, bits)
		if !ok {
			return 0, p.errorf(lit.pos, "hexadecimal literals of type '%s' are not supported", t)
		}
		return v, nil
	}
	v, err := strconv.ParseFloat(lit.text, 64)
	if err != nil {
		return 0, p.errorf(lit.pos, "float literal '%s' is out of range for type '%s' (gree holds float values as float64)", lit, t)
	}
	if lit.neg {
		v = -v
	}
	return ir.RoundFloat(t.Kind, v), nil
}

// parseUintText parses the text of an integer token: decimal, or hex with
// a 0x prefix.
func parseUintText(text string) (uint64, error) {
	if strings.HasPrefix(text, "0x") || strings.HasPrefix(text, "0X") {
		return strconv.ParseUint(text[2:], 16, 64)
	}
	return strconv.ParseUint(text, 10, 64)
}
