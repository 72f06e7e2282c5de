package llvmcpu

import (
	"bytes"
	"debug/elf"

	schema "github.com/gree-ml/gree/go/schemas/llvmcpu"
)

// dynHints explain why a dynamic tag is refused.
var dynHints = map[elf.DynTag]string{
	elf.DT_NEEDED: "it depends on another library", elf.DT_INIT: "it has a constructor", elf.DT_FINI: "it has a destructor",
	elf.DT_INIT_ARRAY: "it has constructors", elf.DT_FINI_ARRAY: "it has destructors", elf.DT_PREINIT_ARRAY: "it has pre-initializers",
	elf.DT_TEXTREL: "it relocates its code", elf.DT_RPATH: "it sets a library search path", elf.DT_RUNPATH: "it sets a library search path",
	elf.DT_AUDIT: "it names an audit library", elf.DT_DEPAUDIT: "it names an audit library",
	// The loader matches later dlopen calls by name against loaded
	// objects' DT_SONAME: an object calling itself libcuda.so.1 would be
	// what the CUDA driver then opens.
	elf.DT_SONAME: "it names itself, so that a later dlopen of that name would find it",
}

// allowedDyn are the dynamic tags lld writes for the target's objects.
var allowedDyn = map[elf.DynTag]bool{
	elf.DT_HASH: true, elf.DT_GNU_HASH: true, elf.DT_STRTAB: true, elf.DT_SYMTAB: true, elf.DT_STRSZ: true,
	elf.DT_SYMENT: true, elf.DT_RELA: true, elf.DT_RELASZ: true, elf.DT_RELAENT: true, elf.DT_RELACOUNT: true,
	elf.DT_JMPREL: true, elf.DT_PLTRELSZ: true, elf.DT_PLTREL: true, elf.DT_PLTGOT: true, elf.DT_FLAGS: true,
	elf.DT_FLAGS_1: true, elf.DT_BIND_NOW: true,
}

// dynamic checks the dynamic section and the tables it points to.
func (o *object) dynamic(entries []string) error {
	off, _ := o.table("the dynamic section", o.dyn.vaddr, o.dyn.memsz, true)
	tags := map[elf.DynTag]uint64{}
	terminated := false
	for i := uint64(0); i < o.dyn.memsz/16 && i < maxDynEntries; i++ {
		tag, val := elf.DynTag(o.u64(off+16*i)), o.u64(off+16*i+8)
		if tag == elf.DT_NULL {
			terminated = true
			break
		}
		if h, ok := dynHints[tag]; ok {
			return objErr("%s (%v)", h, tag)
		}
		if !allowedDyn[tag] {
			return objErr("dynamic tag %v (%#x) is not one lld writes for kernels", tag, uint64(tag))
		}
		if _, dup := tags[tag]; dup {
			return objErr("dynamic tag %v appears twice", tag)
		}
		tags[tag] = val
	}
	if !terminated {
		return objErr("the dynamic section has no DT_NULL within %d entries", maxDynEntries)
	}
	if f, ok := tags[elf.DT_FLAGS]; !ok || f != uint64(elf.DF_BIND_NOW) {
		return objErr("DT_FLAGS %#x, want BIND_NOW only", f)
	}
	if f, ok := tags[elf.DT_FLAGS_1]; ok && f != uint64(elf.DF_1_NOW) {
		return objErr("DT_FLAGS_1 %#x, want NOW only", f)
	}
	for _, t := range []elf.DynTag{elf.DT_STRTAB, elf.DT_STRSZ, elf.DT_SYMTAB, elf.DT_SYMENT} {
		if _, ok := tags[t]; !ok {
			return objErr("no %v", t)
		}
	}
	if tags[elf.DT_SYMENT] != 24 {
		return objErr("DT_SYMENT %d, want 24", tags[elf.DT_SYMENT])
	}
	strsz := tags[elf.DT_STRSZ]
	if strsz == 0 || strsz > maxStrtab {
		return objErr("DT_STRSZ %d", strsz)
	}
	stroff, err := o.table("the string table", tags[elf.DT_STRTAB], strsz, false)
	if err != nil {
		return err
	}
	strtab := o.b[stroff : stroff+strsz]
	if strtab[strsz-1] != 0 {
		return objErr("the string table does not end in NUL")
	}
	nsyms, err := o.hashTables(tags)
	if err != nil {
		return err
	}
	d := &dynInfo{object: o, strtab: strtab, nsyms: nsyms}
	if err := d.symbols(tags[elf.DT_SYMTAB], entries); err != nil {
		return err
	}
	if v, ok := tags[elf.DT_PLTGOT]; ok {
		if s, ok := o.loadOf(v, 24); !ok || !s.writable() {
			return objErr("DT_PLTGOT %#x does not lie in a writable segment", v)
		}
	}
	return d.relocations(tags)
}

// dynInfo holds what the dynamic section points to.
type dynInfo struct {
	*object
	strtab []byte
	nsyms  uint64
	defs   map[string]sym
}

// sym is a dynamic symbol.
type sym struct {
	name        string
	bind        elf.SymBind
	typ         elf.SymType
	shndx       elf.SectionIndex
	value, size uint64
}

// str returns the string at offset off of the string table.
func (d *dynInfo) str(off uint64) (string, bool) {
	if off >= uint64(len(d.strtab)) {
		return "", false
	}
	s := d.strtab[off:]
	return string(s[:bytes.IndexByte(s, 0)]), true
}

// symbols checks every dynamic symbol: defined ones inside a segment
// (functions inside an executable one, names unique), undefined ones
// allowed imports, no IFUNC or TLS; then the entry symbols.
func (d *dynInfo) symbols(symtab uint64, entries []string) error {
	off, err := d.table("the symbol table", symtab, d.nsyms*24, false)
	if err != nil {
		return err
	}
	if !bytes.Equal(d.b[off:off+24], make([]byte, 24)) {
		return objErr("symbol 0 is not the null symbol")
	}
	d.defs = map[string]sym{}
	for i := uint64(1); i < d.nsyms; i++ {
		p := off + 24*i
		name, ok := d.str(uint64(d.u32(p)))
		info, other := d.b[p+4], d.b[p+5]
		s := sym{name: name, bind: elf.ST_BIND(info), typ: elf.ST_TYPE(info), shndx: elf.SectionIndex(d.u16(p + 6)), value: d.u64(p + 8), size: d.u64(p + 16)}
		if !ok || name == "" {
			return objErr("symbol %d has no name", i)
		}
		if s.typ == elf.STT_GNU_IFUNC {
			return objErr("symbol %q is an IFUNC (its resolver would run at load)", name)
		}
		if s.bind != elf.STB_GLOBAL && s.bind != elf.STB_WEAK {
			return objErr("symbol %q has binding %v", name, s.bind)
		}
		vis, extra := elf.SymVis(other&3), other&^3
		if vis != elf.STV_DEFAULT && vis != elf.STV_PROTECTED || extra != 0 && !(d.m == elf.EM_AARCH64 && extra == 0x80) {
			return objErr("symbol %q has st_other %#x", name, other)
		}
		if s.shndx == elf.SHN_UNDEF {
			if s.typ != elf.STT_NOTYPE && s.typ != elf.STT_FUNC {
				return objErr("imported symbol %q has type %v", name, s.typ)
			}
			if !schema.AllowedImport(name) {
				return objErr("it imports %q, which is not a math or memory function the kernels call", name)
			}
			continue
		}
		if s.shndx >= elf.SHN_LORESERVE {
			return objErr("symbol %q is in special section %v", name, s.shndx)
		}
		if s.typ != elf.STT_NOTYPE && s.typ != elf.STT_OBJECT && s.typ != elf.STT_FUNC {
			return objErr("symbol %q has type %v", name, s.typ)
		}
		seg, ok := d.loadOf(s.value, s.size)
		if !ok && s.size == 0 && s.value > 0 && s.typ != elf.STT_FUNC {
			seg, ok = d.loadOf(s.value-1, 1) // a marker at a segment's end (_end, _edata)
		}
		if !ok || s.typ == elf.STT_FUNC && (!seg.exec() || s.value-seg.vaddr >= seg.filesz || s.size > seg.filesz-(s.value-seg.vaddr)) {
			return objErr("symbol %q [%#x, +%#x) does not lie in a segment of its kind", name, s.value, s.size)
		}
		if _, dup := d.defs[name]; dup {
			return objErr("symbol %q is defined twice", name)
		}
		d.defs[name] = s
	}
	for _, e := range entries {
		s, ok := d.defs[e]
		if !ok || s.typ != elf.STT_FUNC || s.size == 0 {
			return objErr("entry symbol %q is not a function it defines", e)
		}
	}
	return nil
}

// relocations checks DT_RELA and DT_JMPREL: known types only, each
// writing 8 aligned bytes inside a writable segment but outside the
// dynamic section, with a symbol when the type needs one.
func (d *dynInfo) relocations(tags map[elf.DynTag]uint64) error {
	relative, word, glob, slot := relocTypes(d.m)
	type table struct{ addr, size, ent elf.DynTag }
	total := uint64(0)
	for _, t := range []table{{elf.DT_RELA, elf.DT_RELASZ, elf.DT_RELAENT}, {elf.DT_JMPREL, elf.DT_PLTRELSZ, elf.DT_PLTREL}} {
		addr, hasAddr := tags[t.addr]
		size, hasSize := tags[t.size]
		ent, hasEnt := tags[t.ent]
		if !hasAddr && !hasSize && !hasEnt {
			continue
		}
		plt := t.addr == elf.DT_JMPREL
		if !hasAddr || !hasSize || !hasEnt || size%24 != 0 || !plt && ent != 24 || plt && ent != uint64(elf.DT_RELA) {
			return objErr("inconsistent %v, %v and %v", t.addr, t.size, t.ent)
		}
		n := size / 24
		if total += n; total > maxRelocs {
			return objErr("more than %d relocations", maxRelocs)
		}
		off, err := d.table(t.addr.String()+" relocations", addr, size, false)
		if err != nil {
			return err
		}
		count, hasCount := tags[elf.DT_RELACOUNT]
		if !plt && hasCount && count > n {
			return objErr("DT_RELACOUNT %d exceeds the %d relocations", count, n)
		}
		for i := uint64(0); i < n; i++ {
			p := off + 24*i
			at, info := d.u64(p), d.u64(p+8)
			typ, symi := uint32(info), info>>32
			switch {
			case plt && typ != slot, !plt && typ != relative && typ != word && typ != glob:
				return objErr("relocation type %d in %v is not allowed", typ, t.addr)
			case typ == relative && symi != 0, typ != relative && (symi == 0 || symi >= d.nsyms):
				return objErr("relocation %d in %v names symbol %d", i, t.addr, symi)
			case !plt && hasCount && i < count && typ != relative:
				return objErr("DT_RELACOUNT counts a relocation that is not RELATIVE")
			}
			seg, ok := d.loadOf(at, 8)
			if !ok || !seg.writable() || at%8 != 0 || at+8 > d.dyn.vaddr && at < d.dyn.vaddr+d.dyn.memsz {
				return objErr("relocation %d in %v writes to %#x, outside the writable data", i, t.addr, at)
			}
		}
	}
	if _, ok := tags[elf.DT_RELACOUNT]; ok {
		if _, ok := tags[elf.DT_RELA]; !ok {
			return objErr("DT_RELACOUNT without DT_RELA")
		}
	}
	return nil
}

// relocTypes returns machine m's RELATIVE, 64-bit absolute, GLOB_DAT and
// JUMP_SLOT relocation types: the only ones allowed.
func relocTypes(m elf.Machine) (relative, word, glob, slot uint32) {
	if m == elf.EM_AARCH64 {
		return uint32(elf.R_AARCH64_RELATIVE), uint32(elf.R_AARCH64_ABS64), uint32(elf.R_AARCH64_GLOB_DAT), uint32(elf.R_AARCH64_JUMP_SLOT)
	}
	return uint32(elf.R_X86_64_RELATIVE), uint32(elf.R_X86_64_64), uint32(elf.R_X86_64_GLOB_DAT), uint32(elf.R_X86_64_JMP_SLOT)
}
