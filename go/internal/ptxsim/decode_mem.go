package ptxsim

// decodeMemory decodes ld, st, atom and red.
func (d *decoder) decodeMemory(in *inst, base string, m *modset, s stmt) error {
	space := m.takeOne("global", "shared", "param", "local", "const")
	switch space {
	case "global", "":
		in.space = spGlobal
	case "shared":
		in.space = spShared
	case "param":
		in.space = spParam
	default:
		return errAt(s.line, "%s: state space .%s is not supported", s.opcode, space)
	}
	for _, x := range []string{"nc", "ca", "cg", "cs", "lu", "cv", "wb", "wt", "volatile", "weak",
		"relaxed", "acquire", "release", "acq_rel", "cta", "gpu", "sys"} {
		m.take(x)
	}
	if base == "atom" || base == "red" {
		return d.decodeAtom(in, base, m, s)
	}
	nvec := 1
	switch m.takeOne("v2", "v4") {
	case "v2":
		nvec = 2
	case "v4":
		nvec = 4
	}
	t, err := oneType(s, m)
	if err != nil {
		return err
	}
	if t == tPred || t == tBF16 {
		return errAt(s.line, "%s: bad type %v", s.opcode, t)
	}
	if err := nops(s, 2); err != nil {
		return err
	}
	in.t, in.nvec = t, uint8(nvec)
	addrOp, dataOp := s.ops[1], s.ops[0]
	if base == "st" {
		addrOp, dataOp = s.ops[0], s.ops[1]
	}
	if addrOp.kind != okAddr {
		return errAt(s.line, "%s: expected an address [..]", s.opcode)
	}
	if in.space == spParam {
		slot, ok := d.params[addrOp.name]
		if base != "ld" || !ok || addrOp.off != 0 || nvec != 1 || t.bits() != 64 {
			return errAt(s.line, "%s: only ld.param.u64 of a declared parameter is supported", s.opcode)
		}
		in.op, in.a, in.mask = opMov, slot, ^uint64(0)
		in.d, err = d.dst(s.line, dataOp, t)
		return err
	}
	if err := d.address(in, addrOp, s.line); err != nil {
		return err
	}
	var elems []operand
	if nvec == 1 {
		if dataOp.kind == okVec {
			return errAt(s.line, "%s: vector operand needs .v2 or .v4", s.opcode)
		}
		elems = []operand{dataOp}
	} else {
		if dataOp.kind != okVec || len(dataOp.elems) != nvec {
			return errAt(s.line, "%s: expected a {..} of %d registers", s.opcode, nvec)
		}
		elems = dataOp.elems
	}
	d.relaxed = true
	defer func() { d.relaxed = false }()
	for i, o := range elems {
		if base == "ld" {
			in.vec[i], err = d.dst(s.line, o, t)
		} else {
			in.vec[i], err = d.src(s.line, o, t)
		}
		if err != nil {
			return err
		}
	}
	switch {
	case base == "ld" && in.space == spShared:
		in.op = opLdShared
	case base == "ld":
		in.op = opLd
	case in.space == spShared:
		in.op = opStShared
	default:
		in.op = opSt
	}
	return nil
}

// address resolves an [..] operand into in.a (base register slot), in.off
// and in.addr32.
func (d *decoder) address(in *inst, o operand, line int) error {
	in.off = o.off
	if o.name == "" {
		in.a = d.constSlot(0)
		return nil
	}
	if r, ok := d.regs[o.name]; ok {
		if r.bits != 32 && r.bits != 64 {
			return errAt(line, "address register %s must be 32 or 64 bits", o.name)
		}
		in.a, in.addr32 = r.idx, r.bits == 32
		return nil
	}
	if off, ok := d.shared[o.name]; ok {
		if in.space != spShared {
			return errAt(line, "shared variable %s used with a non-.shared access", o.name)
		}
		in.a = d.constSlot(uint64(off))
		return nil
	}
	return errAt(line, "unknown address %s", o.name)
}

var atomByName = map[string]uint8{
	"and": atAnd, "or": atOr, "xor": atXor, "add": atAdd, "exch": atExch, "cas": atCas,
	"min": atMin, "max": atMax, "inc": atInc, "dec": atDec,
}

func (d *decoder) decodeAtom(in *inst, base string, m *modset, s stmt) error {
	if in.space == spParam {
		return errAt(s.line, "%s: bad state space", s.opcode)
	}
	found := false
	for name, op := range atomByName {
		if m.take(name) {
			in.sub, found = op, true
			break
		}
	}
	if !found {
		return errAt(s.line, "%s: missing operation", s.opcode)
	}
	t, err := oneType(s, m)
	if err != nil {
		return err
	}
	in.t = t
	ok := false
	switch in.sub {
	case atAnd, atOr, atXor:
		ok = t == tB32 || t == tB64
	case atExch, atCas:
		ok = t == tB32 || t == tB64 || t == tU32 || t == tU64 || t == tS32 || t == tS64
	case atAdd:
		ok = t == tU32 || t == tS32 || t == tU64 || t == tS64 || t == tF32 || t == tF64
	case atMin, atMax:
		ok = t == tU32 || t == tS32 || t == tU64 || t == tS64
	case atInc, atDec:
		ok = t == tU32
	}
	if !ok {
		return errAt(s.line, "%s: type %v not supported for this operation", s.opcode, t)
	}
	ops := s.ops
	in.d = 0
	if base == "atom" {
		if len(ops) == 0 {
			return nops(s, 3)
		}
		if in.d, err = d.dst(s.line, ops[0], t); err != nil {
			return err
		}
		ops = ops[1:]
	} else if in.sub == atCas || in.sub == atExch {
		return errAt(s.line, "red has no .%s", "cas/.exch")
	}
	want := 2
	if in.sub == atCas {
		want = 3
	}
	if len(ops) != want {
		return errAt(s.line, "%s: wrong number of operands", s.opcode)
	}
	if ops[0].kind != okAddr {
		return errAt(s.line, "%s: expected an address [..]", s.opcode)
	}
	if err := d.address(in, ops[0], s.line); err != nil {
		return err
	}
	if in.b, err = d.src(s.line, ops[1], t); err != nil {
		return err
	}
	if want == 3 {
		if in.c, err = d.src(s.line, ops[2], t); err != nil {
			return err
		}
	}
	in.op = opAtom
	return nil
}
