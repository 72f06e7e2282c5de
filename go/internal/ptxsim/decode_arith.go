package ptxsim

// decodeArith decodes integer, bitwise and float arithmetic.
func (d *decoder) decodeArith(in *inst, base string, m *modset, s stmt) error {
	hi, lo, wide := m.take("hi"), m.take("lo"), m.take("wide")
	approx := m.take("approx")
	full := m.take("full")
	if m.take("NaN") {
		in.flags |= flNaN
	}
	if base == "bfind" && m.take("shiftamt") {
		in.flags |= flShiftAmt
	}
	t, err := oneType(s, m)
	if err != nil {
		return err
	}
	in.t, in.w, in.mask = t, uint8(t.bits()), t.mask()
	if m.ftz {
		in.flags |= flFtz
	}
	if m.sat {
		in.flags |= flSat
	}
	if approx {
		in.flags |= flApprox
	}
	in.rnd = m.rnd
	isF := t.isFloat()
	// Operand types: srcT for a and b (and c unless overridden).
	srcT, cT, dstN := t, t, 1
	nsrc := 2
	switch base {
	case "not", "cnot", "neg", "abs", "popc", "clz", "brev", "bfind", "sqrt", "rcp", "rsqrt",
		"ex2", "lg2", "sin", "cos", "tanh", "testp":
		nsrc = 1
	case "mad", "fma", "bfe":
		nsrc = 3
	case "bfi":
		nsrc = 4
	}
	if isF {
		if t == tF16 || t == tBF16 {
			return errAt(s.line, "%s: %v arithmetic is not supported (convert to .f32)", s.opcode, t)
		}
		if err := d.floatOp(in, base, t, approx, full, hi || lo || wide, m, s); err != nil {
			return err
		}
		m.ftz, m.sat, m.rnd = false, false, rndNone
	} else {
		if m.ftz || m.rnd != rndNone || approx || full {
			return errAt(s.line, "%s: float modifier on integer type", s.opcode)
		}
		if err := d.intOp(in, base, t, hi, lo, wide, m.sat, s); err != nil {
			return err
		}
		m.sat = false
		switch base {
		case "shl", "shr":
			cT = tU32
		case "bfe", "bfi":
			cT = tU32
		}
		if in.op == opMadWide {
			cT = wideType(t)
		}
	}
	if base == "testp" {
		dstN = 1
	}
	if err := nops(s, dstN+nsrc); err != nil {
		return err
	}
	if in.op == opTestp {
		in.d, err = d.pred(s.line, s.ops[0].name)
	} else {
		dT := t
		switch in.op {
		case opMulWide, opMadWide:
			dT = wideType(t)
		case opPopc, opClz, opBfind:
			dT = tU32
		}
		in.d, err = d.dst(s.line, s.ops[0], dT)
	}
	if err != nil {
		return err
	}
	if in.a, err = d.src(s.line, s.ops[1], srcT); err != nil {
		return err
	}
	if nsrc >= 2 {
		bT := srcT
		if base == "shl" || base == "shr" || base == "bfe" {
			bT = tU32
		}
		if in.b, err = d.src(s.line, s.ops[2], bT); err != nil {
			return err
		}
	}
	if nsrc >= 3 {
		if in.c, err = d.src(s.line, s.ops[3], cT); err != nil {
			return err
		}
	}
	if nsrc >= 4 {
		if in.e, err = d.src(s.line, s.ops[4], tU32); err != nil {
			return err
		}
	}
	return nil
}

func wideType(t ptype) ptype {
	switch t {
	case tS16:
		return tS32
	case tU16:
		return tU32
	case tS32:
		return tS64
	}
	return tU64
}

func (d *decoder) intOp(in *inst, base string, t ptype, hi, lo, wide, sat bool, s stmt) error {
	bad := func() error { return errAt(s.line, "%s: type %v not supported", s.opcode, t) }
	if t == tPred {
		switch base {
		case "and", "or", "xor", "not":
		default:
			return bad()
		}
	} else if t.bits() == 8 {
		return bad()
	}
	bitType := t == tPred || (t >= tB8 && t <= tB64)
	switch base {
	case "add", "sub":
		in.op = map[bool]opcode{true: opAdd, false: opSub}[base == "add"]
		if sat {
			if t != tS32 {
				return errAt(s.line, "%s.sat needs .s32", base)
			}
			in.op = map[bool]opcode{true: opAddSat, false: opSubSat}[base == "add"]
		}
	case "mul", "mad":
		mode := 0
		for i, b := range []bool{lo, hi, wide} {
			if b {
				mode = i + 1
			}
		}
		if mode == 0 || (mode == 3 && t.bits() == 64) {
			return errAt(s.line, "%s needs .lo, .hi or .wide (.wide on 16/32-bit types)", base)
		}
		ops := [][]opcode{{opMulLo, opMulHi, opMulWide}, {opMadLo, opMadHi, opMadWide}}
		in.op = ops[map[bool]int{true: 0, false: 1}[base == "mul"]][mode-1]
		if sat {
			return errAt(s.line, "%s.sat is not supported", base)
		}
	case "div":
		in.op = opDiv
	case "rem":
		in.op = opRem
	case "and":
		in.op = opAnd
	case "or":
		in.op = opOr
	case "xor":
		in.op = opXor
	case "not":
		in.op = opNot
	case "cnot":
		in.op = opCnot
	case "shl":
		in.op = opShl
	case "shr":
		in.op = opShr
	case "min":
		in.op = opMin
	case "max":
		in.op = opMax
	case "neg":
		in.op = opNeg
	case "abs":
		in.op = opAbs
	case "popc":
		in.op = opPopc
	case "clz":
		in.op = opClz
	case "brev":
		in.op = opBrev
	case "bfind":
		in.op = opBfind
	case "bfe":
		in.op = opBfe
	case "bfi":
		in.op = opBfi
	default:
		return errAt(s.line, "%s: integer type %v not allowed", s.opcode, t)
	}
	if sat && in.op != opAddSat && in.op != opSubSat {
		return errAt(s.line, "%s: .sat not allowed", s.opcode)
	}
	if (hi || lo || wide) && base != "mul" && base != "mad" {
		return errAt(s.line, "%s: bad modifier", s.opcode)
	}
	switch in.op {
	case opAnd, opOr, opXor, opNot, opCnot, opPopc, opClz, opBrev, opBfi:
		if !bitType && in.op != opAnd && in.op != opOr && in.op != opXor && in.op != opNot {
			return bad()
		}
	case opNeg, opAbs:
		if !t.signed() {
			return bad()
		}
	case opBfind, opBfe:
		if bitType || t.bits() < 32 {
			return bad()
		}
	case opShl:
		if !bitType {
			return bad()
		}
	}
	if (in.op == opBfi || in.op == opBrev || in.op == opPopc || in.op == opClz) && t.bits() < 32 {
		return bad()
	}
	return nil
}

var floatUnary = map[string]uint8{
	"neg": fNeg, "abs": fAbs, "sqrt": fSqrt, "rcp": fRcp, "rsqrt": fRsqrt,
	"ex2": fEx2, "lg2": fLg2, "sin": fSin, "cos": fCos, "tanh": fTanh,
}

func (d *decoder) floatOp(in *inst, base string, t ptype, approx, full, intMod bool, m *modset, s stmt) error {
	if intMod && base != "mul" && base != "mad" {
		return errAt(s.line, "%s: bad modifier", s.opcode)
	}
	if in.flags&flFtz != 0 && t != tF32 && !(approx && (base == "rcp" || base == "rsqrt")) {
		return errAt(s.line, "%s: .ftz needs .f32", s.opcode)
	}
	if in.rnd >= rndRNI {
		return errAt(s.line, "%s: integer rounding on float arithmetic", s.opcode)
	}
	plain := in.flags&(flFtz|flSat) == 0 && (in.rnd == rndNone || in.rnd == rndRN)
	fast := func(op32, op64 opcode) {
		if plain {
			in.op = map[bool]opcode{true: op32, false: op64}[t == tF32]
		}
	}
	switch base {
	case "add", "sub", "mul", "mad", "fma", "div":
		in.op = opFArith
		in.sub = map[string]uint8{"add": fAdd, "sub": fSub, "mul": fMul, "mad": fFma, "fma": fFma, "div": fDiv}[base]
		switch base {
		case "add":
			fast(opFAdd32, opFAdd64)
		case "sub":
			fast(opFSub32, opFSub64)
		case "mul":
			fast(opFMul32, opFMul64)
		case "mad", "fma":
			if in.rnd == rndNone {
				return errAt(s.line, "%s.%v needs a rounding modifier", base, t)
			}
			fast(opFFma32, opFFma64)
		case "div":
			if in.rnd == rndNone && !approx && !full {
				return errAt(s.line, "div.%v needs .rn/.rz/.rm/.rp, .approx or .full", t)
			}
		}
	case "sqrt", "rcp", "rsqrt", "neg", "abs", "ex2", "lg2", "sin", "cos", "tanh":
		in.op, in.sub = opFUnary, floatUnary[base]
		switch base {
		case "sqrt", "rcp":
			if in.rnd == rndNone && !approx {
				return errAt(s.line, "%s.%v needs a rounding modifier or .approx", base, t)
			}
		case "rsqrt", "ex2", "lg2", "sin", "cos", "tanh":
			if !approx {
				return errAt(s.line, "%s needs .approx", base)
			}
			if t != tF32 && base != "rsqrt" {
				return errAt(s.line, "%s.approx needs .f32", base)
			}
		}
	case "min", "max":
		in.op = opFMinMax
		in.sub = map[string]uint8{"min": fMin, "max": fMax}[base]
	case "copysign":
		in.op = opCopysign
	case "testp":
		in.op = opTestp
		k := map[string]uint8{"infinite": tpInfinite, "finite": tpFinite, "normal": tpNormal,
			"subnormal": tpSubnormal, "number": tpNumber, "notanumber": tpNotANumber}
		found := false
		for _, name := range []string{"infinite", "finite", "normal", "subnormal", "number", "notanumber"} {
			if m.take(name) {
				in.sub, found = k[name], true
			}
		}
		if !found {
			return errAt(s.line, "testp: missing kind")
		}
	default:
		return errAt(s.line, "%s: float type %v not allowed", s.opcode, t)
	}
	if in.flags&flNaN != 0 && in.op != opFMinMax {
		return errAt(s.line, "%s: .NaN only on min/max", s.opcode)
	}
	return nil
}

func (d *decoder) decodeCvt(in *inst, m *modset, s stmt) error {
	if len(m.types) != 2 {
		return errAt(s.line, "cvt needs a destination and a source type")
	}
	dt, st := m.types[0], m.types[1]
	if dt == tPred || st == tPred {
		return errAt(s.line, "cvt: .pred is not convertible")
	}
	fn, err := makeCvt(dt, st, m.rnd, m.ftz, m.sat)
	if err != nil {
		return errAt(s.line, "%s: %v", s.opcode, err)
	}
	if err := nops(s, 2); err != nil {
		return err
	}
	in.op, in.t, in.t2, in.cvt, in.rnd = opCvt, dt, st, fn, m.rnd
	d.relaxed = true
	defer func() { d.relaxed = false }()
	if in.d, err = d.dst(s.line, s.ops[0], dt); err != nil {
		return err
	}
	in.a, err = d.src(s.line, s.ops[1], st)
	return err
}
