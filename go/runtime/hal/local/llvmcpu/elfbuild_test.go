package llvmcpu

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	schema "github.com/gree-ml/gree/go/schemas/llvmcpu"
	"github.com/gree-ml/gree/go/status"
)

// linkIR compiles LLVM IR with llc and links it into a shared object
// with ld.lld as the llvm-cpu target does, plus extra linker arguments;
// it skips the test without LLVM 19's llc and lld.
func linkIR(t *testing.T, ir string, extra ...string) []byte {
	t.Helper()
	find := func(names ...string) string {
		for _, n := range names {
			if p, err := exec.LookPath(n); err == nil {
				return p
			}
		}
		t.Skipf("none of %v is installed", names)
		return ""
	}
	llc := find("llc-19", "/usr/lib/llvm-19/bin/llc")
	lld := find("ld.lld-19", "/usr/lib/llvm-19/bin/ld.lld", "ld.lld")
	dir := t.TempDir()
	src, obj, so := filepath.Join(dir, "k.ll"), filepath.Join(dir, "k.o"), filepath.Join(dir, "k.so")
	if err := os.WriteFile(src, []byte(ir), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(llc, "-filetype=obj", "-relocation-model=pic", "-mtriple="+hostArch()+"-unknown-linux-gnu", "-o", obj, src).CombinedOutput(); err != nil {
		t.Fatalf("llc: %v\n%s", err, out)
	}
	args := append([]string{"-shared", "--build-id=none", "-z", "noexecstack", "-z", "now", "--hash-style=both", "-o", so, obj}, extra...)
	if out, err := exec.Command(lld, args...).CombinedOutput(); err != nil {
		t.Fatalf("ld.lld: %v\n%s", err, out)
	}
	b, err := os.ReadFile(so)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const entryIR = "define i64 @gree_entry_0(ptr %d, i64 %f, i64 %n) {\n  ret i64 0\n}\n"

// TestLoadRefusesHostileObjects builds shared objects that would run
// code, or reach the C library, when loaded: Load refuses each before
// mapping it, so a constructor never runs.
func TestLoadRefusesHostileObjects(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "constructor-ran")
	systemCall := "declare i32 @system(ptr)\n@cmd = private constant [" + strconv.Itoa(len("touch ")+len(marker)+1) + " x i8] c\"touch " + marker + "\\00\"\n"
	libc := ""
	for _, p := range []string{"/lib/" + hostArch() + "-linux-gnu/libc.so.6", "/lib64/libc.so.6", "/usr/lib64/libc.so.6"} {
		if _, err := os.Stat(p); err == nil {
			libc = p
			break
		}
	}
	for _, tc := range []struct {
		name, ir string
		extra    []string
		want     string
	}{
		{"benign", entryIR, nil, ""},
		{"constructor", systemCall + entryIR + `define internal void @ctor() {
  %r = call i32 @system(ptr @cmd)
  ret void
}
@llvm.global_ctors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 65535, ptr @ctor, ptr null }]
`, nil, "has constructors (DT_INIT_ARRAY)"},
		{"system", systemCall + `define i64 @gree_entry_0(ptr %d, i64 %f, i64 %n) {
  %r = call i32 @system(ptr @cmd)
  ret i64 0
}
`, nil, `imports "system"`},
		{"ifunc", `define internal ptr @resolve() {
  ret ptr @impl
}
define internal i64 @impl(ptr %d, i64 %f, i64 %n) {
  ret i64 0
}
@gree_entry_0 = ifunc i64 (ptr, i64, i64), ptr @resolve
`, nil, "IFUNC"},
		{"tls", `@v = thread_local global i64 0
define i64 @gree_entry_0(ptr %d, i64 %f, i64 %n) {
  %x = load i64, ptr @v
  ret i64 %x
}
`, nil, "PT_TLS"},
		{"executable stack", entryIR, []string{"-z", "execstack"}, "executable stack"},
		{"needs libc", entryIR, []string{libc}, "depends on another library (DT_NEEDED)"},
		{"soname", entryIR, []string{"-soname", "libcuda.so.1"}, "names itself"},
	} {
		if tc.name == "needs libc" && libc == "" {
			continue
		}
		x := &schema.Executable{Triple: hostArch() + "-unknown-linux-gnu", CPU: "generic",
			Entries: []schema.Entry{{Name: "k", Symbol: "gree_entry_0"}}, Object: linkIR(t, tc.ir, tc.extra...)}
		e, err := Load(encode(t, x))
		if tc.want == "" {
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			e.Close()
			continue
		}
		if status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Load error %v, want INVALID_ARGUMENT containing %q", tc.name, err, tc.want)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("a constructor ran")
	}
}
