package llvmcpu

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/gree-ml/gree/go/compiler"
	ctarget "github.com/gree-ml/gree/go/compiler/target/llvmcpu"
	schema "github.com/gree-ml/gree/go/schemas/llvmcpu"
	"github.com/gree-ml/gree/go/schemas/module"
	"github.com/gree-ml/gree/go/status"
)

// samplePrograms are compiled for llvm-cpu to get real kernel objects:
// plain arithmetic, libm calls (exp, log, tanh, erf, pow, atan2, …) and
// matrix products.
var samplePrograms = []string{"../../../../../samples/simple_mul.mlir", "../../../../../tests/e2e/elementwise.mlir", "../../../../../tests/e2e/linalg.mlir"}

var (
	compiledOnce sync.Once
	compiled     []*schema.Executable
	compiledErr  error
)

// compiledExecutables compiles samplePrograms for the host with the
// compiler and returns their llvm-cpu executables, skipping the test
// without LLVM.
func compiledExecutables(t *testing.T) []*schema.Executable {
	t.Helper()
	if err := ctarget.Available(); err != nil {
		t.Skipf("llvm-cpu unavailable (LLVM 19 and ld.lld are needed to build objects): %v", err)
	}
	compiledOnce.Do(func() {
		for _, p := range samplePrograms {
			src, err := os.ReadFile(p)
			if err != nil {
				compiledErr = err
				return
			}
			out, err := compiler.Compile(src, compiler.Options{Filename: p, Backends: []string{"llvm-cpu"}})
			if err != nil {
				compiledErr = err
				return
			}
			m, err := module.Decode(out)
			if err != nil {
				compiledErr = err
				return
			}
			for _, e := range m.Executables {
				x, err := schema.Decode(e.Data)
				if err != nil {
					compiledErr = err
					return
				}
				compiled = append(compiled, x)
			}
		}
	})
	if compiledErr != nil {
		t.Fatalf("compiling the samples: %v", compiledErr)
	}
	return compiled
}

// withObject returns a copy of x with object obj.
func withObject(x *schema.Executable, obj []byte) *schema.Executable {
	y := *x
	y.Object = obj
	return &y
}

func TestCompiledObjectsValidateAndLoad(t *testing.T) {
	for i, x := range compiledExecutables(t) {
		if err := ValidateObject(x); err != nil {
			t.Fatalf("executable %d: %v", i, err)
		}
		e, err := Load(encode(t, x))
		if err != nil {
			t.Fatalf("executable %d: Load: %v", i, err)
		}
		e.Close()
	}
}

// dynEntry returns the file offset of obj's dynamic entry with tag.
func dynEntry(t *testing.T, obj []byte, tag elf.DynTag) int {
	t.Helper()
	f, err := elf.NewFile(bytes.NewReader(obj))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_DYNAMIC {
			for off := int(p.Off); off+16 <= int(p.Off+p.Filesz); off += 16 {
				if elf.DynTag(binary.LittleEndian.Uint64(obj[off:])) == tag {
					return off
				}
			}
		}
	}
	t.Fatalf("no dynamic tag %v", tag)
	return 0
}

// progHeader returns the file offset of obj's first program header of
// type typ.
func progHeader(t *testing.T, obj []byte, typ elf.ProgType) int {
	t.Helper()
	phoff := int(binary.LittleEndian.Uint64(obj[32:]))
	for i := 0; i < int(binary.LittleEndian.Uint16(obj[56:])); i++ {
		if elf.ProgType(binary.LittleEndian.Uint32(obj[phoff+56*i:])) == typ {
			return phoff + 56*i
		}
	}
	t.Fatalf("no program header %v", typ)
	return 0
}

// importingObject returns a compiled executable whose object imports a
// libm function and that function's dynamic symbol.
func importingObject(t *testing.T) (*schema.Executable, elf.Symbol) {
	var best *schema.Executable
	var bestSym elf.Symbol
	for _, x := range compiledExecutables(t) {
		f, err := elf.NewFile(bytes.NewReader(x.Object))
		if err != nil {
			t.Fatal(err)
		}
		syms, _ := f.DynamicSymbols()
		for _, s := range syms {
			if s.Section == elf.SHN_UNDEF && len(s.Name) >= 3 && (best == nil || len(s.Name) > len(bestSym.Name)) {
				best, bestSym = x, s
			}
		}
	}
	if best == nil {
		t.Skip("no sample imports a libm function")
	}
	return best, bestSym
}

func TestValidateRefusesPatchedObjects(t *testing.T) {
	x, imp := importingObject(t)
	le := binary.LittleEndian
	for _, tc := range []struct {
		name  string
		patch func(b []byte)
		want  string
	}{
		{"truncated", nil, "program headers"},
		{"big endian", func(b []byte) { b[elf.EI_DATA] = byte(elf.ELFDATA2MSB) }, "little-endian"},
		{"executable file", func(b []byte) { le.PutUint16(b[16:], uint16(elf.ET_EXEC)) }, "not a shared object"},
		{"other machine", func(b []byte) { le.PutUint16(b[18:], uint16(elf.EM_RISCV)) }, "machine"},
		{"interpreter", func(b []byte) { le.PutUint32(b[progHeader(t, b, elf.PT_GNU_STACK):], uint32(elf.PT_INTERP)) }, "PT_INTERP"},
		{"TLS", func(b []byte) { le.PutUint32(b[progHeader(t, b, elf.PT_GNU_STACK):], uint32(elf.PT_TLS)) }, "PT_TLS"},
		{"executable stack", func(b []byte) { le.PutUint32(b[progHeader(t, b, elf.PT_GNU_STACK)+4:], 7) }, "executable stack"},
		{"no stack header", func(b []byte) { le.PutUint32(b[progHeader(t, b, elf.PT_GNU_STACK):], uint32(elf.PT_NULL)) }, "PT_NULL"},
		{"writable code", func(b []byte) { le.PutUint32(b[execLoad(t, b)+4:], 7) }, "writable and executable"},
		{"segment past the end", func(b []byte) { le.PutUint64(b[execLoad(t, b)+32:], uint64(len(b))) }, "out of bounds"},
		{"needed library", func(b []byte) { le.PutUint64(b[dynEntry(t, b, elf.DT_HASH):], uint64(elf.DT_NEEDED)) }, "depends on another library"},
		{"constructor", func(b []byte) { le.PutUint64(b[dynEntry(t, b, elf.DT_HASH):], uint64(elf.DT_INIT)) }, "constructor"},
		{"init array", func(b []byte) { le.PutUint64(b[dynEntry(t, b, elf.DT_HASH):], uint64(elf.DT_INIT_ARRAY)) }, "constructors"},
		{"fini array", func(b []byte) { le.PutUint64(b[dynEntry(t, b, elf.DT_HASH):], uint64(elf.DT_FINI_ARRAY)) }, "destructors"},
		{"text relocations", func(b []byte) { le.PutUint64(b[dynEntry(t, b, elf.DT_HASH):], uint64(elf.DT_TEXTREL)) }, "relocates its code"},
		{"run path", func(b []byte) { le.PutUint64(b[dynEntry(t, b, elf.DT_HASH):], uint64(elf.DT_RUNPATH)) }, "search path"},
		{"soname", func(b []byte) { le.PutUint64(b[dynEntry(t, b, elf.DT_HASH):], uint64(elf.DT_SONAME)) }, "names itself"},
		{"audit", func(b []byte) { le.PutUint64(b[dynEntry(t, b, elf.DT_HASH):], uint64(elf.DT_AUDIT)) }, "audit"},
		{"lazy binding", func(b []byte) { le.PutUint64(b[dynEntry(t, b, elf.DT_FLAGS)+8:], 0) }, "BIND_NOW"},
		{"no terminator", func(b []byte) { le.PutUint64(b[dynEntry(t, b, elf.DT_NULL):], uint64(elf.DT_DEBUG)) }, "DT_DEBUG"},
		{"gnu hash without buckets", func(b []byte) {
			if hasSection(b, ".gnu.hash") {
				le.PutUint32(b[int(dynValue(t, b, elf.DT_GNU_HASH)):], 0)
			} else { // gree's linker writes DT_HASH only
				le.PutUint32(b[int(dynValue(t, b, elf.DT_HASH)):], 0)
			}
		}, "buckets"},
		{"symbol table outside", func(b []byte) { le.PutUint64(b[dynEntry(t, b, elf.DT_SYMTAB)+8:], 1<<29) }, "symbol table"},
		{"import", func(b []byte) { renameString(t, b, imp.Name, forbiddenName(len(imp.Name))) }, `imports "` + forbiddenName(len(imp.Name))},
		{"ifunc", func(b []byte) { setSymInfo(t, b, imp.Name, byte(elf.STB_GLOBAL)<<4|byte(elf.STT_GNU_IFUNC)) }, "IFUNC"},
		{"hash chain loop", func(b []byte) {
			off, _ := section(t, b, ".hash")
			nb := int(le.Uint32(b[off:]))
			le.PutUint32(b[off+8:], 1)        // bucket 0 starts at symbol 1
			le.PutUint32(b[off+8+4*nb+4:], 1) // whose chain goes back to it
		}, "loops"},
		{"gnu hash chain without end", func(b []byte) {
			if !hasSection(b, ".gnu.hash") {
				le.PutUint32(b[int(dynValue(t, b, elf.DT_HASH))+4:], 0) // DT_HASH without chains
				return
			}
			off, n := section(t, b, ".gnu.hash")
			le.PutUint32(b[off+n-4:], le.Uint32(b[off+n-4:])&^1)
		}, "DT_"},
		{"relocation into code", func(b []byte) {
			off, _ := section(t, b, relocSection(b))
			le.PutUint64(b[off:], dynValue(t, b, elf.DT_HASH))
		}, "outside the writable data"},
		{"irelative", func(b []byte) { setRelocType(t, b, uint32(elf.R_X86_64_IRELATIVE)) }, "relocation type"},
	} {
		obj := bytes.Clone(x.Object)
		if tc.patch == nil {
			obj = obj[:100]
		} else {
			tc.patch(obj)
		}
		err := validateELF(obj, hostMachine(), 4096, nil)
		t.Logf("%s: %v", tc.name, err)
		if status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), tc.want) ||
			!strings.HasPrefix(err.Error(), "INVALID_ARGUMENT; llvm-cpu executable: its shared object") {
			t.Errorf("%s: error %v, want INVALID_ARGUMENT containing %q", tc.name, err, tc.want)
		}
	}
	missing := withObject(x, x.Object)
	missing.Entries = []schema.Entry{{Name: "k", Symbol: "gree_no_such_entry"}}
	if err := ValidateObject(missing); err == nil || !strings.Contains(err.Error(), "gree_no_such_entry") {
		t.Errorf("missing entry symbol: %v", err)
	}
}

func hostMachine() elf.Machine {
	if hostArch() == "aarch64" {
		return elf.EM_AARCH64
	}
	return elf.EM_X86_64
}

// execLoad returns the offset of the executable PT_LOAD header.
func execLoad(t *testing.T, b []byte) int {
	phoff := int(binary.LittleEndian.Uint64(b[32:]))
	for i := 0; i < int(binary.LittleEndian.Uint16(b[56:])); i++ {
		h := phoff + 56*i
		if elf.ProgType(binary.LittleEndian.Uint32(b[h:])) == elf.PT_LOAD && binary.LittleEndian.Uint32(b[h+4:])&1 != 0 {
			return h
		}
	}
	t.Fatal("no executable PT_LOAD")
	return 0
}

// dynValue returns the file offset of the address dynamic tag holds (the
// objects' first segment maps file offsets to equal addresses).
func dynValue(t *testing.T, b []byte, tag elf.DynTag) uint64 {
	return binary.LittleEndian.Uint64(b[dynEntry(t, b, tag)+8:])
}

// section returns the file offset and size of obj's section name.
func section(t *testing.T, b []byte, name string) (int, int) {
	t.Helper()
	f, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	s := f.Section(name)
	if s == nil {
		t.Fatalf("no section %s", name)
	}
	return int(s.Offset), int(s.Size)
}

// hasSection reports whether b has a section called name.
func hasSection(b []byte, name string) bool {
	f, err := elf.NewFile(bytes.NewReader(b))
	return err == nil && f.Section(name) != nil
}

// relocSection names b's relocation section with an import's relocation:
// .rela.plt (ld.lld) or .rela.dyn (gree's linker).
func relocSection(b []byte) string {
	if hasSection(b, ".rela.plt") {
		return ".rela.plt"
	}
	return ".rela.dyn"
}

// renameString overwrites the dynamic string old with s (no longer).
func renameString(t *testing.T, b []byte, old, s string) {
	off, n := section(t, b, ".dynstr")
	i := bytes.Index(b[off:off+n], []byte("\x00"+old+"\x00"))
	if i < 0 || len(s) > len(old) {
		t.Fatalf("cannot rename %q to %q", old, s)
	}
	copy(b[off+i+1:], s+strings.Repeat("\x00", len(old)-len(s)))
}

// setSymInfo sets the st_info of the dynamic symbol name.
func setSymInfo(t *testing.T, b []byte, name string, info byte) {
	f, _ := elf.NewFile(bytes.NewReader(b))
	syms, _ := f.DynamicSymbols()
	off, _ := section(t, b, ".dynsym")
	for i, s := range syms {
		if s.Name == name {
			b[off+24*(i+1)+4] = info
			return
		}
	}
	t.Fatalf("no dynamic symbol %s", name)
}

// setRelocType sets the type of the first PLT relocation.
func setRelocType(t *testing.T, b []byte, typ uint32) {
	off, _ := section(t, b, relocSection(b))
	binary.LittleEndian.PutUint32(b[off+8:], typ)
}

// forbiddenName returns a libc function name, not an allowed import, of
// at most n bytes.
func forbiddenName(n int) string {
	for _, s := range []string{"system", "popen", "fork", "dup"} {
		if len(s) <= n {
			return s
		}
	}
	return ""
}

// TestValidateCrossObjects validates objects built for the other
// architecture (x86_64 and aarch64 objects must both pass).
func TestValidateCrossObjects(t *testing.T) {
	compiledExecutables(t) // skips without LLVM
	other := "aarch64-unknown-linux-gnu"
	if hostArch() == "aarch64" {
		other = "x86_64-unknown-linux-gnu"
	}
	for _, p := range samplePrograms[:2] {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out, err := compiler.Compile(src, compiler.Options{Filename: p, Backends: []string{"llvm-cpu"}, LLVMCPU: compiler.LLVMCPUOptions{TargetTriple: other}})
		if err != nil {
			t.Skipf("LLVM cannot build for %s: %v", other, err)
		}
		m, err := module.Decode(out)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range m.Executables {
			x, err := schema.Decode(e.Data)
			if err != nil {
				t.Fatal(err)
			}
			if err := ValidateObject(x); err != nil {
				t.Errorf("%s for %s: %v", p, other, err)
			}
		}
	}
}
