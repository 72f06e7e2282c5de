package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler"
)

func run(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Main(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestListTargetBackendsHonest(t *testing.T) {
	code, out, _ := run("--iree-hal-list-target-backends")
	if code != 0 || !strings.HasPrefix(out, "Registered target backends:\n") {
		t.Fatalf("code %d out %q", code, out)
	}
	// Only the targets that compile end to end are listed (sorted):
	// llvm-cpu only where LLVM is found.
	want := "Registered target backends:\n  cuda\n  vmvx\n  vmvx-inline\n  vulkan-spirv\n"
	if compiler.TargetUnavailable("llvm-cpu") == nil {
		want = "Registered target backends:\n  cuda\n  llvm-cpu\n  vmvx\n  vmvx-inline\n  vulkan-spirv\n"
	}
	if out != want {
		t.Errorf("unexpected target list: %q, want %q", out, want)
	}
}

func TestVulkanDeviceSelectsVulkanSPIRV(t *testing.T) {
	p, err := parseArgs([]string{"--iree-hal-target-device=vulkan", "in.mlir"})
	if err != nil {
		t.Fatal(err)
	}
	bs, err := resolveBackends(p)
	if err != nil || len(bs) != 1 || bs[0] != "vulkan-spirv" {
		t.Fatalf("got %v, %v", bs, err)
	}
	code, _, stderr := run("--iree-hal-target-backends=vulkan-spirv", "--iree-vulkan-target=gfx9999", "-")
	if code == 0 || !strings.Contains(stderr, "Unknown Vulkan target 'gfx9999'") {
		t.Fatalf("code %d, stderr %q", code, stderr)
	}
}

func TestLLVMCPUUnavailableNamesWhatToInstall(t *testing.T) {
	err := compiler.TargetUnavailable("llvm-cpu")
	if err == nil {
		t.Skip("LLVM is installed here; the missing-LLVM message is tested where it is not")
	}
	code, _, stderr := run("--iree-hal-target-backends=llvm-cpu", "x.mlir")
	if code == 0 || !strings.Contains(stderr, "libllvm19") || !strings.Contains(stderr, "lld-19") {
		t.Errorf("code %d, stderr %q: want an error naming libllvm19 and lld-19", code, stderr)
	}
}

func TestFlagSpellings(t *testing.T) {
	for _, args := range [][]string{
		{"-o", "x.vmfb", "in.mlir"},
		{"-o=x.vmfb", "in.mlir"},
		{"--iree-hip-target=gfx1100", "in.mlir"},
		{"--iree-hal-cuda-llvm-target-arch=sm_80", "in.mlir"},
		{"--iree-vulkan-target-triple", "rdna3-unknown-linux", "in.mlir"},
	} {
		p, err := parseArgs(args)
		if err != nil || len(p.positional) != 1 || p.positional[0] != "in.mlir" {
			t.Errorf("parseArgs(%q) = %+v, %v", args, p, err)
		}
	}
	p, _ := parseArgs([]string{"--iree-hip-target=gfx1100"})
	if p.str("iree-rocm-target", "") != "gfx1100" {
		t.Errorf("alias not mapped: %+v", p.values)
	}
}

func TestErrors(t *testing.T) {
	code, _, errs := run("--no-such-flag", "in.mlir")
	if code != 1 || !strings.Contains(errs, "Unknown command line argument '--no-such-flag'") {
		t.Errorf("unknown flag: %d %q", code, errs)
	}
	code, _, errs = run("--iree-hal-target-backends=bogus", "in.mlir")
	if code != 1 || !strings.Contains(errs, "target backend 'bogus' not registered") {
		t.Errorf("unknown backend: %d %q", code, errs)
	}
	code, _, errs = run()
	if code != 1 || !strings.Contains(errs, "Not enough positional") {
		t.Errorf("no input: %d %q", code, errs)
	}
	code, _, errs = run("-o")
	if code != 1 || !strings.Contains(errs, "requires a value") {
		t.Errorf("-o without value: %d %q", code, errs)
	}
	code, _, errs = run("no-such-file.mlir")
	if code != 1 || !strings.Contains(errs, "could not open input file 'no-such-file.mlir'") {
		t.Errorf("missing input: %d %q", code, errs)
	}
	code, _, errs = run("--iree-hal-target-device=local", "in.mlir")
	if code != 1 || !strings.Contains(errs, `device alias "local" does not provide any executable targets`) {
		t.Errorf("local without backends: %d %q", code, errs)
	}
	code, _, errs = run("--iree-hal-target-device=tpu", "in.mlir")
	if code != 1 || !strings.Contains(errs, `unregistered device alias "tpu"`) {
		t.Errorf("unknown device: %d %q", code, errs)
	}
}

func TestHelp(t *testing.T) {
	code, out, _ := run("--help")
	if code != 0 || !strings.Contains(out, "--iree-hal-target-backends=<value>") || !strings.Contains(out, "--iree-hip-target=<value>") {
		t.Errorf("help: %d %q", code, out)
	}
}

func TestLLVMCPUFlags(t *testing.T) {
	p, err := parseArgs([]string{"--iree-llvmcpu-target-cpu=host", "--iree-llvmcpu-target-cpu-features=host", "--iree-llvmcpu-target-triple=host",
		"--iree-llvmcpu-link-embedded", "--iree-llvmcpu-debug-symbols=false", "--iree-opt-data-tiling", "--iree-opt-level=O2", "in.mlir"})
	if err != nil || len(p.positional) != 1 || p.str("iree-llvmcpu-target-triple", "") != "host" {
		t.Fatalf("parseArgs: %+v, %v", p, err)
	}
	if compiler.TargetUnavailable("llvm-cpu") != nil {
		t.Skip("LLVM is not installed here")
	}
	code, out, _ := run("--iree-llvmcpu-list-targets")
	if code != 0 || !strings.Contains(out, "x86-64") || !strings.Contains(out, "aarch64") {
		t.Errorf("--iree-llvmcpu-list-targets: %d %q", code, out)
	}
	code, out, _ = run("--help")
	if code != 0 || !strings.Contains(out, "the default: this machine's CPU, ") || strings.Contains(out, "@HOSTCPU@") {
		t.Errorf("--help does not name the host CPU: %q", out)
	}
}

func TestLLVMCPUDumpsIntermediatesAndBinaries(t *testing.T) {
	if compiler.TargetUnavailable("llvm-cpu") != nil {
		t.Skip("LLVM is not installed here")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "mul.mlir")
	os.WriteFile(src, []byte("func.func @mul(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = arith.mulf %a, %b : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n"), 0o644)
	code, _, stderr := run("--iree-hal-target-backends=llvm-cpu", "--iree-hal-dump-executable-intermediates-to="+filepath.Join(dir, "im"),
		"--iree-hal-dump-executable-binaries-to="+filepath.Join(dir, "bin"), src, "-o", filepath.Join(dir, "mul.vmfb"))
	if code != 0 {
		t.Fatalf("iree-compile: %s", stderr)
	}
	// The device form of the flags builds the same target.
	code, _, stderr = run("--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu", src, "-o", filepath.Join(dir, "mul2.vmfb"))
	if code != 0 {
		t.Fatalf("iree-compile (device flags): %s", stderr)
	}
	a, _ := os.ReadFile(filepath.Join(dir, "mul.vmfb"))
	b, _ := os.ReadFile(filepath.Join(dir, "mul2.vmfb"))
	if len(a) == 0 || len(b) == 0 || !bytes.Contains(b, []byte("llvm-cpu-elf")) {
		t.Errorf("modules of %d and %d bytes; want llvm-cpu executables", len(a), len(b))
	}
	for _, f := range []string{"im/mul_llvm_cpu_*.ll", "im/mul_llvm_cpu_*.optimized.ll", "im/mul_llvm_cpu_*.o", "bin/mul_llvm_cpu_*.so"} {
		m, _ := filepath.Glob(filepath.Join(dir, f))
		if len(m) == 0 {
			t.Errorf("no %s", f)
			continue
		}
		if b, _ := os.ReadFile(m[0]); len(b) == 0 {
			t.Errorf("%s is empty", m[0])
		}
	}
}

// TestInstrumentationFlags: --mlir-timing reports each phase, the
// --mlir-print-ir-* flags print the IR around phases, on stderr, and a
// phase gree does not have is an error naming the ones it has.
func TestInstrumentationFlags(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "mul.mlir")
	os.WriteFile(src, []byte("func.func @mul(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = arith.mulf %a, %b : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n"), 0o644)
	out := filepath.Join(dir, "mul.vmfb")
	code, _, stderr := run("--iree-hal-target-backends=vmvx", "--mlir-timing", src, "-o", out)
	if code != 0 {
		t.Fatalf("--mlir-timing: %s", stderr)
	}
	for _, w := range []string{"... Execution time report ...", "Total Execution Time:", "----Wall Time----  ----Name----", " parse\n", " input\n", " flow\n", " codegen\n", " executable-targets\n", " vm\n", "(100.0%)  Total\n"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("timing report lacks %q:\n%s", w, stderr)
		}
	}
	code, _, stderr = run("--iree-hal-target-backends=vmvx", "--mlir-print-ir-after=flow", "--mlir-print-ir-before=codegen", src, "-o", out)
	if code != 0 || !strings.Contains(stderr, "// -----// IR Dump After flow //----- //") || !strings.Contains(stderr, "flow.dispatch.region") ||
		!strings.Contains(stderr, "// -----// IR Dump Before codegen //----- //") || strings.Contains(stderr, "IR Dump After input") {
		t.Errorf("--mlir-print-ir-after=flow --mlir-print-ir-before=codegen: code %d\n%s", code, stderr)
	}
	code, _, stderr = run("--iree-hal-target-backends=vmvx", "--mlir-print-ir-after-all", src, "-o", out)
	for _, ph := range []string{"input", "flow", "codegen", "vm"} {
		if code != 0 || !strings.Contains(stderr, "IR Dump After "+ph+" //") {
			t.Errorf("--mlir-print-ir-after-all lacks %s (code %d)", ph, code)
		}
	}
	code, _, stderr = run("--iree-hal-target-backends=vmvx", "--mlir-print-ir-after=iree-flow-form-dispatch-regions", src, "-o", out)
	if code != 1 || !strings.Contains(stderr, "gree has no phase or pass of that name; its phases are import-onnx, parse, input, flow") {
		t.Errorf("unknown phase: code %d, %s", code, stderr)
	}
}

// TestDumpExecutableFiles: --iree-hal-dump-executable-files-to writes each
// kernel's IR (sources) for any target, and the vulkan-spirv modules
// (binaries).
func TestDumpExecutableFiles(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "mul.mlir")
	os.WriteFile(src, []byte("func.func @mul(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = arith.mulf %a, %b : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n"), 0o644)
	for _, c := range []struct {
		backend string
		files   []string
	}{{"vmvx", []string{"mul_dispatch_0.kir"}}, {"vulkan-spirv", []string{"mul_dispatch_0.kir", "mul_dispatch_0.spv"}}} {
		d := filepath.Join(dir, c.backend)
		code, _, stderr := run("--iree-hal-target-backends="+c.backend, "--iree-hal-dump-executable-files-to="+d, src, "-o", filepath.Join(dir, "m.vmfb"))
		if code != 0 {
			t.Fatalf("%s: %s", c.backend, stderr)
		}
		for _, f := range c.files {
			b, err := os.ReadFile(filepath.Join(d, f))
			if err != nil || len(b) == 0 {
				t.Errorf("%s: %s not written (%v)", c.backend, f, err)
			}
			if strings.HasSuffix(f, ".kir") && !bytes.HasPrefix(b, []byte("kernel @mul_dispatch_0(")) {
				t.Errorf("%s: %s is not kernel IR: %.60q", c.backend, f, b)
			}
		}
	}
}

func TestCUDADeviceSelectsCUDA(t *testing.T) {
	p, err := parseArgs([]string{"--iree-hal-target-device=cuda", "in.mlir"})
	if err != nil {
		t.Fatal(err)
	}
	bs, err := resolveBackends(p)
	if err != nil || len(bs) != 1 || bs[0] != "cuda" {
		t.Fatalf("got %v, %v", bs, err)
	}
	code, _, stderr := run("--iree-hal-target-backends=cuda", "--iree-cuda-target=gfx90a", "-")
	if code == 0 || !strings.Contains(stderr, "Unknown CUDA target 'gfx90a'") {
		t.Fatalf("code %d, stderr %q", code, stderr)
	}
}

// TestOutputFileStreamed: a module compiled to -o FILE is written as it is
// serialized and equals what stdout receives; a failing compile leaves no
// file behind and an existing one untouched.
func TestOutputFileStreamed(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "add.mlir")
	os.WriteFile(src, []byte("func.func @add(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>\n  %0 = arith.addf %a, %c : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n"), 0o644)
	out := filepath.Join(dir, "add.vmfb")
	code, _, stderr := run("--iree-hal-target-backends=vmvx", src, "-o", out)
	if code != 0 {
		t.Fatalf("iree-compile: %s", stderr)
	}
	code, stdout, stderr := run("--iree-hal-target-backends=vmvx", src)
	got, _ := os.ReadFile(out)
	if code != 0 || len(got) == 0 || string(got) != stdout {
		t.Fatalf("file (%d bytes) and stdout (%d bytes) differ: %s", len(got), len(stdout), stderr)
	}
	bad := filepath.Join(dir, "bad.mlir")
	os.WriteFile(bad, []byte("func.func @f() {\n  %0 = bogus.op : i32\n  return\n}\n"), 0o644)
	missing := filepath.Join(dir, "never.vmfb")
	if code, _, _ := run("--iree-hal-target-backends=vmvx", bad, "-o", missing); code == 0 {
		t.Fatal("a bad input compiled")
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("a failed compile left %s behind (%v)", missing, err)
	}
	if code, _, _ := run("--iree-hal-target-backends=vmvx", bad, "-o", out); code == 0 {
		t.Fatal("a bad input compiled")
	}
	if again, _ := os.ReadFile(out); string(again) != string(got) {
		t.Error("a failed compile changed the existing output file")
	}
}
