package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIREEOptions: IREE's tuning options are accepted with one note each,
// those whose effect gree lacks are errors saying so, and an unknown name
// suggests the nearest option.
func TestIREEOptions(t *testing.T) {
	src := filepath.Join(t.TempDir(), "mul.mlir")
	os.WriteFile(src, []byte("func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = arith.mulf %a, %a : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n"), 0o644)
	out := filepath.Join(t.TempDir(), "m.vmfb")
	base := []string{"--iree-hal-target-backends=vmvx", src, "-o", out}
	cases := []struct {
		flags  []string
		code   int
		stderr string
	}{
		{[]string{"--iree-opt-const-expr-hoisting", "--iree-stream-partitioning-favor", "min-peak-memory", "--iree-opt-const-expr-hoisting=false"}, 0,
			"iree-compile: note: --iree-opt-const-expr-hoisting tunes IREE's compiler internals; gree's compiler has no such setting and ignores it\n" +
				"iree-compile: note: --iree-stream-partitioning-favor tunes IREE's compiler internals; gree's compiler has no such setting and ignores it\n"},
		{[]string{"--output-format=vm-bytecode", "--compile-mode=std"}, 0, ""},
		{[]string{"--output-format=vm-c"}, 1, "gree writes VM bytecode modules only"},
		{[]string{"--iree-parameter-import=p.irpa"}, 1, "IREE option gree does not support"},
		{[]string{"--iree-hal-target-backend=llvm-cpu"}, 1, "Did you mean '--iree-hal-target-backends'?"},
		{[]string{"--mlir-print-ir-afterall"}, 1, "Did you mean '--mlir-print-ir-after-all'?"},
		{[]string{"--zzzzzzzzzzzzzz"}, 1, "Unknown command line argument '--zzzzzzzzzzzzzz'.  Try: 'iree-compile --help'\n"},
	}
	for _, c := range cases {
		code, _, stderr := run(append(append([]string(nil), c.flags...), base...)...)
		if code != c.code || !strings.Contains(stderr, c.stderr) || (c.stderr == "" && stderr != "") {
			t.Errorf("%v: exit %d, stderr %q; want exit %d with %q", c.flags, code, stderr, c.code, c.stderr)
		}
	}
	if code, _, stderr := run("--zzzzzzzzzzzzzz", src); strings.Contains(stderr, "Did you mean") || code != 1 {
		t.Errorf("a name near nothing suggested something: %q", stderr)
	}
}

func TestIREEFlagTable(t *testing.T) {
	if len(ireeFlags) < 300 {
		t.Fatalf("iree_flags.txt lists %d options; regenerate it with gen_iree_flags.sh", len(ireeFlags))
	}
	for name := range unsupportedIREEFlags {
		if _, ok := ireeFlags[name]; !ok {
			t.Errorf("unsupported option %q is not one of IREE's", name)
		}
	}
	for _, o := range options {
		if _, ok := ireeFlags[o.name]; !ok && !strings.HasPrefix(o.name, "gree-") && o.name != "o" && o.name != "help" && o.name != "version" {
			t.Logf("gree option --%s is not in IREE's --help", o.name)
		}
	}
	if d := editDistance("kitten", "sitting", 10); d != 3 {
		t.Errorf("editDistance = %d", d)
	}
}
