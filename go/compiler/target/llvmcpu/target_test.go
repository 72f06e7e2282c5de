package llvmcpu_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/target/llvmcpu"
	rt "github.com/gree-ml/gree/go/runtime/hal/local/llvmcpu"
	schema "github.com/gree-ml/gree/go/schemas/llvmcpu"
	"github.com/gree-ml/gree/go/status"
)

func TestHostMachineAndRequiredFeatures(t *testing.T) {
	m := needLLVM(t)
	if m.CPU == "" || m.Triple == "" {
		t.Fatalf("host machine %+v", m)
	}
	data, err := llvmcpu.Emit([]*kir.Kernel{elementwise("ew", kir.F32, kir.F32, 16, 256, chain)}, m)
	if err != nil {
		t.Fatal(err)
	}
	x, err := schema.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if x.CPU != m.CPU || x.Triple != m.Triple || x.Entries[0].Symbol != "gree_entry_0" {
		t.Errorf("header %+v", x)
	}
	// The host's features are recorded, and the host has them.
	if strings.Contains(m.Features, "+avx2") && !contains(x.Required, "avx2") {
		t.Errorf("host has avx2, required features %v lack it", x.Required)
	}
	// generic x86-64 needs no extension at all.
	g, err := llvmcpu.ResolveMachine(llvmcpu.Options{CPU: "generic"})
	if err != nil {
		t.Fatal(err)
	}
	data, err = llvmcpu.Emit([]*kir.Kernel{elementwise("ew", kir.F32, kir.F32, 16, 256, chain)}, g)
	if err != nil {
		t.Fatal(err)
	}
	gx, _ := schema.Decode(data)
	if len(gx.Required) != 0 && strings.HasPrefix(g.Triple, "x86_64") {
		t.Errorf("generic x86-64 requires %v", gx.Required)
	}
	// A named CPU implies its features.
	h, _ := llvmcpu.ResolveMachine(llvmcpu.Options{CPU: "haswell"})
	data, err = llvmcpu.Emit([]*kir.Kernel{elementwise("ew", kir.F32, kir.F32, 16, 256, chain)}, h)
	if err != nil {
		t.Fatal(err)
	}
	hx, _ := schema.Decode(data)
	if strings.HasPrefix(h.Triple, "x86_64") && (!contains(hx.Required, "avx2") || !contains(hx.Required, "fma")) {
		t.Errorf("haswell requires %v, want avx2 and fma among them", hx.Required)
	}
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func TestMissingCPUFeatureIsRefused(t *testing.T) {
	m := needLLVM(t)
	data, err := llvmcpu.Emit([]*kir.Kernel{elementwise("ew", kir.F32, kir.F32, 16, 256, chain)}, m)
	if err != nil {
		t.Fatal(err)
	}
	x, _ := schema.Decode(data)
	x.Required = append(x.Required, "gree-test-feature")
	data, err = schema.Encode(x)
	if err != nil {
		t.Fatal(err)
	}
	_, err = rt.Load(data)
	if status.CodeOf(err) != status.FailedPrecondition || !strings.Contains(err.Error(), "gree-test-feature") {
		t.Fatalf("Load = %v, want FAILED_PRECONDITION naming the missing feature", err)
	}
}

// aarch64 returns a machine for 64-bit Arm Linux.
func aarch64(t *testing.T) llvmcpu.Machine {
	needLLVM(t)
	m, err := llvmcpu.ResolveMachine(llvmcpu.Options{Triple: "aarch64-unknown-linux-gnu"})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestOtherArchitectureIsRefused(t *testing.T) {
	m := aarch64(t)
	if m.CPU != "generic" {
		t.Errorf("cross-compiled CPU %q, want generic", m.CPU)
	}
	data, err := llvmcpu.Emit([]*kir.Kernel{elementwise("ew", kir.F32, kir.F32, 16, 256, chain)}, m)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(m.Triple, hostArchPrefix()) {
		t.Skip("the host is aarch64")
	}
	if _, err := rt.Load(data); status.CodeOf(err) != status.FailedPrecondition || !strings.Contains(err.Error(), "aarch64") {
		t.Fatalf("Load = %v, want FAILED_PRECONDITION naming aarch64", err)
	}
}

func hostArchPrefix() string {
	out, _ := exec.Command("uname", "-m").Output()
	return strings.TrimSpace(string(out))
}

// TestAArch64Disassembly builds an element-wise kernel and a matmul for
// aarch64 and checks the shared object with llvm-objdump: an AArch64 ELF
// whose code uses NEON fused multiply-adds.
func TestAArch64Disassembly(t *testing.T) {
	m := aarch64(t)
	ks := []*kir.Kernel{elementwise("ew", kir.F32, kir.F32, 16, 256, chain), contractKernel([3]kir.Scalar{kir.F32, kir.F32, kir.F32}, 64, 64, 64, [6]int64{64, 1, 64, 1, 64, 1}, 0, 0)}
	ks[1].Name = "mm"
	x, s := disassemble(t, m, "-T", ks...)
	if x.Arch() != "aarch64" || !contains(x.Required, "neon") {
		t.Errorf("header triple %q, required %v", x.Triple, x.Required)
	}
	for _, want := range []string{"file format elf64-littleaarch64", "gree_entry_0", "gree_entry_1", "fmla\tv", "ret"} {
		if !strings.Contains(s, want) {
			t.Errorf("disassembly lacks %q", want)
		}
	}
	if strings.Contains(s, "vfmadd") {
		t.Errorf("x86 instructions in an aarch64 object")
	}
}

// disassemble emits ks for m and returns the executable and llvm-objdump's
// disassembly of its shared object (with the extra objdump flag, if any);
// it skips the test without llvm-objdump.
func disassemble(t *testing.T, m llvmcpu.Machine, flag string, ks ...*kir.Kernel) (*schema.Executable, string) {
	t.Helper()
	objdump, err := exec.LookPath("llvm-objdump-19")
	if err != nil {
		if objdump, err = exec.LookPath("llvm-objdump"); err != nil {
			t.Skip("llvm-objdump-19 not installed (apt-get install llvm-19)")
		}
	}
	data, err := llvmcpu.Emit(ks, m)
	if err != nil {
		t.Fatal(err)
	}
	x, err := schema.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	so := filepath.Join(t.TempDir(), "k.so")
	if err := os.WriteFile(so, x.Object, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-d", "--no-show-raw-insn", so}
	if flag != "" {
		args = append([]string{flag}, args...)
	}
	out, err := exec.Command(objdump, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", objdump, err, out)
	}
	return x, string(out)
}

// TestReloadDifferentExecutables loads, runs and closes two different
// executables in turn: descriptor numbers (the dynamic loader's paths) are
// reused, and each load must still run its own code.
func TestReloadDifferentExecutables(t *testing.T) {
	m := needLLVM(t)
	var datas [2][]byte
	for i, kind := range []kir.Kind{kir.Add, kir.Mul} {
		k := elementwise("op", kir.F32, kir.F32, 4, 64, func(b *kir.Builder, _ kir.Type, x, y kir.Value) kir.Value { return b.Bin(kind, x, y) })
		data, err := llvmcpu.Emit([]*kir.Kernel{k}, m)
		if err != nil {
			t.Fatal(err)
		}
		datas[i] = data
	}
	for round := 0; round < 20; round++ {
		i := round % 2
		x, err := rt.Load(datas[i])
		if err != nil {
			t.Fatal(err)
		}
		bufs := [][]byte{f32s(2, 3, 4, 5), f32s(10, 10, 10, 10), make([]byte, 16)}
		if err := x.Run(0, 0, 1, [3]int64{1, 1, 1}, []int64{4}, bufs); err != nil {
			t.Fatal(err)
		}
		want := [2][]byte{f32s(12, 13, 14, 15), f32s(20, 30, 40, 50)}[i]
		if !bytes.Equal(bufs[2], want) {
			t.Fatalf("round %d: got %v, want %v (a stale shared object ran)", round, bufs[2], want)
		}
		if round%4 < 2 {
			x.Close()
		}
	}
}
