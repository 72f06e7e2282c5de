package llvmcpu

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"sort"
)

// outSec is a section of the output.
type outSec struct {
	name  string
	typ   elf.SectionType
	flags elf.SectionFlag
	align uint64
	size  uint64
	data  []byte // the contents, filled before writing (nil for NOBITS)
	secs  []*inSec
	addr  uint64
	off   uint64
	shndx int // index in the section headers; 0 when empty
	link  *outSec
	info  uint32
	ent   uint64
}

// empty reports whether o is left out of the output.
func (o *outSec) empty() bool { return o.size == 0 && o.typ != elf.SHT_DYNAMIC }

// add appends an input section.
func (o *outSec) add(s *inSec) {
	o.align = max(o.align, s.align)
	o.size = alignUp(o.size, s.align)
	s.out, s.off = o, o.size
	o.size += s.size
	o.secs = append(o.secs, s)
}

func alignUp(x, a uint64) uint64 {
	if a <= 1 {
		return x
	}
	return (x + a - 1) &^ (a - 1)
}

// ELF structure sizes.
const (
	ehdrSize = 64
	phdrSize = 56
	shdrSize = 64
	symSize  = 24
	relaSize = 24
	dynSize  = 16
)

// segment is a PT_LOAD segment's sections and flags.
type segment struct {
	flags elf.ProgFlag
	secs  []*outSec
	// off, addr, filesz, memsz are set by layout.
	off, addr, filesz, memsz uint64
}

// dynTags are the dynamic entries, their values filled at layout.
func (l *linker) dynTags(hash, dynsym, dynstr, rela *outSec) [][2]uint64 {
	tags := [][2]uint64{
		{uint64(elf.DT_HASH), hash.addr},
		{uint64(elf.DT_STRTAB), dynstr.addr},
		{uint64(elf.DT_SYMTAB), dynsym.addr},
		{uint64(elf.DT_STRSZ), dynstr.size},
		{uint64(elf.DT_SYMENT), symSize},
	}
	if rela.size > 0 {
		tags = append(tags, [2]uint64{uint64(elf.DT_RELA), rela.addr}, [2]uint64{uint64(elf.DT_RELASZ), rela.size}, [2]uint64{uint64(elf.DT_RELAENT), relaSize})
	}
	return append(tags,
		[2]uint64{uint64(elf.DT_FLAGS), uint64(elf.DF_BIND_NOW)},
		[2]uint64{uint64(elf.DT_FLAGS_1), uint64(elf.DF_1_NOW)},
		[2]uint64{uint64(elf.DT_NULL), 0})
}

// layout places the segments after headers bytes of ELF and program
// headers: each starts on a new page in memory, its file offset congruent
// to its address modulo the page size.
func (l *linker) layout(segs []*segment, headers uint64) error {
	var off, addr uint64
	for i, sg := range segs {
		first := true
		for _, o := range sg.secs {
			if o.empty() {
				continue
			}
			if o.align > l.arch.page {
				return fmt.Errorf("section %s wants %d-byte alignment, more than a page", o.name, o.align)
			}
			if first {
				if i == 0 {
					off, addr = headers, headers
					sg.off, sg.addr = 0, 0
				} else {
					off = alignUp(off, o.align)
					addr = alignUp(addr, l.arch.page) + off%l.arch.page
					sg.off, sg.addr = off, addr
				}
				first = false
			}
			addr = alignUp(addr, o.align)
			if o.typ != elf.SHT_NOBITS {
				off = alignUp(off, o.align)
				if addr-off != sg.addr-sg.off {
					return fmt.Errorf("section %s breaks its segment's file layout", o.name)
				}
			}
			o.addr, o.off = addr, off
			addr += o.size
			if o.typ != elf.SHT_NOBITS {
				off += o.size
				sg.filesz = off - sg.off
			}
			sg.memsz = addr - sg.addr
		}
	}
	return nil
}

// sysvHash is the ELF (DT_HASH) hash of a symbol name.
func sysvHash(name string) uint32 {
	var h uint32
	for i := 0; i < len(name); i++ {
		h = h<<4 + uint32(name[i])
		g := h & 0xf0000000
		if g != 0 {
			h ^= g >> 24
		}
		h &^= g
	}
	return h
}

// hashTable builds the DT_HASH table of dynamic symbols names (index 0
// is the null symbol).
func hashTable(names []string) []byte {
	n := uint32(len(names))
	nbucket := max(1, n/2+1)
	b := make([]byte, 4*(2+nbucket+n))
	le.PutUint32(b[0:], nbucket)
	le.PutUint32(b[4:], n)
	bucket := func(i uint32) []byte { return b[8+4*i:] }
	chain := func(i uint32) []byte { return b[8+4*nbucket+4*i:] }
	for i := n - 1; i >= 1; i-- {
		h := sysvHash(names[i]) % nbucket
		le.PutUint32(chain(i), le.Uint32(bucket(h)))
		le.PutUint32(bucket(h), i)
	}
	return b
}

// sortRelas puts the relative relocations first, keeping the order
// otherwise.
func sortRelas(r []elf.Rela64, relative uint32) {
	sort.SliceStable(r, func(i, j int) bool {
		return elf.R_TYPE64(r[i].Info) == relative && elf.R_TYPE64(r[j].Info) != relative
	})
}

// assemble writes the ELF header, the program headers, the sections'
// contents, the section name table and the section headers.
func (l *linker) assemble(loads []*segment, secs []*outSec, dynamic *outSec) []byte {
	var end uint64
	for _, o := range secs {
		if o.typ != elf.SHT_NOBITS {
			end = max(end, o.off+o.size)
		}
	}
	names := []byte{0}
	nameOf := func(s string) uint32 {
		n := uint32(len(names))
		names = append(append(names, s...), 0)
		return n
	}
	shNames := make([]uint32, len(secs))
	for i, o := range secs {
		shNames[i] = nameOf(o.name)
	}
	shstrName := nameOf(".shstrtab")
	shstrOff := end
	shoff := alignUp(shstrOff+uint64(len(names)), 8)
	nsh := len(secs) + 2
	out := make([]byte, shoff+uint64(nsh)*shdrSize)
	for _, o := range secs {
		copy(out[o.off:], o.data)
	}
	copy(out[shstrOff:], names)

	hdr := elf.Header64{Type: uint16(elf.ET_DYN), Machine: uint16(l.arch.machine), Version: uint32(elf.EV_CURRENT),
		Phoff: ehdrSize, Shoff: shoff, Ehsize: ehdrSize, Phentsize: phdrSize, Phnum: uint16(len(loads) + 2),
		Shentsize: shdrSize, Shnum: uint16(nsh), Shstrndx: uint16(nsh - 1)}
	copy(hdr.Ident[:], elf.ELFMAG)
	hdr.Ident[elf.EI_CLASS], hdr.Ident[elf.EI_DATA], hdr.Ident[elf.EI_VERSION] = byte(elf.ELFCLASS64), byte(elf.ELFDATA2LSB), byte(elf.EV_CURRENT)
	binary.Encode(out, le, hdr)
	ph := out[ehdrSize:]
	put := func(p elf.Prog64) {
		binary.Encode(ph, le, p)
		ph = ph[phdrSize:]
	}
	for _, sg := range loads {
		put(elf.Prog64{Type: uint32(elf.PT_LOAD), Flags: uint32(sg.flags), Off: sg.off, Vaddr: sg.addr, Paddr: sg.addr, Filesz: sg.filesz, Memsz: sg.memsz, Align: l.arch.page})
	}
	put(elf.Prog64{Type: uint32(elf.PT_DYNAMIC), Flags: uint32(elf.PF_R | elf.PF_W), Off: dynamic.off, Vaddr: dynamic.addr, Paddr: dynamic.addr, Filesz: dynamic.size, Memsz: dynamic.size, Align: 8})
	put(elf.Prog64{Type: uint32(elf.PT_GNU_STACK), Flags: uint32(elf.PF_R | elf.PF_W)})

	sh := out[shoff+shdrSize:]
	for i, o := range secs {
		s := elf.Section64{Name: shNames[i], Type: uint32(o.typ), Flags: uint64(o.flags), Addr: o.addr, Off: o.off, Size: o.size, Info: o.info, Addralign: o.align, Entsize: o.ent}
		if o.link != nil {
			s.Link = uint32(o.link.shndx)
		}
		binary.Encode(sh, le, s)
		sh = sh[shdrSize:]
	}
	binary.Encode(sh, le, elf.Section64{Name: shstrName, Type: uint32(elf.SHT_STRTAB), Off: shstrOff, Size: uint64(len(names)), Addralign: 1})
	return out
}
