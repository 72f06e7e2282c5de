package ptxsim

import (
	"strings"
)

// decode translates one instruction statement.
func (d *decoder) decode(s stmt) (inst, error) {
	in := inst{guard: -1, d2: -1, line: int32(s.line)}
	if s.guard != "" {
		g, err := d.pred(s.line, s.guard)
		if err != nil {
			return in, err
		}
		in.guard, in.gnot = g, s.guardNot
	}
	parts := strings.Split(s.opcode, ".")
	base := parts[0]
	m := parseMods(parts[1:])
	var err error
	switch base {
	case "bra", "ret", "exit", "trap", "bar", "barrier", "membar", "fence":
		err = d.decodeControl(&in, base, &m, s)
	case "mov", "cvta", "selp":
		err = d.decodeMove(&in, base, &m, s)
	case "ld", "st", "atom", "red":
		err = d.decodeMemory(&in, base, &m, s)
	case "shfl", "vote":
		err = d.decodeWarp(&in, base, &m, s)
	case "setp":
		err = d.decodeSetp(&in, &m, s)
	case "cvt":
		err = d.decodeCvt(&in, &m, s)
	case "add", "sub", "mul", "mad", "fma", "div", "rem", "min", "max", "neg", "abs",
		"and", "or", "xor", "not", "cnot", "shl", "shr", "popc", "clz", "brev", "bfind", "bfe", "bfi",
		"sqrt", "rcp", "rsqrt", "ex2", "lg2", "sin", "cos", "tanh", "copysign", "testp":
		err = d.decodeArith(&in, base, &m, s)
	default:
		return in, errAt(s.line, "unknown instruction %q", s.opcode)
	}
	if err != nil {
		return in, err
	}
	if len(m.other) > 0 {
		return in, errAt(s.line, "unsupported modifier .%s in %q", m.other[0], s.opcode)
	}
	return in, nil
}

func nops(s stmt, n ...int) error {
	for _, k := range n {
		if len(s.ops) == k {
			return nil
		}
	}
	return errAt(s.line, "%s: wrong number of operands (%d)", s.opcode, len(s.ops))
}

// oneType returns the single type modifier of an instruction.
func oneType(s stmt, m *modset) (ptype, error) {
	if len(m.types) != 1 {
		return 0, errAt(s.line, "%s: expected exactly one type modifier", s.opcode)
	}
	return m.types[0], nil
}

func (d *decoder) decodeControl(in *inst, base string, m *modset, s stmt) error {
	switch base {
	case "bra":
		m.take("uni")
		if err := nops(s, 1); err != nil {
			return err
		}
		o := s.ops[0]
		t, ok := d.labels[o.name]
		if o.kind != okReg || !ok {
			return errAt(s.line, "bra: unknown label %q", o.name)
		}
		in.op, in.off = opBra, int64(t)
	case "ret", "exit":
		m.take("uni")
		in.op = opExit
		return nops(s, 0)
	case "trap":
		in.op = opTrap
		return nops(s, 0)
	case "membar", "fence":
		m.takeOne("cta", "gl", "sys", "gpu")
		m.takeOne("sc", "acq_rel")
		m.takeOne("cta", "gpu", "sys")
		in.op = opNop
		return nops(s, 0)
	case "bar", "barrier":
		if m.take("warp") {
			if !m.take("sync") {
				return errAt(s.line, "unsupported %s", s.opcode)
			}
			if err := nops(s, 1); err != nil {
				return err
			}
			in.op = opWarpSync
			var err error
			in.a, err = d.src(s.line, s.ops[0], tB32)
			return err
		}
		if !m.take("sync") {
			return errAt(s.line, "unsupported %s (only bar.sync / barrier.sync)", s.opcode)
		}
		m.take("aligned")
		if err := nops(s, 1); err != nil {
			return err
		}
		if s.ops[0].kind != okImm || s.ops[0].name != "0" {
			return errAt(s.line, "%s: only barrier 0 with all threads is supported", s.opcode)
		}
		in.op = opBar
	}
	return nil
}

func (d *decoder) decodeMove(in *inst, base string, m *modset, s stmt) error {
	t, err := oneType(s, m)
	if err != nil {
		return err
	}
	in.t, in.mask = t, t.mask()
	switch base {
	case "cvta":
		m.take("to")
		if !m.take("global") {
			return errAt(s.line, "unsupported %s (only cvta.to.global / cvta.global)", s.opcode)
		}
		if t != tU64 {
			return errAt(s.line, "cvta needs .u64")
		}
		fallthrough
	case "mov":
		if err := nops(s, 2); err != nil {
			return err
		}
		if s.ops[0].kind == okVec || s.ops[1].kind == okVec {
			return d.decodePack(in, s)
		}
		in.op = opMov
		if in.d, err = d.dst(s.line, s.ops[0], t); err != nil {
			return err
		}
		in.a, err = d.src(s.line, s.ops[1], t)
		return err
	case "selp":
		if err := nops(s, 4); err != nil {
			return err
		}
		in.op = opSelp
		if in.d, err = d.dst(s.line, s.ops[0], t); err != nil {
			return err
		}
		if in.a, err = d.src(s.line, s.ops[1], t); err != nil {
			return err
		}
		if in.b, err = d.src(s.line, s.ops[2], t); err != nil {
			return err
		}
		in.c, err = d.pred(s.line, s.ops[3].name)
		return err
	}
	return nil
}

// decodePack handles mov.b64 d, {a,b} and mov.b64 {a,b}, d (and .b32 with
// two .b16 halves); the first element is the low half.
func (d *decoder) decodePack(in *inst, s stmt) error {
	if in.t != tB64 && in.t != tB32 {
		return errAt(s.line, "vector mov needs .b32 or .b64")
	}
	in.w = uint8(in.t.bits() / 2)
	half := tB32
	if in.t == tB32 {
		half = tB16
	}
	var err error
	if s.ops[1].kind == okVec {
		v := s.ops[1].elems
		if len(v) != 2 || s.ops[0].kind == okVec {
			return errAt(s.line, "mov pack needs {lo, hi}")
		}
		in.op = opPack
		if in.d, err = d.dst(s.line, s.ops[0], in.t); err != nil {
			return err
		}
		if in.a, err = d.src(s.line, v[0], half); err != nil {
			return err
		}
		in.b, err = d.src(s.line, v[1], half)
		return err
	}
	v := s.ops[0].elems
	if len(v) != 2 {
		return errAt(s.line, "mov unpack needs {lo, hi}")
	}
	in.op = opUnpack
	if in.d, err = d.dst(s.line, v[0], half); err != nil {
		return err
	}
	if in.d2, err = d.dst(s.line, v[1], half); err != nil {
		return err
	}
	in.a, err = d.src(s.line, s.ops[1], in.t)
	return err
}

func (d *decoder) decodeSetp(in *inst, m *modset, s stmt) error {
	t, err := oneType(s, m)
	if err != nil {
		return err
	}
	in.t, in.w, in.mask = t, uint8(t.bits()), t.mask()
	if m.ftz {
		in.flags |= flFtz
		m.ftz = false
	}
	found := false
	for name, c := range cmpByName {
		if m.take(name) {
			in.sub, found = c, true
			break
		}
	}
	if !found {
		return errAt(s.line, "setp: missing comparison")
	}
	if !t.isFloat() && in.sub >= cmpEQU {
		return errAt(s.line, "setp: unordered comparison on integer type")
	}
	if t == tF16 || t == tBF16 || t == tPred || t.bits() == 8 {
		return errAt(s.line, "setp: unsupported type %v", t)
	}
	switch m.takeOne("and", "or", "xor") {
	case "and":
		in.bop = bopAnd
	case "or":
		in.bop = bopOr
	case "xor":
		in.bop = bopXor
	}
	want := 3
	if in.bop != bopNone {
		want = 4
	}
	if err := nops(s, want); err != nil {
		return err
	}
	if t.isFloat() {
		in.op = opSetpF
	} else {
		in.op = opSetpInt
	}
	o := s.ops[0]
	if o.kind != okReg {
		return errAt(s.line, "setp: bad destination")
	}
	if in.d, err = d.predOrSink(s.line, o.name); err != nil {
		return err
	}
	if o.second != "" {
		if in.d2, err = d.predOrSink(s.line, o.second); err != nil {
			return err
		}
	}
	if in.a, err = d.src(s.line, s.ops[1], t); err != nil {
		return err
	}
	if in.b, err = d.src(s.line, s.ops[2], t); err != nil {
		return err
	}
	if in.bop != bopNone {
		if in.c, err = d.pred(s.line, s.ops[3].name); err != nil {
			return err
		}
		if s.ops[3].not {
			in.flags |= flNotC
		}
	}
	return nil
}

func (d *decoder) predOrSink(line int, name string) (int32, error) {
	if name == "_" {
		return 0, nil
	}
	return d.pred(line, name)
}

func (d *decoder) decodeWarp(in *inst, base string, m *modset, s stmt) error {
	if !m.take("sync") {
		return errAt(s.line, "%s: only the .sync form is supported", s.opcode)
	}
	m.take("aligned")
	var err error
	if base == "shfl" {
		switch m.takeOne("up", "down", "bfly", "idx") {
		case "up":
			in.sub = shUp
		case "down":
			in.sub = shDown
		case "bfly":
			in.sub = shBfly
		case "idx":
			in.sub = shIdx
		default:
			return errAt(s.line, "shfl.sync: missing mode")
		}
		if t, err := oneType(s, m); err != nil || t != tB32 {
			return errAt(s.line, "shfl.sync needs .b32")
		}
		if err := nops(s, 5); err != nil {
			return err
		}
		in.op, in.t = opShfl, tB32
		o := s.ops[0]
		if in.d, err = d.dst(s.line, operand{kind: okReg, name: o.name}, tB32); err != nil {
			return err
		}
		if o.second != "" {
			if in.d2, err = d.predOrSink(s.line, o.second); err != nil {
				return err
			}
		}
		for i, p := range []*int32{&in.a, &in.b, &in.c, &in.e} {
			if *p, err = d.src(s.line, s.ops[i+1], tB32); err != nil {
				return err
			}
		}
		return nil
	}
	switch m.takeOne("all", "any", "uni", "ballot") {
	case "all":
		in.sub = voAll
	case "any":
		in.sub = voAny
	case "uni":
		in.sub = voUni
	case "ballot":
		in.sub = voBallot
	default:
		return errAt(s.line, "vote.sync: missing mode")
	}
	t, err := oneType(s, m)
	if err != nil {
		return err
	}
	if (in.sub == voBallot) != (t == tB32) || (t != tB32 && t != tPred) {
		return errAt(s.line, "vote.sync: bad type %v", t)
	}
	if err := nops(s, 3); err != nil {
		return err
	}
	in.op, in.t = opVote, t
	if in.d, err = d.dst(s.line, s.ops[0], t); err != nil {
		return err
	}
	if in.a, err = d.pred(s.line, s.ops[1].name); err != nil {
		return err
	}
	if s.ops[1].not {
		in.flags |= flNotA
	}
	in.e, err = d.src(s.line, s.ops[2], tB32)
	return err
}
