package llvmcpu

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"testing"
)

// testSym is a symbol of a synthetic object: sec 0 is undefined, 1 .text,
// 2 .data, 3 .rodata.
type testSym struct {
	name   string
	sec    int
	value  uint64
	global bool
	weak   bool // with global: a weak symbol
	typ    elf.SymType
}

// testRel is a relocation of section sec (1 .text, 2 .data, 3 .rodata)
// against syms[sym-1].
type testRel struct {
	sec    int
	off    uint64
	typ    uint32
	sym    int
	addend int64
}

// relObject writes a relocatable ELF object for machine m, as LLVM would:
// sections .text, .data, .rodata, their .rela sections, .symtab, .strtab
// and .shstrtab; syms must list the local symbols first.
func relObject(t *testing.T, m elf.Machine, text, data, rodata []byte, syms []testSym, rels []testRel) []byte {
	t.Helper()
	strtab := []byte{0}
	symtab := make([]byte, symSize)
	firstGlobal := len(syms) + 1
	for i, s := range syms {
		bind := elf.STB_LOCAL
		if s.global {
			bind = elf.STB_GLOBAL
			if s.weak {
				bind = elf.STB_WEAK
			}
			firstGlobal = min(firstGlobal, i+1)
		} else if firstGlobal <= i {
			t.Fatalf("local symbol %s after a global", s.name)
		}
		e := elf.Sym64{Name: uint32(len(strtab)), Info: elf.ST_INFO(bind, s.typ), Shndx: uint16(s.sec), Value: s.value}
		strtab = append(append(strtab, s.name...), 0)
		var b [symSize]byte
		binary.Encode(b[:], le, e)
		symtab = append(symtab, b[:]...)
	}
	relas := [3][]byte{}
	for _, r := range rels {
		var b [relaSize]byte
		binary.Encode(b[:], le, elf.Rela64{Off: r.off, Info: elf.R_INFO(uint32(r.sym), r.typ), Addend: r.addend})
		relas[r.sec-1] = append(relas[r.sec-1], b[:]...)
	}
	type sec struct {
		name       string
		typ        elf.SectionType
		flags      elf.SectionFlag
		data       []byte
		link, info uint32
		align, ent uint64
	}
	secs := []sec{
		{},
		{".text", elf.SHT_PROGBITS, elf.SHF_ALLOC | elf.SHF_EXECINSTR, text, 0, 0, 16, 0},
		{".data", elf.SHT_PROGBITS, elf.SHF_ALLOC | elf.SHF_WRITE, data, 0, 0, 16, 0},
		{".rodata.cst16", elf.SHT_PROGBITS, elf.SHF_ALLOC | elf.SHF_MERGE, rodata, 0, 0, 16, 16},
		{".rela.text", elf.SHT_RELA, elf.SHF_INFO_LINK, relas[0], 7, 1, 8, relaSize},
		{".rela.data", elf.SHT_RELA, elf.SHF_INFO_LINK, relas[1], 7, 2, 8, relaSize},
		{".rela.rodata", elf.SHT_RELA, elf.SHF_INFO_LINK, relas[2], 7, 3, 8, relaSize},
		{".symtab", elf.SHT_SYMTAB, 0, symtab, 8, uint32(firstGlobal), 8, symSize},
		{".strtab", elf.SHT_STRTAB, 0, strtab, 0, 0, 1, 0},
		{".shstrtab", elf.SHT_STRTAB, 0, nil, 0, 0, 1, 0},
	}
	shstr := []byte{0}
	names := make([]uint32, len(secs))
	for i := 1; i < len(secs); i++ {
		names[i] = uint32(len(shstr))
		shstr = append(append(shstr, secs[i].name...), 0)
	}
	secs[len(secs)-1].data = shstr
	var body bytes.Buffer
	body.Write(make([]byte, ehdrSize))
	offs := make([]uint64, len(secs))
	for i := 1; i < len(secs); i++ {
		for body.Len()%16 != 0 {
			body.WriteByte(0)
		}
		offs[i] = uint64(body.Len())
		body.Write(secs[i].data)
	}
	for body.Len()%8 != 0 {
		body.WriteByte(0)
	}
	shoff := uint64(body.Len())
	for i, s := range secs {
		var b [shdrSize]byte
		binary.Encode(b[:], le, elf.Section64{Name: names[i], Type: uint32(s.typ), Flags: uint64(s.flags), Off: offs[i], Size: uint64(len(s.data)), Link: s.link, Info: s.info, Addralign: s.align, Entsize: s.ent})
		body.Write(b[:])
	}
	out := body.Bytes()
	hdr := elf.Header64{Type: uint16(elf.ET_REL), Machine: uint16(m), Version: 1, Shoff: shoff, Ehsize: ehdrSize, Shentsize: shdrSize, Shnum: uint16(len(secs)), Shstrndx: uint16(len(secs) - 1)}
	copy(hdr.Ident[:], elf.ELFMAG)
	hdr.Ident[elf.EI_CLASS], hdr.Ident[elf.EI_DATA], hdr.Ident[elf.EI_VERSION] = byte(elf.ELFCLASS64), byte(elf.ELFDATA2LSB), 1
	binary.Encode(out, le, hdr)
	return out
}

// linked is a linked test output, parsed.
type linked struct {
	t    *testing.T
	f    *elf.File
	raw  []byte
	secs map[string]*elf.Section
}

// linkObj links objs with gree's linker and parses the result.
func linkObj(t *testing.T, objs ...[]byte) *linked {
	t.Helper()
	so, err := linkShared(objs)
	if err != nil {
		t.Fatalf("link: %v", err)
	}
	f, err := elf.NewFile(bytes.NewReader(so))
	if err != nil {
		t.Fatalf("output does not parse: %v", err)
	}
	l := &linked{t: t, f: f, raw: so, secs: map[string]*elf.Section{}}
	for _, s := range f.Sections {
		l.secs[s.Name] = s
	}
	checkShape(t, f)
	return l
}

// addr returns the address of output section name.
func (l *linked) addr(name string) uint64 {
	s := l.secs[name]
	if s == nil {
		l.t.Fatalf("output has no section %s", name)
	}
	return s.Addr
}

// word reads n bytes at address a of the output, as a little-endian value.
func (l *linked) word(a uint64, n int) uint64 {
	for _, p := range l.f.Progs {
		if p.Type == elf.PT_LOAD && a >= p.Vaddr && a+uint64(n) <= p.Vaddr+p.Filesz {
			b := l.raw[p.Off+a-p.Vaddr:]
			var v uint64
			for i := n - 1; i >= 0; i-- {
				v = v<<8 | uint64(b[i])
			}
			return v
		}
	}
	l.t.Fatalf("address %#x is not in the file", a)
	return 0
}

// dynRelocs returns the output's dynamic relocations by offset.
func (l *linked) dynRelocs() map[uint64]elf.Rela64 {
	out := map[uint64]elf.Rela64{}
	s := l.secs[".rela.dyn"]
	if s == nil {
		return out
	}
	b, _ := s.Data()
	rs := make([]elf.Rela64, len(b)/relaSize)
	binary.Decode(b, le, rs)
	for _, r := range rs {
		out[r.Off] = r
	}
	return out
}

// checkShape checks what the loader's validator and dlopen require of
// every output: a shared object, W^X segments page aligned with offsets
// congruent to addresses, PT_DYNAMIC, a non-executable stack, BIND_NOW,
// no DT_NEEDED, TEXTREL, init or fini, and a hash table that finds every
// exported symbol.
func checkShape(t *testing.T, f *elf.File) {
	t.Helper()
	if f.Type != elf.ET_DYN {
		t.Fatalf("type %v", f.Type)
	}
	var dyn, stack bool
	for _, p := range f.Progs {
		switch p.Type {
		case elf.PT_LOAD:
			if p.Flags&elf.PF_W != 0 && p.Flags&elf.PF_X != 0 {
				t.Errorf("W+X segment %+v", p.ProgHeader)
			}
			if p.Vaddr%p.Align != p.Off%p.Align {
				t.Errorf("segment %+v: offset and address not congruent", p.ProgHeader)
			}
		case elf.PT_DYNAMIC:
			dyn = true
		case elf.PT_GNU_STACK:
			stack = true
			if p.Flags&elf.PF_X != 0 {
				t.Errorf("executable stack")
			}
		}
	}
	if !dyn || !stack {
		t.Errorf("PT_DYNAMIC %v, PT_GNU_STACK %v", dyn, stack)
	}
	for _, tag := range []elf.DynTag{elf.DT_NEEDED, elf.DT_TEXTREL, elf.DT_INIT, elf.DT_FINI, elf.DT_INIT_ARRAY, elf.DT_FINI_ARRAY, elf.DT_RPATH, elf.DT_RUNPATH} {
		if v, _ := f.DynValue(tag); len(v) > 0 {
			t.Errorf("dynamic tag %v present", tag)
		}
	}
	if v, _ := f.DynValue(elf.DT_FLAGS); len(v) != 1 || v[0]&uint64(elf.DF_BIND_NOW) == 0 {
		t.Errorf("DT_FLAGS %v lacks BIND_NOW", v)
	}
	syms, err := f.DynamicSymbols()
	if err != nil {
		t.Fatalf("dynamic symbols: %v", err)
	}
	hash, _ := f.Section(".hash").Data()
	nbucket := le.Uint32(hash)
	for i, s := range syms {
		idx := uint32(i + 1)
		found := false
		for j := le.Uint32(hash[8+4*(sysvHash(s.Name)%nbucket):]); j != 0; j = le.Uint32(hash[8+4*nbucket+4*j:]) {
			found = found || j == idx
		}
		if !found {
			t.Errorf("hash table does not reach symbol %s", s.Name)
		}
	}
}
