package ptxsim

import (
	"math"
	"strconv"
	"strings"

	"github.com/gree-ml/gree/go/status"
)

// check verifies that register name fits an operand of type t: a .pred
// register for .pred, otherwise a register of t's width (bit-size types
// match any type of their size); in d.relaxed mode (ld/st data, cvt) an
// integer operand may also be held in a wider register.
func (d *decoder) check(line int, name string, r regInfo, t ptype) error {
	if t == tNone {
		return nil
	}
	if t == tPred || r.bits == 1 {
		if t != tPred {
			return errAt(line, "predicate %s used as a %v operand", name, t)
		}
		if r.bits != 1 {
			return errAt(line, "%s is not a .pred register", name)
		}
		return nil
	}
	tb := t.bits()
	if int(r.bits) == tb || (d.relaxed && int(r.bits) > tb && !t.isFloat()) {
		return nil
	}
	return errAt(line, "register %s (%d bits) does not match the %v operand", name, r.bits, t)
}

// dst resolves a destination register operand of type t; "_" is the sink.
func (d *decoder) dst(line int, o operand, t ptype) (int32, error) {
	if o.kind != okReg || o.not || o.second != "" {
		return 0, errAt(line, "bad destination operand")
	}
	if o.name == "_" {
		return 0, nil
	}
	r, ok := d.regs[o.name]
	if !ok {
		return 0, errAt(line, "undeclared register %s", o.name)
	}
	return r.idx, d.check(line, o.name, r, t)
}

// src resolves a source operand read as type t: a register, a special
// register, a shared symbol (its address) or an immediate.
func (d *decoder) src(line int, o operand, t ptype) (int32, error) {
	switch o.kind {
	case okReg:
		if o.second != "" {
			return 0, errAt(line, "unexpected '|' in source operand")
		}
		if r, ok := d.regs[o.name]; ok {
			return r.idx, d.check(line, o.name, r, t)
		}
		if k, ok := specialByName[o.name]; ok {
			if s, ok := d.specials[o.name]; ok {
				return s, nil
			}
			s := d.newSlot(0)
			d.specials[o.name] = s
			d.e.specials = append(d.e.specials, special{slot: s, kind: k})
			return s, nil
		}
		if off, ok := d.shared[o.name]; ok {
			return d.constSlot(uint64(off)), nil
		}
		if strings.HasPrefix(o.name, "%") {
			return 0, errAt(line, "undeclared register %s", o.name)
		}
		return 0, errAt(line, "unknown symbol %s", o.name)
	case okImm:
		v, err := immValue(o, t)
		if err != nil {
			return 0, errAt(line, "%v", err)
		}
		return d.constSlot(v), nil
	}
	return 0, errAt(line, "bad source operand")
}

// pred resolves a predicate register operand.
func (d *decoder) pred(line int, name string) (int32, error) {
	r, ok := d.regs[name]
	if !ok {
		return 0, errAt(line, "undeclared predicate %s", name)
	}
	if r.bits != 1 {
		return 0, errAt(line, "%s is not a .pred register", name)
	}
	return r.idx, nil
}

// immValue encodes an immediate operand as the bits of type t.
func immValue(o operand, t ptype) (uint64, error) {
	s := o.name
	var bits uint64
	isF := false // bits hold a float64 value
	switch {
	case o.minus && len(s) > 2 && (s[:2] == "0f" || s[:2] == "0F" || s[:2] == "0d" || s[:2] == "0D"):
		return 0, status.Errorf(status.InvalidArgument, "a hex float literal cannot be negated (-%s)", s)
	case len(s) == 10 && (s[:2] == "0f" || s[:2] == "0F"):
		v, err := strconv.ParseUint(s[2:], 16, 32)
		if err != nil {
			return 0, status.Errorf(status.InvalidArgument, "bad float literal %q", s)
		}
		if t == tF64 {
			bits, isF = math.Float64bits(float64(math.Float32frombits(uint32(v)))), true
		} else {
			bits = v
			if o.minus {
				bits ^= 1 << 31
			}
			return bits, nil
		}
	case len(s) == 18 && (s[:2] == "0d" || s[:2] == "0D"):
		v, err := strconv.ParseUint(s[2:], 16, 64)
		if err != nil {
			return 0, status.Errorf(status.InvalidArgument, "bad double literal %q", s)
		}
		bits, isF = v, true
	case strings.ContainsAny(s, ".eE") && !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X"):
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, status.Errorf(status.InvalidArgument, "bad literal %q", s)
		}
		bits, isF = math.Float64bits(v), true
	default:
		v, err := parseInt(s)
		if err != nil {
			return 0, status.Errorf(status.InvalidArgument, "bad integer literal %q", s)
		}
		switch {
		case t.isFloat():
			return 0, status.Errorf(status.InvalidArgument, "integer literal %s for a %v operand (write 0f/0d hex or a decimal with a point)", s, t)
		case t == tPred && (v > 1 || o.minus):
			return 0, status.Errorf(status.InvalidArgument, "predicate literal %s is not 0 or 1", s)
		case o.minus:
			v = -v
		}
		return v, nil
	}
	if o.minus {
		bits ^= 1 << 63
	}
	f := math.Float64frombits(bits)
	switch t {
	case tF64:
		return bits, nil
	case tF32:
		return uint64(math.Float32bits(float32(f))), nil
	case tF16, tBF16:
		return cvtFloat(f, t, rndRN, false), nil
	}
	if t.isInt() && isF {
		// A float literal in a bit-typed context: its bits.
		if t.bits() == 32 {
			return uint64(math.Float32bits(float32(f))), nil
		}
		return bits, nil
	}
	return 0, status.Errorf(status.InvalidArgument, "literal %q not allowed for type %v", s, t)
}

// modset is an opcode's modifiers, split into types, rounding and the rest.
type modset struct {
	types []ptype
	rnd   uint8
	ftz   bool
	sat   bool
	other []string
}

func parseMods(parts []string) modset {
	var m modset
	for _, p := range parts {
		if t, ok := typeByMod[p]; ok {
			m.types = append(m.types, t)
			continue
		}
		if r, ok := rndByName[p]; ok {
			m.rnd = r
			continue
		}
		switch p {
		case "ftz":
			m.ftz = true
		case "sat":
			m.sat = true
		default:
			m.other = append(m.other, p)
		}
	}
	return m
}

// take removes name from m.other, reporting whether it was there.
func (m *modset) take(name string) bool {
	for i, o := range m.other {
		if o == name {
			m.other = append(m.other[:i], m.other[i+1:]...)
			return true
		}
	}
	return false
}

// takeOne removes whichever of names is present and returns it ("" if none).
func (m *modset) takeOne(names ...string) string {
	for _, n := range names {
		if m.take(n) {
			return n
		}
	}
	return ""
}
