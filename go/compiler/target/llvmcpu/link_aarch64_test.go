package llvmcpu

import (
	"debug/elf"
	"testing"
)

// AArch64 instructions with zero immediates, as the assembler leaves them
// for the linker.
const (
	insnADRP   = 0x90000000 // adrp x0, 0
	insnADR    = 0x10000000 // adr x0, 0
	insnADD    = 0x91000000 // add x0, x0, #0
	insnLDRB   = 0x39400000 // ldrb w0, [x0]
	insnLDRH   = 0x79400000 // ldrh w0, [x0]
	insnLDRW   = 0xb9400000 // ldr w0, [x0]
	insnLDRX   = 0xf9400000 // ldr x0, [x0]
	insnLDRQ   = 0x3dc00000 // ldr q0, [x0]
	insnBL     = 0x94000000 // bl 0
	insnB      = 0x14000000 // b 0
	insnBcond  = 0x54000000 // b.eq 0
	insnTBZ    = 0x36000000 // tbz w0, #0, 0
	a64TextLen = 64
)

// a64Obj is x86Obj for AArch64: code is 16 instructions, the instruction
// words given, then zeros.
func a64Obj(t *testing.T, insns []uint32, rels ...testRel) []byte {
	text := make([]byte, a64TextLen)
	for i, w := range insns {
		le.PutUint32(text[4*i:], w)
	}
	syms := []testSym{
		{name: "helper", sec: 1, value: 32, typ: elf.STT_FUNC},
		{name: "table", sec: 2, value: 8, typ: elf.STT_OBJECT},
		{name: "", sec: 3, typ: elf.STT_SECTION},
		{name: "gree_entry_0", sec: 1, value: 0, global: true, typ: elf.STT_FUNC},
		{name: "expf", global: true},
		{name: "memcpy", global: true},
	}
	return relObject(t, elf.EM_AARCH64, text, make([]byte, 32), make([]byte, 16), syms, rels)
}

// adrpTarget decodes an ADRP at address p.
func adrpTarget(w uint32, p uint64) uint64 {
	imm := int64(w>>29&3) | int64(w>>5&0x7ffff)<<2
	imm = imm << 43 >> 43
	return uint64(int64(p&^0xfff) + imm<<12)
}

// lo12 decodes a load, store or add immediate, scaled back to bytes.
func lo12(w uint32, shift uint) uint64 { return uint64(w>>10&0xfff) << shift }

// branch decodes a branch offset of n bits at bit lo.
func branch(w uint32, lo, n uint) int64 {
	v := int64(w>>lo) & (1<<n - 1)
	return v << (64 - n) >> (64 - n) << 2
}

func TestLinkA64PageAndLow12(t *testing.T) {
	loads := []struct {
		insn  uint32
		typ   uint32
		shift uint
	}{{insnADD, a64ADD12, 0}, {insnLDRB, a64LDST8, 0}, {insnLDRH, a64LDST16, 1}, {insnLDRW, a64LDST32, 2}, {insnLDRX, a64LDST64, 3}, {insnLDRQ, a64LDST128, 4}}
	for _, ld := range loads {
		l := linkObj(t, a64Obj(t, []uint32{insnADRP, ld.insn, insnADRP | 1, ld.insn},
			testRel{sec: 1, off: 0, typ: a64ADRPage, sym: symRodata, addend: 0},
			testRel{sec: 1, off: 4, typ: ld.typ, sym: symRodata, addend: 0},
			testRel{sec: 1, off: 8, typ: a64ADRPageNC, sym: symTable, addend: 8},
			testRel{sec: 1, off: 12, typ: ld.typ, sym: symTable, addend: 8}))
		text, ro, data := l.addr(".text"), l.addr(".rodata"), l.addr(".data")
		w0, w1 := uint32(l.word(text, 4)), uint32(l.word(text+4, 4))
		if got := adrpTarget(w0, text) + lo12(w1, ld.shift); got != ro {
			t.Errorf("%s: adrp+lo12 reach %#x, want .rodata %#x", elf.R_AARCH64(ld.typ), got, ro)
		}
		w2, w3 := uint32(l.word(text+8, 4)), uint32(l.word(text+12, 4))
		if w2&0x1f != 1 {
			t.Errorf("ADRP's register field changed: %#x", w2)
		}
		if got := adrpTarget(w2, text+8) + lo12(w3, ld.shift); got != data+16 {
			t.Errorf("%s: adrp+lo12 reach %#x, want table+8 %#x", elf.R_AARCH64(ld.typ), got, data+16)
		}
	}
	// A misaligned 16-byte access fails.
	_, err := linkShared([][]byte{a64Obj(t, []uint32{insnLDRQ}, testRel{sec: 1, off: 0, typ: a64LDST128, sym: symTable})})
	if err == nil {
		t.Errorf("misaligned LDST128 links")
	}
	l := linkObj(t, a64Obj(t, []uint32{insnADR}, testRel{sec: 1, off: 0, typ: a64ADR, sym: symHelper, addend: 4}))
	text := l.addr(".text")
	w := uint32(l.word(text, 4))
	if got := int64(w>>29&3) | int64(w>>5&0x7ffff)<<2; got != 36 {
		t.Errorf("ADR offset %d, want 36", got)
	}
}

func TestLinkA64Branches(t *testing.T) {
	l := linkObj(t, a64Obj(t, []uint32{insnBL, insnB, insnBL, insnBcond, insnTBZ},
		testRel{sec: 1, off: 0, typ: a64CALL26, sym: symHelper},
		testRel{sec: 1, off: 4, typ: a64JUMP26, sym: symEntry},
		testRel{sec: 1, off: 8, typ: a64CALL26, sym: symExpf},
		testRel{sec: 1, off: 12, typ: a64CONDBR19, sym: symHelper},
		testRel{sec: 1, off: 16, typ: a64TSTBR14, sym: symHelper, addend: 4}))
	text, plt, got := l.addr(".text"), l.addr(".plt"), l.addr(".got")
	check := func(off uint64, lo, n uint, want uint64) {
		t.Helper()
		w := uint32(l.word(text+off, 4))
		if d := branch(w, lo, n); text+off+uint64(d) != want {
			t.Errorf("branch at %d reaches %#x, want %#x", off, text+off+uint64(d), want)
		}
	}
	check(0, 0, 26, text+32)
	check(4, 0, 26, text)
	check(8, 0, 26, plt)
	check(12, 5, 19, text+32)
	check(16, 5, 14, text+36)
	// The stub loads expf's GOT slot and branches to it.
	w0, w1 := uint32(l.word(plt, 4)), uint32(l.word(plt+4, 4))
	if adrpTarget(w0, plt)+lo12(w1, 3) != got || w0&0x1f != 16 || w1&0x1f != 17 || uint32(l.word(plt+8, 4)) != 0xd61f0220 {
		t.Errorf("PLT stub %#x %#x %#x does not jump through %#x", w0, w1, l.word(plt+8, 4), got)
	}
	r := l.dynRelocs()[got]
	if elf.R_AARCH64(elf.R_TYPE64(r.Info)) != elf.R_AARCH64_GLOB_DAT {
		t.Errorf("expf's slot relocation %+v", r)
	}
}

func TestLinkA64GOT(t *testing.T) {
	l := linkObj(t, a64Obj(t, []uint32{insnADRP, insnLDRX, insnADRP, insnLDRX},
		testRel{sec: 1, off: 0, typ: a64GOTPage, sym: symMemcpy},
		testRel{sec: 1, off: 4, typ: a64GOTLO12, sym: symMemcpy},
		testRel{sec: 1, off: 8, typ: a64GOTPage, sym: symTable},
		testRel{sec: 1, off: 12, typ: a64GOTLO12, sym: symTable}))
	text, data := l.addr(".text"), l.addr(".data")
	relocs := l.dynRelocs()
	s0 := adrpTarget(uint32(l.word(text, 4)), text) + lo12(uint32(l.word(text+4, 4)), 3)
	if r := relocs[s0]; elf.R_AARCH64(elf.R_TYPE64(r.Info)) != elf.R_AARCH64_GLOB_DAT {
		t.Errorf("memcpy's slot %#x relocation %+v", s0, r)
	}
	s1 := adrpTarget(uint32(l.word(text+8, 4)), text+8) + lo12(uint32(l.word(text+12, 4)), 3)
	if r := relocs[s1]; elf.R_AARCH64(elf.R_TYPE64(r.Info)) != elf.R_AARCH64_RELATIVE || uint64(r.Addend) != data+8 || l.word(s1, 8) != data+8 {
		t.Errorf("table's slot %#x relocation %+v", s1, r)
	}
}

func TestLinkA64Data(t *testing.T) {
	l := linkObj(t, a64Obj(t, nil,
		testRel{sec: 2, off: 0, typ: a64ABS64, sym: symHelper, addend: 4},
		testRel{sec: 2, off: 8, typ: a64ABS64, sym: symExpf},
		testRel{sec: 2, off: 16, typ: a64PREL32, sym: symHelper, addend: 0},
		testRel{sec: 2, off: 24, typ: a64PREL64, sym: symRodata, addend: 8}))
	text, data, ro := l.addr(".text"), l.addr(".data"), l.addr(".rodata")
	relocs := l.dynRelocs()
	if r := relocs[data]; elf.R_AARCH64(elf.R_TYPE64(r.Info)) != elf.R_AARCH64_RELATIVE || uint64(r.Addend) != text+36 {
		t.Errorf("ABS64 to helper: %+v, want RELATIVE %#x", r, text+36)
	}
	if r := relocs[data+8]; elf.R_AARCH64(elf.R_TYPE64(r.Info)) != elf.R_AARCH64_ABS64 {
		t.Errorf("ABS64 to expf: %+v", r)
	}
	if got := uint64(int64(data+16) + int64(int32(l.word(data+16, 4)))); got != text+32 {
		t.Errorf("PREL32 reaches %#x, want %#x", got, text+32)
	}
	if got := data + 24 + l.word(data+24, 8); got != ro+8 {
		t.Errorf("PREL64 reaches %#x, want %#x", got, ro+8)
	}
	for _, p := range l.f.Progs {
		if p.Type == elf.PT_LOAD && p.Align != 0x10000 {
			t.Errorf("AArch64 segment aligned to %#x, want 64 KiB", p.Align)
		}
	}
}
