package llvmcpu

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/gree-ml/gree/go/status"
)

// gree's linker: it turns the relocatable objects LLVM emits for the
// kernels (x86-64 or AArch64, PIC) into the ET_DYN shared object ld.lld
// would, so llvm-cpu works where ld.lld is not installed. It handles what
// the kernels need and fails naming anything else: allocated PROGBITS and
// NOBITS sections (.text*, .rodata*, .data*, .bss*; .eh_frame is
// dropped), the relocation types arch lists, undefined symbols (libm and
// libc functions) called through PLT stubs or loaded from a GOT slot
// bound at load time (GLOB_DAT), local absolute addresses as RELATIVE
// relocations. Every defined global symbol with default or protected
// visibility is exported; references between the objects bind directly.
// The output has three PT_LOAD segments (R: headers, .hash, .dynsym,
// .dynstr, .rela.dyn, read-only data; R+X: code and PLT stubs; RW:
// .dynamic, the GOT, data), PT_DYNAMIC, a non-executable PT_GNU_STACK,
// DT_FLAGS BIND_NOW and no DT_NEEDED, init or fini.

// linkInput is one relocatable object.
type linkInput struct {
	index int
	f     *elf.File
	syms  []elf.Symbol // indexed as the relocations index them: 0 is null
	secs  []*inSec     // by section index; nil for sections not linked
}

// inSec is an input section the output holds.
type inSec struct {
	in    *linkInput
	name  string
	data  []byte // nil for NOBITS
	size  uint64
	align uint64
	flags elf.SectionFlag
	out   *outSec
	off   uint64 // offset in out
	relas []elf.Rela64
}

func (s *inSec) addr() uint64 { return s.out.addr + s.off }

// symTarget is what a relocation refers to: a place in a linked section,
// an absolute value or an imported (undefined) symbol.
type symTarget struct {
	sec   *inSec // nil for imported and absolute symbols
	value uint64
	name  string // the symbol's name ("" for section symbols)
	imp   bool   // imported: resolved by the dynamic loader
	weak  bool   // an import that may stay unresolved
	typ   elf.SymType
}

// addr returns the target's link-time address.
func (t symTarget) addr() uint64 {
	if t.sec != nil {
		return t.sec.addr() + t.value
	}
	return t.value
}

// gotKey identifies a GOT slot: its symbol and the addend folded into it.
type gotKey struct {
	sec    *inSec
	value  uint64
	name   string
	addend int64
}

// linker holds one link's state.
type linker struct {
	arch    *linkArch
	ins     []*linkInput
	globals map[string]symTarget // defined global symbols
	weak    map[string]bool      // globals defined weak only
	imports []string             // undefined symbols, in dynsym order
	impIdx  map[string]int       // import name → dynsym index
	impType map[string]elf.SymType
	impWeak map[string]bool // imports every reference leaves weak
	got     []gotKey
	gotIdx  map[gotKey]int
	plt     []string // imports called through a PLT stub
	pltIdx  map[string]int
	nDynRel int // dynamic relocations besides the GOT's

	text, rodata, data, bss, pltSec, gotSec *outSec
}

// linkShared links relocatable objects into a shared object.
func linkShared(objs [][]byte) ([]byte, error) {
	l := &linker{globals: map[string]symTarget{}, weak: map[string]bool{}, impIdx: map[string]int{}, impType: map[string]elf.SymType{}, impWeak: map[string]bool{}, gotIdx: map[gotKey]int{}, pltIdx: map[string]int{}}
	l.text = &outSec{name: ".text", typ: elf.SHT_PROGBITS, flags: elf.SHF_ALLOC | elf.SHF_EXECINSTR, align: 16}
	l.rodata = &outSec{name: ".rodata", typ: elf.SHT_PROGBITS, flags: elf.SHF_ALLOC, align: 1}
	l.data = &outSec{name: ".data", typ: elf.SHT_PROGBITS, flags: elf.SHF_ALLOC | elf.SHF_WRITE, align: 1}
	l.bss = &outSec{name: ".bss", typ: elf.SHT_NOBITS, flags: elf.SHF_ALLOC | elf.SHF_WRITE, align: 1}
	for i, obj := range objs {
		in, err := l.read(i, obj)
		if err != nil {
			return nil, err
		}
		l.ins = append(l.ins, in)
	}
	if l.arch == nil {
		return nil, status.Errorf(status.InvalidArgument, "llvm-cpu: link: no objects")
	}
	for _, in := range l.ins {
		if err := l.defineGlobals(in); err != nil {
			return nil, err
		}
	}
	if err := l.scan(); err != nil {
		return nil, err
	}
	return l.write()
}

// linkErr is an error about input object in.
func linkErr(in *linkInput, format string, args ...any) error {
	return status.Errorf(status.Internal, "llvm-cpu: gree's linker: object %d: %s (set GREE_LINKER=lld to link with ld.lld instead, and report this)", in.index, fmt.Sprintf(format, args...))
}

// read parses one object and assigns its allocated sections to the
// output sections.
func (l *linker) read(index int, obj []byte) (*linkInput, error) {
	in := &linkInput{index: index}
	f, err := elf.NewFile(bytes.NewReader(obj))
	if err != nil {
		return nil, linkErr(in, "not an ELF object: %v", err)
	}
	in.f = f
	if f.Class != elf.ELFCLASS64 || f.Data != elf.ELFDATA2LSB || f.Type != elf.ET_REL {
		return nil, linkErr(in, "want a 64-bit little-endian relocatable object, got %v %v %v", f.Class, f.Data, f.Type)
	}
	arch := archFor(f.Machine)
	if arch == nil {
		return nil, linkErr(in, "machine %v: gree's linker handles x86-64 and AArch64", f.Machine)
	}
	if l.arch != nil && l.arch != arch {
		return nil, linkErr(in, "machine %v differs from the first object's", f.Machine)
	}
	l.arch = arch
	syms, err := f.Symbols()
	if err != nil && err != elf.ErrNoSymbols {
		return nil, linkErr(in, "symbol table: %v", err)
	}
	in.syms = append([]elf.Symbol{{}}, syms...)
	in.secs = make([]*inSec, len(f.Sections))
	for i, s := range f.Sections {
		if s.Flags&elf.SHF_ALLOC == 0 || s.Name == ".eh_frame" || strings.HasPrefix(s.Name, ".note") {
			continue
		}
		if s.Flags&elf.SHF_TLS != 0 || s.Type != elf.SHT_PROGBITS && s.Type != elf.SHT_NOBITS {
			return nil, linkErr(in, "section %s (type %v, flags %v) is not supported (no TLS, init/fini arrays or other special sections)", s.Name, s.Type, s.Flags)
		}
		is := &inSec{in: in, name: s.Name, size: s.Size, align: max(s.Addralign, 1), flags: s.Flags}
		if s.Type == elf.SHT_PROGBITS {
			if is.data, err = s.Data(); err != nil {
				return nil, linkErr(in, "section %s: %v", s.Name, err)
			}
			is.data = bytes.Clone(is.data)
		}
		switch {
		case s.Flags&elf.SHF_EXECINSTR != 0:
			l.text.add(is)
		case s.Type == elf.SHT_NOBITS:
			l.bss.add(is)
		case s.Flags&elf.SHF_WRITE != 0:
			l.data.add(is)
		default:
			l.rodata.add(is)
		}
		in.secs[i] = is
	}
	for _, s := range f.Sections {
		switch s.Type {
		case elf.SHT_REL:
			return nil, linkErr(in, "section %s: REL relocations (want RELA)", s.Name)
		case elf.SHT_RELA:
			if int(s.Info) >= len(in.secs) {
				return nil, linkErr(in, "section %s relocates section %d, which does not exist", s.Name, s.Info)
			}
			target := in.secs[s.Info]
			if target == nil {
				continue // relocations of a dropped section (.eh_frame)
			}
			b, err := s.Data()
			if err != nil || len(b)%24 != 0 {
				return nil, linkErr(in, "section %s: malformed relocations (%v)", s.Name, err)
			}
			target.relas = make([]elf.Rela64, len(b)/24)
			if _, err := binary.Decode(b, binary.LittleEndian, target.relas); err != nil {
				return nil, linkErr(in, "section %s: %v", s.Name, err)
			}
		}
	}
	return in, nil
}

// defineGlobals records in's defined global symbols.
func (l *linker) defineGlobals(in *linkInput) error {
	for _, s := range in.syms[1:] {
		b := elf.ST_BIND(s.Info)
		if b != elf.STB_GLOBAL && b != elf.STB_WEAK || s.Section == elf.SHN_UNDEF {
			continue
		}
		t, err := in.resolveDefined(s)
		if err != nil {
			return err
		}
		if _, ok := l.globals[s.Name]; ok {
			switch {
			case b == elf.STB_WEAK:
				continue // the first definition stays
			case !l.weak[s.Name]:
				return linkErr(in, "symbol %s is defined twice", s.Name)
			}
		}
		l.weak[s.Name] = b == elf.STB_WEAK
		l.globals[s.Name] = t
	}
	return nil
}

// resolveDefined returns the target of a symbol defined in in.
func (in *linkInput) resolveDefined(s elf.Symbol) (symTarget, error) {
	t := symTarget{value: s.Value, name: s.Name, typ: elf.ST_TYPE(s.Info)}
	switch {
	case s.Section == elf.SHN_ABS:
		return t, nil
	case s.Section == elf.SHN_COMMON:
		return t, linkErr(in, "common symbol %s is not supported", s.Name)
	case int(s.Section) < len(in.secs) && in.secs[s.Section] != nil:
		t.sec = in.secs[s.Section]
		return t, nil
	}
	return t, linkErr(in, "symbol %q is defined in section %d, which is not linked", s.Name, s.Section)
}

// target resolves relocation symbol index i of in.
func (l *linker) target(in *linkInput, i uint32) (symTarget, error) {
	if int(i) >= len(in.syms) {
		return symTarget{}, linkErr(in, "relocation against symbol %d of %d", i, len(in.syms))
	}
	s := in.syms[i]
	if elf.ST_BIND(s.Info) == elf.STB_LOCAL {
		return in.resolveDefined(s)
	}
	if t, ok := l.globals[s.Name]; ok {
		return t, nil
	}
	if s.Section != elf.SHN_UNDEF {
		return in.resolveDefined(s)
	}
	if elf.ST_VISIBILITY(s.Other) == elf.STV_HIDDEN || elf.ST_VISIBILITY(s.Other) == elf.STV_INTERNAL {
		return symTarget{}, linkErr(in, "hidden symbol %s is not defined", s.Name)
	}
	return symTarget{name: s.Name, imp: true, weak: elf.ST_BIND(s.Info) == elf.STB_WEAK, typ: elf.ST_TYPE(s.Info)}, nil
}

// importSym adds name to the dynamic symbols the loader resolves.
func (l *linker) importSym(t symTarget) {
	if _, ok := l.impIdx[t.name]; ok {
		if t.typ == elf.STT_FUNC {
			l.impType[t.name] = t.typ
		}
		l.impWeak[t.name] = l.impWeak[t.name] && t.weak
		return
	}
	l.impIdx[t.name] = len(l.imports) + 1
	l.impType[t.name] = t.typ
	l.impWeak[t.name] = t.weak
	l.imports = append(l.imports, t.name)
}

// gotSlot returns the GOT slot index for k, adding one when new.
func (l *linker) gotSlot(k gotKey) int {
	if i, ok := l.gotIdx[k]; ok {
		return i
	}
	l.gotIdx[k] = len(l.got)
	l.got = append(l.got, k)
	return len(l.got) - 1
}

// keyOf is the GOT key of t with addend a folded in.
func keyOf(t symTarget, a int64) gotKey {
	if t.imp {
		return gotKey{name: t.name, addend: a}
	}
	return gotKey{sec: t.sec, value: t.value, addend: a}
}

// scan checks every relocation and sizes the GOT, the PLT and the
// dynamic relocations.
func (l *linker) scan() error {
	for _, in := range l.ins {
		for _, s := range in.secs {
			if s == nil {
				continue
			}
			for _, r := range s.relas {
				typ := elf.R_TYPE64(r.Info)
				k, ok := l.arch.kinds[typ]
				if !ok {
					return linkErr(in, "section %s: relocation %s is not supported by gree's linker", s.name, l.arch.typeName(typ))
				}
				if r.Off+uint64(k.size) > s.size || s.data == nil {
					return linkErr(in, "section %s: relocation %s at %#x is outside the section", s.name, l.arch.typeName(typ), r.Off)
				}
				t, err := l.target(in, elf.R_SYM64(r.Info))
				if err != nil {
					return err
				}
				switch {
				case k.got:
					if t.imp {
						l.importSym(t)
					}
					l.gotSlot(keyOf(t, l.arch.gotAddend(int64(r.Addend))))
				case k.call && t.imp:
					l.importSym(t)
					if _, ok := l.pltIdx[t.name]; !ok {
						l.pltIdx[t.name] = len(l.plt)
						l.plt = append(l.plt, t.name)
						l.gotSlot(keyOf(t, 0))
					}
				case k.abs64:
					if s.flags&elf.SHF_WRITE == 0 {
						return linkErr(in, "section %s: %s at %#x puts an absolute address in read-only memory (it would need a text relocation)", s.name, l.arch.typeName(typ), r.Off)
					}
					if t.imp {
						l.importSym(t)
					}
					if t.imp || t.sec != nil {
						l.nDynRel++
					}
				case t.imp:
					return linkErr(in, "section %s: %s at %#x refers to %s, which no object defines (only calls and GOT loads may refer to library symbols)", s.name, l.arch.typeName(typ), r.Off, t.name)
				}
			}
		}
	}
	return nil
}
