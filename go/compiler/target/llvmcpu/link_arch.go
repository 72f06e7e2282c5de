package llvmcpu

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"math"
)

// relocKind says how the linker resolves a relocation type.
type relocKind struct {
	size  int  // bytes the relocation patches
	call  bool // a call or branch: an imported target goes through a PLT stub
	got   bool // refers to the target's GOT slot
	abs64 bool // a 64-bit absolute address: a dynamic relocation in the output
}

// linkArch is what differs between the linker's machines.
type linkArch struct {
	machine elf.Machine
	// page is the maximum page size segments are aligned to.
	page  uint64
	kinds map[uint32]relocKind
	// relative, globDat and abs64 are the dynamic relocation types.
	relative, globDat, abs64 uint32
	// pltEntry is a PLT stub's size.
	pltEntry uint64
	typeName func(uint32) string
	// gotAddend is the part of a GOT relocation's addend folded into the
	// slot (AArch64's GOT holds S+A; x86-64's holds S and the addend
	// applies to the displacement).
	gotAddend func(a int64) int64
	// apply patches b (at address P) for a relocation to S with addend A;
	// G is the target's GOT slot address, when it has one.
	apply func(typ uint32, b []byte, P, S, G uint64, A int64) error
	// writePLT writes a stub at P that jumps through GOT slot G.
	writePLT func(b []byte, P, G uint64)
}

// archFor returns the linker's description of machine m, or nil.
func archFor(m elf.Machine) *linkArch {
	switch m {
	case elf.EM_X86_64:
		return x86Arch
	case elf.EM_AARCH64:
		return arm64Arch
	}
	return nil
}

var le = binary.LittleEndian

// put32s stores v as a signed 32-bit value, or fails on overflow.
func put32s(b []byte, v int64) error {
	if v < math.MinInt32 || v > math.MaxInt32 {
		return fmt.Errorf("value %#x does not fit in 32 signed bits", v)
	}
	le.PutUint32(b, uint32(v))
	return nil
}

var x86Arch = &linkArch{
	machine:  elf.EM_X86_64,
	page:     0x1000,
	relative: uint32(elf.R_X86_64_RELATIVE), globDat: uint32(elf.R_X86_64_GLOB_DAT), abs64: uint32(elf.R_X86_64_64),
	pltEntry: 16,
	kinds: map[uint32]relocKind{
		uint32(elf.R_X86_64_NONE):          {size: 0},
		uint32(elf.R_X86_64_PC32):          {size: 4},
		uint32(elf.R_X86_64_PLT32):         {size: 4, call: true},
		uint32(elf.R_X86_64_PC64):          {size: 8},
		uint32(elf.R_X86_64_64):            {size: 8, abs64: true},
		uint32(elf.R_X86_64_GOTPCREL):      {size: 4, got: true},
		uint32(elf.R_X86_64_GOTPCRELX):     {size: 4, got: true},
		uint32(elf.R_X86_64_REX_GOTPCRELX): {size: 4, got: true},
	},
	typeName:  func(t uint32) string { return elf.R_X86_64(t).String() },
	gotAddend: func(int64) int64 { return 0 },
	apply: func(typ uint32, b []byte, P, S, G uint64, A int64) error {
		switch elf.R_X86_64(typ) {
		case elf.R_X86_64_PC32, elf.R_X86_64_PLT32:
			return put32s(b, int64(S)+A-int64(P))
		case elf.R_X86_64_PC64:
			le.PutUint64(b, S+uint64(A)-P)
		case elf.R_X86_64_64:
			le.PutUint64(b, S+uint64(A))
		case elf.R_X86_64_GOTPCREL, elf.R_X86_64_GOTPCRELX, elf.R_X86_64_REX_GOTPCRELX:
			return put32s(b, int64(G)+A-int64(P))
		}
		return nil
	},
	writePLT: func(b []byte, P, G uint64) {
		// jmp *G(%rip), then int3 padding.
		b[0], b[1] = 0xff, 0x25
		le.PutUint32(b[2:], uint32(int32(int64(G)-int64(P+6))))
		for i := 6; i < 16; i++ {
			b[i] = 0xcc
		}
	},
}

// AArch64 relocation types debug/elf names but the linker refers to by
// number for brevity.
const (
	a64ABS64     = uint32(elf.R_AARCH64_ABS64)
	a64PREL64    = uint32(elf.R_AARCH64_PREL64)
	a64PREL32    = uint32(elf.R_AARCH64_PREL32)
	a64ADRPage   = uint32(elf.R_AARCH64_ADR_PREL_PG_HI21)
	a64ADRPageNC = uint32(elf.R_AARCH64_ADR_PREL_PG_HI21_NC)
	a64ADR       = uint32(elf.R_AARCH64_ADR_PREL_LO21)
	a64ADD12     = uint32(elf.R_AARCH64_ADD_ABS_LO12_NC)
	a64LDST8     = uint32(elf.R_AARCH64_LDST8_ABS_LO12_NC)
	a64LDST16    = uint32(elf.R_AARCH64_LDST16_ABS_LO12_NC)
	a64LDST32    = uint32(elf.R_AARCH64_LDST32_ABS_LO12_NC)
	a64LDST64    = uint32(elf.R_AARCH64_LDST64_ABS_LO12_NC)
	a64LDST128   = uint32(elf.R_AARCH64_LDST128_ABS_LO12_NC)
	a64CALL26    = uint32(elf.R_AARCH64_CALL26)
	a64JUMP26    = uint32(elf.R_AARCH64_JUMP26)
	a64CONDBR19  = uint32(elf.R_AARCH64_CONDBR19)
	a64TSTBR14   = uint32(elf.R_AARCH64_TSTBR14)
	a64GOTPage   = uint32(elf.R_AARCH64_ADR_GOT_PAGE)
	a64GOTLO12   = uint32(elf.R_AARCH64_LD64_GOT_LO12_NC)
	a64NONE      = uint32(elf.R_AARCH64_NONE)
)

// a64Page is the AArch64 page (4 KiB) of address x.
func a64Page(x uint64) uint64 { return x &^ 0xfff }

// a64Field replaces the bits [lo, lo+n) of the instruction in b with v.
func a64Field(b []byte, lo, n uint, v uint64) {
	mask := uint32(1)<<n - 1
	w := le.Uint32(b)
	le.PutUint32(b, w&^(mask<<lo)|(uint32(v)&mask)<<lo)
}

// a64Branch stores a PC-relative branch offset v of n bits of words.
func a64Branch(b []byte, v int64, lo, n uint) error {
	if v&3 != 0 {
		return fmt.Errorf("branch offset %#x is not a multiple of 4", v)
	}
	if lim := int64(1) << (n + 1); v < -lim || v >= lim {
		return fmt.Errorf("branch offset %#x is out of range (±%#x)", v, lim)
	}
	a64Field(b, lo, n, uint64(v>>2))
	return nil
}

// a64ADRImm stores a 21-bit ADR/ADRP immediate.
func a64ADRImm(b []byte, v int64) error {
	if v < -(1<<20) || v >= 1<<20 {
		return fmt.Errorf("ADR/ADRP immediate %#x is out of range", v)
	}
	a64Field(b, 29, 2, uint64(v))
	a64Field(b, 5, 19, uint64(v>>2))
	return nil
}

// a64Lo12 stores the low 12 bits of x, scaled by an access of 1<<shift
// bytes, into a load, store or add immediate.
func a64Lo12(b []byte, x uint64, shift uint) error {
	lo := x & 0xfff
	if lo&(1<<shift-1) != 0 {
		return fmt.Errorf("address %#x is not aligned to the %d-byte access", x, 1<<shift)
	}
	a64Field(b, 10, 12, lo>>shift)
	return nil
}

var arm64Arch = &linkArch{
	machine:  elf.EM_AARCH64,
	page:     0x10000,
	relative: uint32(elf.R_AARCH64_RELATIVE), globDat: uint32(elf.R_AARCH64_GLOB_DAT), abs64: a64ABS64,
	pltEntry: 16,
	kinds: map[uint32]relocKind{
		a64NONE:   {size: 0},
		a64ABS64:  {size: 8, abs64: true},
		a64PREL64: {size: 8}, a64PREL32: {size: 4},
		a64ADRPage: {size: 4}, a64ADRPageNC: {size: 4}, a64ADR: {size: 4}, a64ADD12: {size: 4},
		a64LDST8: {size: 4}, a64LDST16: {size: 4}, a64LDST32: {size: 4}, a64LDST64: {size: 4}, a64LDST128: {size: 4},
		a64CALL26: {size: 4, call: true}, a64JUMP26: {size: 4, call: true},
		a64CONDBR19: {size: 4}, a64TSTBR14: {size: 4},
		a64GOTPage: {size: 4, got: true}, a64GOTLO12: {size: 4, got: true},
	},
	typeName:  func(t uint32) string { return elf.R_AARCH64(t).String() },
	gotAddend: func(a int64) int64 { return a },
	apply: func(typ uint32, b []byte, P, S, G uint64, A int64) error {
		x := S + uint64(A)
		switch typ {
		case a64ABS64:
			le.PutUint64(b, x)
		case a64PREL64:
			le.PutUint64(b, x-P)
		case a64PREL32:
			v := int64(x - P)
			if v < math.MinInt32 || v > math.MaxUint32 {
				return fmt.Errorf("value %#x does not fit in 32 bits", v)
			}
			le.PutUint32(b, uint32(v))
		case a64ADRPage:
			return a64ADRImm(b, int64(a64Page(x)-a64Page(P))>>12)
		case a64ADRPageNC:
			a64Field(b, 29, 2, (a64Page(x)-a64Page(P))>>12)
			a64Field(b, 5, 19, (a64Page(x)-a64Page(P))>>14)
		case a64ADR:
			return a64ADRImm(b, int64(x-P))
		case a64ADD12, a64LDST8:
			return a64Lo12(b, x, 0)
		case a64LDST16:
			return a64Lo12(b, x, 1)
		case a64LDST32:
			return a64Lo12(b, x, 2)
		case a64LDST64:
			return a64Lo12(b, x, 3)
		case a64LDST128:
			return a64Lo12(b, x, 4)
		case a64CALL26, a64JUMP26:
			return a64Branch(b, int64(x-P), 0, 26)
		case a64CONDBR19:
			return a64Branch(b, int64(x-P), 5, 19)
		case a64TSTBR14:
			return a64Branch(b, int64(x-P), 5, 14)
		case a64GOTPage:
			return a64ADRImm(b, int64(a64Page(G)-a64Page(P))>>12)
		case a64GOTLO12:
			return a64Lo12(b, G, 3)
		}
		return nil
	},
	writePLT: func(b []byte, P, G uint64) {
		le.PutUint32(b[0:], 0x90000010)  // adrp x16, G
		le.PutUint32(b[4:], 0xf9400211)  // ldr x17, [x16, #lo12(G)]
		le.PutUint32(b[8:], 0xd61f0220)  // br x17
		le.PutUint32(b[12:], 0xd503201f) // nop
		_ = a64ADRImm(b[0:], int64(a64Page(G)-a64Page(P))>>12)
		_ = a64Lo12(b[4:], G, 3)
	},
}
