package llvmcpu

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"

	schema "github.com/gree-ml/gree/go/schemas/llvmcpu"
	"github.com/gree-ml/gree/go/status"
)

// Limits of the shared objects ValidateObject accepts. The llvm-cpu
// target's objects are far below them.
const (
	maxProgHeaders = 32
	maxLoads       = 16
	maxSpan        = 1 << 30 // every segment lies in [0, 1 GiB) of the address space
	maxAlign       = 1 << 21
	maxDynEntries  = 256
	maxSymbols     = 1 << 20
	maxRelocs      = 1 << 22
	maxStrtab      = 1 << 26
)

// ntGNUProperty is NT_GNU_PROPERTY_TYPE_0, a note the loader acts on.
const ntGNUProperty = 5

// ValidateObject checks, before anything maps it, that x's shared object
// is one the llvm-cpu target could have written and that glibc's dynamic
// loader can load it without running any of its code or crashing: an
// ELF64 little-endian ET_DYN for x's architecture whose headers, segments
// and dynamic tables lie within the file and its segments; only the kinds
// of program header and dynamic tag lld writes for it (no interpreter,
// TLS, executable stack, writable and executable segment, needed library,
// constructor, destructor, text relocation, audit library, search path
// or name of its own); only the relocations and symbol kinds the loader resolves without
// running the object's code (no IFUNC, no IRELATIVE), each relocation
// writing inside a writable segment; every import a math or memory
// function (schema.AllowedImport); and every entry symbol a defined
// function inside an executable segment. A failed check is
// INVALID_ARGUMENT naming it. It never panics.
//
// It cannot tell whether the code itself is what the compiler generated:
// a kernel may still do anything when it runs. Signed modules are the
// answer to that (docs/module-format.md, "Trust").
func ValidateObject(x *schema.Executable) (err error) {
	var m elf.Machine
	page := uint64(4096)
	switch x.Arch() {
	case "x86_64":
		m = elf.EM_X86_64
	case "aarch64":
		m = elf.EM_AARCH64
	default:
		return status.Errorf(status.InvalidArgument, "llvm-cpu executable: its shared object is for architecture %q; only x86_64 and aarch64 objects are loaded", x.Arch())
	}
	if x.Arch() == hostArch() {
		page = max(page, uint64(os.Getpagesize()))
	}
	syms := make([]string, len(x.Entries))
	for i, e := range x.Entries {
		syms[i] = e.Symbol
	}
	defer func() {
		if r := recover(); r != nil { // a bug here must not take the process down
			err = status.Errorf(status.Internal, "llvm-cpu executable: validating its shared object failed: %v", r)
		}
	}()
	return validateELF(x.Object, m, page, syms)
}

// objErr is a validation failure.
func objErr(format string, args ...any) error {
	return status.Errorf(status.InvalidArgument, "llvm-cpu executable: its shared object is not loadable safely: %s", fmt.Sprintf(format, args...))
}

// segment is a program header.
type segment struct {
	typ                              elf.ProgType
	flags                            elf.ProgFlag
	off, vaddr, filesz, memsz, align uint64
}

func (s segment) writable() bool { return s.flags&elf.PF_W != 0 }
func (s segment) exec() bool     { return s.flags&elf.PF_X != 0 }

// object is an ELF file being validated.
type object struct {
	b     []byte
	m     elf.Machine
	page  uint64
	loads []segment
	dyn   segment
}

func (o *object) u16(off uint64) uint16 { return binary.LittleEndian.Uint16(o.b[off:]) }
func (o *object) u32(off uint64) uint32 { return binary.LittleEndian.Uint32(o.b[off:]) }
func (o *object) u64(off uint64) uint64 { return binary.LittleEndian.Uint64(o.b[off:]) }

// inFile reports whether [off, off+n) lies in the file.
func (o *object) inFile(off, n uint64) bool {
	l := uint64(len(o.b))
	return off <= l && n <= l-off
}

// table returns the file offset of n bytes at address vaddr that lie in
// the file-backed part of one PT_LOAD segment, read-only unless writable.
func (o *object) table(what string, vaddr, n uint64, writable bool) (uint64, error) {
	for _, s := range o.loads {
		if vaddr < s.vaddr || vaddr-s.vaddr >= s.filesz || n > s.filesz-(vaddr-s.vaddr) {
			continue
		}
		if s.writable() != writable {
			w := "writable"
			if s.writable() {
				w = "read-only"
			}
			return 0, objErr("%s at %#x lies in a segment that is not %s", what, vaddr, w)
		}
		return s.off + (vaddr - s.vaddr), nil
	}
	return 0, objErr("%s [%#x, +%#x) does not lie in the file part of a loaded segment", what, vaddr, n)
}

// loadOf returns the PT_LOAD whose memory holds [vaddr, vaddr+n).
func (o *object) loadOf(vaddr, n uint64) (segment, bool) {
	for _, s := range o.loads {
		if vaddr >= s.vaddr && vaddr-s.vaddr < s.memsz && n <= s.memsz-(vaddr-s.vaddr) {
			return s, true
		}
	}
	return segment{}, false
}

// validateELF validates obj for machine m and page size page, with the
// entry symbols syms.
func validateELF(obj []byte, m elf.Machine, page uint64, syms []string) error {
	o := &object{b: obj, m: m, page: page}
	if err := o.header(); err != nil {
		return err
	}
	if _, err := elf.NewFile(bytes.NewReader(obj)); err != nil {
		return objErr("%v", err)
	}
	if err := o.segments(); err != nil {
		return err
	}
	return o.dynamic(syms)
}

// header checks the ELF header and the section headers' bounds.
func (o *object) header() error {
	b := o.b
	if len(b) < 64 || string(b[:4]) != elf.ELFMAG {
		return objErr("not an ELF file of at least 64 bytes")
	}
	if elf.Class(b[elf.EI_CLASS]) != elf.ELFCLASS64 || elf.Data(b[elf.EI_DATA]) != elf.ELFDATA2LSB || elf.Version(b[elf.EI_VERSION]) != elf.EV_CURRENT {
		return objErr("not a 64-bit little-endian ELF file of version 1")
	}
	if abi := elf.OSABI(b[elf.EI_OSABI]); abi != elf.ELFOSABI_NONE && abi != elf.ELFOSABI_LINUX || b[elf.EI_ABIVERSION] != 0 {
		return objErr("OS ABI %d version %d (want System V or Linux, version 0)", b[elf.EI_OSABI], b[elf.EI_ABIVERSION])
	}
	for _, c := range b[elf.EI_PAD:elf.EI_NIDENT] {
		if c != 0 {
			return objErr("nonzero ELF identification padding")
		}
	}
	if t := elf.Type(o.u16(16)); t != elf.ET_DYN {
		return objErr("ELF type %v, not a shared object (ET_DYN)", t)
	}
	if mach := elf.Machine(o.u16(18)); mach != o.m {
		return objErr("machine %v, want %v", mach, o.m)
	}
	if o.u32(20) != uint32(elf.EV_CURRENT) || o.u32(48) != 0 || o.u16(52) != 64 || o.u16(54) != 56 {
		return objErr("unexpected ELF version, flags or header sizes")
	}
	phoff, phnum := o.u64(32), uint64(o.u16(56))
	if phnum == 0 || phnum > maxProgHeaders || phoff < 64 || phoff%8 != 0 || !o.inFile(phoff, phnum*56) {
		return objErr("%d program headers at offset %#x (1 to %d, inside the file)", phnum, phoff, maxProgHeaders)
	}
	shoff, shnum, shstrndx := o.u64(40), uint64(o.u16(60)), uint64(o.u16(62))
	if shnum == 0 {
		if shoff != 0 {
			return objErr("section header offset without sections")
		}
		return nil
	}
	if o.u16(58) != 64 || shnum >= uint64(elf.SHN_LORESERVE) || shoff%8 != 0 || !o.inFile(shoff, shnum*64) || shstrndx >= shnum {
		return objErr("%d section headers at offset %#x do not lie in the file", shnum, shoff)
	}
	for i := uint64(0); i < shnum; i++ {
		h := shoff + i*64
		typ, off, size, link := elf.SectionType(o.u32(h+4)), o.u64(h+24), o.u64(h+32), uint64(o.u32(h+40))
		if typ != elf.SHT_NOBITS && typ != elf.SHT_NULL && !o.inFile(off, size) {
			return objErr("section %d [%#x, +%#x) does not lie in the file", i, off, size)
		}
		if link >= shnum {
			return objErr("section %d links to section %d of %d", i, link, shnum)
		}
	}
	return nil
}

// segments checks the program headers.
func (o *object) segments() error {
	phoff, phnum := o.u64(32), uint64(o.u16(56))
	var hasDyn, hasStack, hasRelro, hasPhdr, hasExec bool
	var relro, phdr segment
	var notes []segment
	for i := uint64(0); i < phnum; i++ {
		h := phoff + i*56
		s := segment{typ: elf.ProgType(o.u32(h)), flags: elf.ProgFlag(o.u32(h + 4)), off: o.u64(h + 8), vaddr: o.u64(h + 16),
			filesz: o.u64(h + 32), memsz: o.u64(h + 40), align: o.u64(h + 48)}
		if s.flags&^(elf.PF_R|elf.PF_W|elf.PF_X) != 0 {
			return objErr("program header %d (%v) has flags %#x", i, s.typ, uint32(s.flags))
		}
		if s.typ == elf.PT_GNU_STACK {
			if hasStack || s.exec() {
				return objErr("it asks for an executable stack (or has two PT_GNU_STACK headers)")
			}
			hasStack = true
			continue
		}
		if !o.inFile(s.off, s.filesz) || s.filesz > s.memsz || s.vaddr >= maxSpan || s.memsz > maxSpan-s.vaddr {
			return objErr("program header %d (%v): file range [%#x, +%#x) or memory [%#x, +%#x) out of bounds", i, s.typ, s.off, s.filesz, s.vaddr, s.memsz)
		}
		switch s.typ {
		case elf.PT_LOAD:
			if err := o.addLoad(i, s); err != nil {
				return err
			}
			hasExec = hasExec || s.exec()
		case elf.PT_DYNAMIC:
			if hasDyn || s.memsz < 16 || s.memsz%16 != 0 || s.filesz != s.memsz || s.vaddr%8 != 0 {
				return objErr("a second or malformed PT_DYNAMIC header")
			}
			hasDyn, o.dyn = true, s
		case elf.PT_GNU_RELRO:
			if hasRelro {
				return objErr("two PT_GNU_RELRO headers")
			}
			hasRelro, relro = true, s
		case elf.PT_PHDR:
			if hasPhdr || s.off != phoff || s.filesz != phnum*56 || s.memsz != s.filesz {
				return objErr("a second or malformed PT_PHDR header")
			}
			hasPhdr, phdr = true, s
		case elf.PT_NOTE:
			if s.filesz != s.memsz {
				return objErr("a PT_NOTE header with memory size %#x, file size %#x", s.memsz, s.filesz)
			}
			notes = append(notes, s)
		default:
			return objErr("program header %d has type %v (only PT_LOAD, PT_DYNAMIC, PT_GNU_STACK, PT_GNU_RELRO, PT_PHDR and PT_NOTE are loaded)", i, s.typ)
		}
	}
	if len(o.loads) == 0 || !hasExec || !hasDyn || !hasStack {
		return objErr("it lacks an executable PT_LOAD, PT_DYNAMIC or PT_GNU_STACK header")
	}
	if _, err := o.table("the dynamic section", o.dyn.vaddr, o.dyn.memsz, true); err != nil {
		return err
	}
	if hasPhdr {
		if _, err := o.table("the program headers (PT_PHDR)", phdr.vaddr, phdr.memsz, false); err != nil {
			return err
		}
	}
	if hasRelro {
		if s, ok := o.loadOf(relro.vaddr, relro.memsz); !ok || !s.writable() {
			return objErr("PT_GNU_RELRO [%#x, +%#x) does not lie in a writable segment", relro.vaddr, relro.memsz)
		}
	}
	for _, n := range notes {
		if err := o.checkNotes(n); err != nil {
			return err
		}
	}
	return nil
}

// addLoad checks a PT_LOAD header and appends it: aligned, in address
// order, sharing no page with the previous one, never writable and
// executable at once, and zero-filled only when writable.
func (o *object) addLoad(i uint64, s segment) error {
	if len(o.loads) == maxLoads {
		return objErr("more than %d PT_LOAD segments", maxLoads)
	}
	if s.align < o.page || s.align > maxAlign || s.align&(s.align-1) != 0 || s.vaddr%s.align != s.off%s.align {
		return objErr("PT_LOAD %d: alignment %#x (a power of two from %#x to %#x, vaddr ≡ offset)", i, s.align, o.page, uint64(maxAlign))
	}
	if s.flags&elf.PF_R == 0 {
		return objErr("PT_LOAD %d is not readable", i)
	}
	if s.writable() && s.exec() {
		return objErr("PT_LOAD %d is writable and executable", i)
	}
	if !s.writable() && s.filesz != s.memsz {
		return objErr("PT_LOAD %d is read-only with zero-filled memory", i)
	}
	if n := len(o.loads); n > 0 {
		p := o.loads[n-1]
		if end := (p.vaddr + p.memsz + o.page - 1) &^ (o.page - 1); s.vaddr&^(o.page-1) < end {
			return objErr("PT_LOAD %d at %#x overlaps or precedes the previous segment's pages (ending at %#x)", i, s.vaddr, end)
		}
	}
	o.loads = append(o.loads, s)
	return nil
}

// checkNotes checks the notes of a PT_NOTE segment: well formed, inside
// a read-only segment, and no GNU property note (which the loader acts
// on).
func (o *object) checkNotes(n segment) error {
	off, err := o.table("a PT_NOTE segment", n.vaddr, n.filesz, false)
	if err != nil {
		return err
	}
	end := off + n.filesz
	for off < end {
		if end-off < 12 {
			return objErr("a truncated note")
		}
		namesz, descsz, typ := uint64(o.u32(off)), uint64(o.u32(off+4)), o.u32(off+8)
		pad := func(x uint64) uint64 { return (x + 3) &^ 3 }
		if namesz > end-off || descsz > end-off || pad(namesz)+pad(descsz) > end-off-12 {
			return objErr("a note larger than its segment")
		}
		name := o.b[off+12 : off+12+namesz]
		if typ == ntGNUProperty && string(name) == "GNU\x00" {
			return objErr("a GNU property note")
		}
		off += 12 + pad(namesz) + pad(descsz)
	}
	return nil
}
