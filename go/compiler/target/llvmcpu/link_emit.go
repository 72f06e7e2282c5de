package llvmcpu

import (
	"debug/elf"
	"encoding/binary"
	"fmt"

	"github.com/gree-ml/gree/go/status"
)

// dynSym is a dynamic symbol: an import (t.imp) or an export.
type dynSym struct {
	name  string
	t     symTarget
	bind  elf.SymBind
	other uint8
	size  uint64
}

// dynSyms lists the dynamic symbols: the null symbol, the imports, then
// the exported definitions (global or weak, default or protected
// visibility) in object order.
func (l *linker) dynSyms() []dynSym {
	out := []dynSym{{}}
	for _, name := range l.imports {
		bind := elf.STB_GLOBAL
		if l.impWeak[name] {
			bind = elf.STB_WEAK
		}
		out = append(out, dynSym{name: name, t: symTarget{name: name, imp: true, typ: l.impType[name]}, bind: bind})
	}
	seen := map[string]bool{}
	for _, in := range l.ins {
		for _, s := range in.syms[1:] {
			b, vis := elf.ST_BIND(s.Info), elf.ST_VISIBILITY(s.Other)
			if b != elf.STB_GLOBAL && b != elf.STB_WEAK || s.Section == elf.SHN_UNDEF || vis == elf.STV_HIDDEN || vis == elf.STV_INTERNAL || seen[s.Name] {
				continue
			}
			seen[s.Name] = true
			out = append(out, dynSym{name: s.Name, t: l.globals[s.Name], bind: b, other: s.Other, size: s.Size})
		}
	}
	return out
}

// write lays the output out, resolves every relocation and returns the
// shared object's bytes.
func (l *linker) write() ([]byte, error) {
	syms := l.dynSyms()
	names := make([]string, len(syms))
	strtab := []byte{0}
	nameOff := make([]uint32, len(syms))
	for i, s := range syms {
		names[i] = s.name
		if s.name != "" {
			nameOff[i] = uint32(len(strtab))
			strtab = append(append(strtab, s.name...), 0)
		}
	}
	hash := hashTable(names)
	nRela := len(l.got) + l.nDynRel
	hashSec := &outSec{name: ".hash", typ: elf.SHT_HASH, flags: elf.SHF_ALLOC, align: 4, size: uint64(len(hash)), data: hash, ent: 4}
	dynsym := &outSec{name: ".dynsym", typ: elf.SHT_DYNSYM, flags: elf.SHF_ALLOC, align: 8, size: uint64(len(syms)) * symSize, ent: symSize, info: 1}
	dynstr := &outSec{name: ".dynstr", typ: elf.SHT_STRTAB, flags: elf.SHF_ALLOC, align: 1, size: uint64(len(strtab)), data: strtab}
	rela := &outSec{name: ".rela.dyn", typ: elf.SHT_RELA, flags: elf.SHF_ALLOC, align: 8, size: uint64(nRela) * relaSize, ent: relaSize, link: dynsym}
	hashSec.link, dynsym.link = dynsym, dynstr
	l.pltSec = &outSec{name: ".plt", typ: elf.SHT_PROGBITS, flags: elf.SHF_ALLOC | elf.SHF_EXECINSTR, align: 16, size: uint64(len(l.plt)) * l.arch.pltEntry}
	l.gotSec = &outSec{name: ".got", typ: elf.SHT_PROGBITS, flags: elf.SHF_ALLOC | elf.SHF_WRITE, align: 8, size: uint64(len(l.got)) * 8, ent: 8}
	dynamic := &outSec{name: ".dynamic", typ: elf.SHT_DYNAMIC, flags: elf.SHF_ALLOC | elf.SHF_WRITE, align: 8, ent: dynSize, link: dynstr}
	dynamic.size = uint64(len(l.dynTags(hashSec, dynsym, dynstr, rela))) * dynSize
	segs := []*segment{
		{flags: elf.PF_R, secs: []*outSec{hashSec, dynsym, dynstr, rela, l.rodata}},
		{flags: elf.PF_R | elf.PF_X, secs: []*outSec{l.text, l.pltSec}},
		{flags: elf.PF_R | elf.PF_W, secs: []*outSec{dynamic, l.gotSec, l.data, l.bss}},
	}
	var loads []*segment
	var all []*outSec
	for i, sg := range segs {
		used := i == 0
		for _, o := range sg.secs {
			if !o.empty() {
				used = true
				o.shndx = len(all) + 1
				all = append(all, o)
			}
		}
		if used {
			loads = append(loads, sg)
		}
	}
	nPhdr := len(loads) + 2 // PT_DYNAMIC, PT_GNU_STACK
	if err := l.layout(loads, ehdrSize+uint64(nPhdr)*phdrSize); err != nil {
		return nil, internalErr(err)
	}

	// Contents: GOT, PLT, dynamic relocations, relocated input sections.
	var relas []elf.Rela64
	gotData := make([]byte, l.gotSec.size)
	for i, k := range l.got {
		slot := l.gotSec.addr + uint64(8*i)
		if k.name != "" && k.sec == nil {
			relas = append(relas, elf.Rela64{Off: slot, Info: elf.R_INFO(uint32(l.impIdx[k.name]), l.arch.globDat), Addend: k.addend})
			continue
		}
		v := symTarget{sec: k.sec, value: k.value}.addr() + uint64(k.addend)
		le.PutUint64(gotData[8*i:], v)
		if k.sec != nil {
			relas = append(relas, elf.Rela64{Off: slot, Info: elf.R_INFO(0, l.arch.relative), Addend: int64(v)})
		}
	}
	l.gotSec.data = gotData
	plt := make([]byte, l.pltSec.size)
	for i, name := range l.plt {
		p := l.pltSec.addr + uint64(i)*l.arch.pltEntry
		l.arch.writePLT(plt[uint64(i)*l.arch.pltEntry:], p, l.gotSec.addr+8*uint64(l.gotIdx[gotKey{name: name}]))
	}
	l.pltSec.data = plt
	for _, in := range l.ins {
		for _, s := range in.secs {
			if s == nil {
				continue
			}
			var err error
			if relas, err = l.relocate(s, relas); err != nil {
				return nil, err
			}
		}
	}
	if len(relas) != nRela {
		return nil, internalErr(fmt.Errorf("%d dynamic relocations, %d counted", len(relas), nRela))
	}
	// RELATIVE relocations first, as ld.lld orders them.
	sortRelas(relas, l.arch.relative)
	rela.data = make([]byte, rela.size)
	if _, err := binary.Encode(rela.data, le, relas); err != nil {
		return nil, internalErr(err)
	}
	dynsym.data = make([]byte, dynsym.size)
	for i, s := range syms[1:] {
		e := elf.Sym64{Name: nameOff[i+1], Info: elf.ST_INFO(s.bind, s.t.typ), Other: s.other}
		switch {
		case s.t.imp:
		case s.t.sec != nil:
			e.Shndx, e.Value, e.Size = uint16(s.t.sec.out.shndx), s.t.addr(), s.size
		default:
			e.Shndx, e.Value, e.Size = uint16(elf.SHN_ABS), s.t.value, s.size
		}
		binary.Encode(dynsym.data[(i+1)*symSize:], le, e)
	}
	dynamic.data = make([]byte, dynamic.size)
	for i, tag := range l.dynTags(hashSec, dynsym, dynstr, rela) {
		le.PutUint64(dynamic.data[16*i:], tag[0])
		le.PutUint64(dynamic.data[16*i+8:], tag[1])
	}
	for _, o := range []*outSec{l.text, l.rodata, l.data} {
		o.data = make([]byte, o.size)
		for _, s := range o.secs {
			copy(o.data[s.off:], s.data)
		}
	}
	return l.assemble(loads, all, dynamic), nil
}

// internalErr wraps an internal linker failure.
func internalErr(err error) error {
	return status.Errorf(status.Internal, "llvm-cpu: gree's linker: %v (set GREE_LINKER=lld to link with ld.lld instead, and report this)", err)
}

// relocate applies s's relocations, appending the dynamic ones to relas.
func (l *linker) relocate(s *inSec, relas []elf.Rela64) ([]elf.Rela64, error) {
	for _, r := range s.relas {
		typ := elf.R_TYPE64(r.Info)
		k := l.arch.kinds[typ]
		t, err := l.target(s.in, elf.R_SYM64(r.Info))
		if err != nil {
			return nil, err
		}
		P := s.addr() + r.Off
		S := t.addr()
		var G uint64
		A := r.Addend
		switch {
		case k.got:
			G = l.gotSec.addr + 8*uint64(l.gotIdx[keyOf(t, l.arch.gotAddend(A))])
			A -= l.arch.gotAddend(A)
		case k.call && t.imp:
			S = l.pltSec.addr + uint64(l.pltIdx[t.name])*l.arch.pltEntry
		case k.abs64 && t.imp:
			relas = append(relas, elf.Rela64{Off: P, Info: elf.R_INFO(uint32(l.impIdx[t.name]), l.arch.abs64), Addend: A})
		case k.abs64 && t.sec != nil:
			relas = append(relas, elf.Rela64{Off: P, Info: elf.R_INFO(0, l.arch.relative), Addend: int64(S) + A})
		}
		if err := l.arch.apply(typ, s.data[r.Off:], P, S, G, A); err != nil {
			return nil, linkErr(s.in, "section %s: %s at %#x against %q: %v", s.name, l.arch.typeName(typ), r.Off, t.name, err)
		}
	}
	return relas, nil
}
