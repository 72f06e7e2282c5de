package llvmcpu

import (
	"debug/elf"
	"strings"
	"testing"
)

// x86Obj is a synthetic x86-64 object: 64 bytes of code with a local
// function "helper" at 32 and an exported "gree_entry_0" at 0, 32 bytes of
// data with a local "table" at 8, 16 bytes of read-only data and the
// imports expf and memcpy, plus the given relocations.
func x86Obj(t *testing.T, rels ...testRel) []byte {
	syms := []testSym{
		{name: "helper", sec: 1, value: 32, typ: elf.STT_FUNC},
		{name: "table", sec: 2, value: 8, typ: elf.STT_OBJECT},
		{name: "", sec: 3, typ: elf.STT_SECTION},
		{name: "gree_entry_0", sec: 1, value: 0, global: true, typ: elf.STT_FUNC},
		{name: "expf", global: true},
		{name: "memcpy", global: true},
	}
	return relObject(t, elf.EM_X86_64, make([]byte, 64), make([]byte, 32), make([]byte, 16), syms, rels)
}

// Symbol numbers of x86Obj's and a64Obj's symbols.
const (
	symHelper = 1
	symTable  = 2
	symRodata = 3
	symEntry  = 4
	symExpf   = 5
	symMemcpy = 6
)

func TestLinkX86PCRelative(t *testing.T) {
	for _, typ := range []elf.R_X86_64{elf.R_X86_64_PC32, elf.R_X86_64_PLT32} {
		l := linkObj(t, x86Obj(t,
			testRel{sec: 1, off: 4, typ: uint32(typ), sym: symTable, addend: -4},
			testRel{sec: 1, off: 8, typ: uint32(typ), sym: symRodata, addend: 12},
			testRel{sec: 1, off: 12, typ: uint32(typ), sym: symEntry, addend: -4}))
		text, data, ro := l.addr(".text"), l.addr(".data"), l.addr(".rodata")
		if got, want := int32(l.word(text+4, 4)), int32(data+8-4-(text+4)); got != want {
			t.Errorf("%v to table: %#x, want %#x", typ, got, want)
		}
		if got, want := int32(l.word(text+8, 4)), int32(ro+12-(text+8)); got != want {
			t.Errorf("%v to .rodata+12: %#x, want %#x", typ, got, want)
		}
		// A global defined in the output binds directly, not through a PLT.
		if got, want := int32(l.word(text+12, 4)), int32(text-4-(text+12)); got != want {
			t.Errorf("%v to gree_entry_0: %#x, want %#x", typ, got, want)
		}
	}
	l := linkObj(t, x86Obj(t, testRel{sec: 2, off: 16, typ: uint32(elf.R_X86_64_PC64), sym: symHelper, addend: 3}))
	text, data := l.addr(".text"), l.addr(".data")
	if got, want := l.word(data+16, 8), text+32+3-(data+16); got != want {
		t.Errorf("PC64: %#x, want %#x", got, want)
	}
}

func TestLinkX86CallsThroughPLT(t *testing.T) {
	l := linkObj(t, x86Obj(t, testRel{sec: 1, off: 1, typ: uint32(elf.R_X86_64_PLT32), sym: symExpf, addend: -4}))
	text, plt, got := l.addr(".text"), l.addr(".plt"), l.addr(".got")
	if v, want := int32(l.word(text+1, 4)), int32(plt-4-(text+1)); v != want {
		t.Fatalf("call: %#x, want %#x (the PLT stub)", v, want)
	}
	// The stub is jmp *slot(%rip).
	if op := l.word(plt, 2); op != 0x25ff {
		t.Errorf("stub opcode %#x", op)
	}
	if v, want := int32(l.word(plt+2, 4)), int32(got-(plt+6)); v != want {
		t.Errorf("stub displacement %#x, want %#x", v, want)
	}
	r, ok := l.dynRelocs()[got]
	if !ok || elf.R_X86_64(elf.R_TYPE64(r.Info)) != elf.R_X86_64_GLOB_DAT {
		t.Fatalf("GOT slot relocation %+v", r)
	}
	syms, _ := l.f.DynamicSymbols()
	if s := syms[elf.R_SYM64(r.Info)-1]; s.Name != "expf" || s.Section != elf.SHN_UNDEF {
		t.Errorf("GLOB_DAT symbol %+v", s)
	}
	// PC32 cannot reach a library symbol.
	_, err := linkShared([][]byte{x86Obj(t, testRel{sec: 1, off: 1, typ: uint32(elf.R_X86_64_PC32), sym: symExpf, addend: -4})})
	if err == nil || !strings.Contains(err.Error(), "expf") {
		t.Errorf("PC32 to an import: %v", err)
	}
}

func TestLinkX86GOT(t *testing.T) {
	for _, typ := range []elf.R_X86_64{elf.R_X86_64_GOTPCREL, elf.R_X86_64_GOTPCRELX, elf.R_X86_64_REX_GOTPCRELX} {
		l := linkObj(t, x86Obj(t,
			testRel{sec: 1, off: 3, typ: uint32(typ), sym: symMemcpy, addend: -4},
			testRel{sec: 1, off: 10, typ: uint32(typ), sym: symTable, addend: -4},
			testRel{sec: 1, off: 17, typ: uint32(typ), sym: symMemcpy, addend: -4}))
		text, got, data := l.addr(".text"), l.addr(".got"), l.addr(".data")
		relocs := l.dynRelocs()
		slot := func(off uint64) uint64 { return uint64(int64(text+off+4) + int64(int32(l.word(text+off, 4)))) }
		if s := slot(3); s != slot(17) || s < got || s >= got+16 {
			t.Errorf("%v: memcpy's slots %#x and %#x (GOT at %#x)", typ, s, slot(17), got)
		} else if r := relocs[s]; elf.R_X86_64(elf.R_TYPE64(r.Info)) != elf.R_X86_64_GLOB_DAT {
			t.Errorf("%v: memcpy's slot relocation %+v", typ, r)
		}
		s := slot(10)
		r := relocs[s]
		if elf.R_X86_64(elf.R_TYPE64(r.Info)) != elf.R_X86_64_RELATIVE || uint64(r.Addend) != data+8 || l.word(s, 8) != data+8 {
			t.Errorf("%v: table's slot %#x relocation %+v, contents %#x, want RELATIVE %#x", typ, s, r, l.word(s, 8), data+8)
		}
	}
}

func TestLinkX86Absolute(t *testing.T) {
	l := linkObj(t, x86Obj(t,
		testRel{sec: 2, off: 0, typ: uint32(elf.R_X86_64_64), sym: symHelper, addend: 5},
		testRel{sec: 2, off: 16, typ: uint32(elf.R_X86_64_64), sym: symMemcpy, addend: 7}))
	text, data := l.addr(".text"), l.addr(".data")
	relocs := l.dynRelocs()
	if r := relocs[data]; elf.R_X86_64(elf.R_TYPE64(r.Info)) != elf.R_X86_64_RELATIVE || uint64(r.Addend) != text+37 {
		t.Errorf("local address: %+v, want RELATIVE %#x", r, text+37)
	}
	if r := relocs[data+16]; elf.R_X86_64(elf.R_TYPE64(r.Info)) != elf.R_X86_64_64 || r.Addend != 7 {
		t.Errorf("import address: %+v, want R_X86_64_64 memcpy+7", r)
	}
	// An absolute address in code would need a text relocation.
	_, err := linkShared([][]byte{x86Obj(t, testRel{sec: 1, off: 0, typ: uint32(elf.R_X86_64_64), sym: symTable})})
	if err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("R_X86_64_64 in .text: %v", err)
	}
}

func TestLinkRejectsUnsupported(t *testing.T) {
	_, err := linkShared([][]byte{x86Obj(t, testRel{sec: 1, off: 0, typ: uint32(elf.R_X86_64_32S), sym: symTable})})
	if err == nil || !strings.Contains(err.Error(), "R_X86_64_32S") || !strings.Contains(err.Error(), "GREE_LINKER=lld") {
		t.Errorf("R_X86_64_32S: %v", err)
	}
	_, err = linkShared([][]byte{x86Obj(t, testRel{sec: 1, off: 62, typ: uint32(elf.R_X86_64_PC32), sym: symTable})})
	if err == nil || !strings.Contains(err.Error(), "outside") {
		t.Errorf("relocation past the section's end: %v", err)
	}
	_, err = linkShared([][]byte{x86Obj(t), x86Obj(t)})
	if err == nil || !strings.Contains(err.Error(), "gree_entry_0") {
		t.Errorf("duplicate definitions: %v", err)
	}
	_, err = linkShared([][]byte{[]byte("not an object")})
	if err == nil {
		t.Errorf("garbage links")
	}
}

func TestLinkExportsAndMerges(t *testing.T) {
	// Two objects: the second calls the first's export directly.
	second := relObject(t, elf.EM_X86_64, make([]byte, 16), nil, nil,
		[]testSym{{name: "gree_entry_1", sec: 1, global: true, typ: elf.STT_FUNC}, {name: "gree_entry_0", global: true}},
		[]testRel{{sec: 1, off: 1, typ: uint32(elf.R_X86_64_PLT32), sym: 2, addend: -4}})
	l := linkObj(t, x86Obj(t), second)
	syms, _ := l.f.DynamicSymbols()
	var names []string
	for _, s := range syms {
		names = append(names, s.Name)
		if s.Name == "helper" || s.Name == "table" {
			t.Errorf("local symbol %s exported", s.Name)
		}
	}
	if !strings.Contains(strings.Join(names, ","), "gree_entry_0") || !strings.Contains(strings.Join(names, ","), "gree_entry_1") {
		t.Errorf("exports %v", names)
	}
	text := l.addr(".text")
	var e0, e1 uint64
	for _, s := range syms {
		switch s.Name {
		case "gree_entry_0":
			e0 = s.Value
		case "gree_entry_1":
			e1 = s.Value
		}
	}
	if e0 != text || e1 != text+64 {
		t.Errorf("gree_entry_0 at %#x, gree_entry_1 at %#x; .text at %#x", e0, e1, text)
	}
	if v, want := int32(l.word(e1+1, 4)), int32(e0-4-(e1+1)); v != want {
		t.Errorf("cross-object call %#x, want %#x", v, want)
	}
	if l.secs[".plt"] != nil {
		t.Errorf("a PLT without imports")
	}
}

func TestLinkWeakImportStaysWeak(t *testing.T) {
	obj := relObject(t, elf.EM_X86_64, make([]byte, 16), nil, nil,
		[]testSym{{name: "gree_entry_0", sec: 1, global: true, typ: elf.STT_FUNC}, {name: "sincosf", global: true, weak: true}, {name: "expf", global: true}},
		[]testRel{{sec: 1, off: 1, typ: uint32(elf.R_X86_64_PLT32), sym: 2, addend: -4}, {sec: 1, off: 6, typ: uint32(elf.R_X86_64_PLT32), sym: 3, addend: -4}})
	l := linkObj(t, obj)
	syms, _ := l.f.DynamicSymbols()
	binds := map[string]elf.SymBind{}
	for _, s := range syms {
		binds[s.Name] = elf.ST_BIND(s.Info)
	}
	if binds["sincosf"] != elf.STB_WEAK || binds["expf"] != elf.STB_GLOBAL || binds["gree_entry_0"] != elf.STB_GLOBAL {
		t.Errorf("bindings %v", binds)
	}
}
