package parser

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/ir"
)

// parseOne parses src as the body of a function with the given signature
// and returns the generic print of the op before the terminator.
func parseOne(t *testing.T, sig, src string) string {
	t.Helper()
	m, err := Parse("c.mlir", []byte("func.func @f("+sig+") {\n  "+src+"\n  return\n}"))
	if err != nil {
		t.Errorf("%s: %v", src, err)
		return ""
	}
	body := m.Body().Ops[0].Regions[0].Blocks[0].Ops
	return strings.TrimSpace(body[len(body)-2].String())
}

// checkForms parses each input with parseOne and compares the prints.
func checkForms(t *testing.T, sig string, cases []struct{ in, want string }) {
	t.Helper()
	for _, c := range cases {
		if got := parseOne(t, sig, c.in); got != c.want && got != "" {
			t.Errorf("%s:\n got  %s\n want %s", c.in, got, c.want)
		}
	}
}

// roundTrip checks that m prints (with locations) to text that parses back
// and prints the same.
func roundTrip(t *testing.T, m *ir.Module) {
	t.Helper()
	first := printModule(t, m, true)
	m2, err := Parse("printed.mlir", []byte(first))
	if err != nil {
		t.Fatalf("reparsing the printed module: %v\n%s", err, first)
	}
	if second := printModule(t, m2, true); second != first {
		t.Errorf("round trip is not stable:\n%s\nvs\n%s", first, second)
	}
}

// TestUtilForms checks the util and flow syntaxes.
func TestUtilForms(t *testing.T) {
	checkForms(t, "%t: tensor<f32>, %d: tensor<?x4xi8>, %n: index", []struct{ in, want string }{
		{"%0 = util.global.load @counter : tensor<f32>", `%0 = "util.global.load"() {global = @counter} : () -> tensor<f32>`},
		{"%0 = util.global.load immutable @g {x} : i32", `%0 = "util.global.load"() {global = @g, is_immutable, x} : () -> i32`},
		{"util.global.store %t, @counter : tensor<f32>", `"util.global.store"(%arg0) {global = @counter} : (tensor<f32>) -> ()`},
		{"%0 = flow.tensor.dynamic_constant dense<[[1, 2, 3, 4], [5, 6, 7, 8]]> : tensor<2x4xi32> -> tensor<?x4xi32>",
			`%0 = "flow.tensor.dynamic_constant"() {value = dense<[[1, 2, 3, 4], [5, 6, 7, 8]]> : tensor<2x4xi32>} : () -> tensor<?x4xi32>`},
		{"%0 = flow.tensor.constant dense<1.0> : tensor<2xf32>",
			`%0 = "flow.tensor.constant"() {value = dense<1.000000e+00> : tensor<2xf32>} : () -> tensor<2xf32>`},
		{"%0 = flow.tensor.constant {x} dense<1> : tensor<2x4xi8> -> tensor<?x4xi8>",
			`%0 = "flow.tensor.constant"() {value = dense<1> : tensor<2x4xi8>, x} : () -> tensor<?x4xi8>`},
		{"%0 = flow.tensor.tie_shape %d : tensor<?x4xi8>{%n}", `%0 = "flow.tensor.tie_shape"(%arg1, %arg2) : (tensor<?x4xi8>, index) -> tensor<?x4xi8>`},
		{"%0 = flow.tensor.bitcast %d : tensor<?x4xi8>{%n} -> tensor<?x8xi4>{%n}",
			`%0 = "flow.tensor.bitcast"(%arg1, %arg2, %arg2) {operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<?x4xi8>, index, index) -> tensor<?x8xi4>`},
	})
}

// TestUtilModuleOps checks util.global and util.func at module level.
func TestUtilModuleOps(t *testing.T) {
	src := `util.global private mutable @counter = dense<2.0> : tensor<f32>
util.global private @g : tensor<4xf32>
util.global @h {inlining_policy = #util.inline.never} : i32 = 3 : i32
util.func public @f(%a: tensor<4xf32>, %b: index {iree.abi.output = 0 : index}) -> (%a, %a as tensor<2x2xf32>, i32) {
  %c = util.global.load @h : i32
  util.return %a, %a, %c : tensor<4xf32>, tensor<4xf32>, i32
}
util.func private @decl(i32) -> i32
`
	m, err := Parse("u.mlir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`"util.global"() {initial_value = dense<2.000000e+00> : tensor<f32>, is_mutable, sym_name = "counter", sym_visibility = "private", type = tensor<f32>} : () -> ()`,
		`"util.global"() {sym_name = "g", sym_visibility = "private", type = tensor<4xf32>} : () -> ()`,
		`"util.global"() {initial_value = 3 : i32, inlining_policy = #util.inline.never, sym_name = "h", type = i32} : () -> ()`,
		`{arg_attrs = [{}, {iree.abi.output = 0 : index}], function_type = (tensor<4xf32>, index) -> (tensor<4xf32>, tensor<2x2xf32>, i32), sym_name = "f", sym_visibility = "public", tied_operands = [0 : index, 0 : index, -1 : index]} : () -> ()`,
		`"util.func"() ({
}) {function_type = (i32) -> i32, sym_name = "decl", sym_visibility = "private", tied_operands = [-1 : index]} : () -> ()`,
	}
	for i, w := range want {
		if got := strings.TrimSpace(m.Body().Ops[i].String()); !strings.HasSuffix(got, w) {
			t.Errorf("op %d:\n got  %s\n want …%s", i, got, w)
		}
	}
	for _, bad := range []struct{ src, msg string }{
		{"util.global @g = #foo.bar", "u.mlir:1:18: error: 'util.global' needs ': type' before an untyped initial value"},
		{"util.func @f(%a: i32) -> (%b) {\n}", "u.mlir:1:27: error: tied operand not found for result reference %b"},
		{"util.func @f(i32) {\n}", "needs named arguments"},
	} {
		if _, err := Parse("u.mlir", []byte(bad.src)); err == nil || !strings.Contains(err.Error(), bad.msg) {
			t.Errorf("%s: got %v, want %q", bad.src, err, bad.msg)
		}
	}
}

// TestIndexListAPI checks OpParser.ParseDynamicIndexList, ParseIntegerList
// and LocAt through a custom syntax.
func TestIndexListAPI(t *testing.T) {
	reg := Default().Clone()
	reg.Register("test.idx", func(p *OpParser, st *ir.OperationState) error {
		pos := p.CurrentPos()
		ops, static, err := p.ParseDynamicIndexList()
		if err != nil {
			return err
		}
		st.AddAttr("static", ir.I64Array(static...))
		st.AddAttr("where", ir.Str(p.LocAt(pos).String()))
		ints, err := p.ParseIntegerList()
		if err != nil {
			return err
		}
		st.AddAttr("ints", ir.I64Array(ints...))
		return p.ResolveOperands(st, ops, indexTypes(len(ops)))
	})
	src := "func.func @f(%a: index) {\n  test.idx [%a, -3, %a] [1, -2]\n  test.idx [] []\n  return\n}"
	m, err := ParseWithOptions([]byte(src), Options{Filename: "i.mlir", Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	ops := m.Body().Ops[0].Regions[0].Blocks[0].Ops
	want := `"test.idx"(%arg0, %arg0) {ints = array<i64: 1, -2>, static = array<i64: -9223372036854775808, -3, -9223372036854775808>, where = "loc(\"i.mlir\":2:12)"} : (index, index) -> ()`
	if got := strings.TrimSpace(ops[0].String()); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got := strings.TrimSpace(ops[1].String()); !strings.HasPrefix(got, `"test.idx"() {ints = array<i64>, static = array<i64>`) {
		t.Errorf("empty lists: %s", got)
	}
	roundTrip(t, m)
	for _, bad := range []string{"test.idx [1 2] []", "test.idx [%a, x] []", "test.idx [] [1, %a]", "test.idx (1) []"} {
		_, err := ParseWithOptions([]byte("func.func @f(%a: index) {\n"+bad+"\nreturn\n}"), Options{Filename: "i.mlir", Registry: reg})
		if err == nil || !strings.HasPrefix(err.Error(), "i.mlir:2:") {
			t.Errorf("%s: got %v", bad, err)
		}
	}
}

// ownDialects are the dialects whose every op this package must parse in
// the external test inputs; ops of other dialects may be unknown.
var ownDialects = map[string]bool{"builtin": true, "func": true, "linalg": true, "tensor": true, "scf": true, "check": true}

var unknownOpRE = regexp.MustCompile(`^[^:]+:\d+:\d+: error: unknown op '([a-z_0-9]+)\.[^']*'`)

// TestExternalMLIR parses every .mlir file under the directories listed
// (separated by the OS path list separator) in GREE_EXTERNAL_MLIR_DIR, for
// instance IREE's tests/e2e/{linalg,tensor_ops,regression}. A file may
// fail only on an op of a dialect this package does not cover, with a
// file:line:col diagnostic naming it; everything that parses must print
// and parse back stably.
func TestExternalMLIR(t *testing.T) {
	dirs := os.Getenv("GREE_EXTERNAL_MLIR_DIR")
	if dirs == "" {
		t.Skip("GREE_EXTERNAL_MLIR_DIR is not set (set it to directories of .mlir files, e.g. IREE's tests/e2e/linalg)")
	}
	var parsed, foreign int
	for _, dir := range filepath.SplitList(dirs) {
		files, err := filepath.Glob(filepath.Join(dir, "*.mlir"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no .mlir files in %s (%v)", dir, err)
		}
		for _, file := range files {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			ok := true
			for _, c := range SplitInputFile(src) {
				m, err := ParseChunk(file, c)
				if err == nil {
					roundTrip(t, m)
					continue
				}
				ok = false
				if sub := unknownOpRE.FindStringSubmatch(err.Error()); sub == nil || ownDialects[sub[1]] {
					t.Errorf("%v", err)
				} else {
					t.Logf("other dialect: %v", err)
				}
			}
			if ok {
				parsed++
			} else {
				foreign++
			}
		}
	}
	t.Logf("%d files parsed completely, %d stop at an op of another dialect", parsed, foreign)
}

// TestHookSyntaxMutations checks the fuzz property (no internal failure;
// whatever parses prints and parses back the same) on every one-byte
// deletion and every '}' insertion in the testdata files of the linalg,
// tensor, scf and util syntaxes.
func TestHookSyntaxMutations(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	for _, f := range []string{"linalg", "tensor", "scf", "util"} {
		b, err := os.ReadFile(filepath.Join("testdata", f+".mlir"))
		if err != nil {
			t.Fatal(err)
		}
		src := string(b)
		for i := range src {
			checkParseProperties(t, src[:i]+src[i+1:])
			checkParseProperties(t, src[:i]+"}"+src[i:])
		}
	}
}
