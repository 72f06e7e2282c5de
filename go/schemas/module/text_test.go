package module

import (
	"encoding/json"
	"strings"
	"testing"
)

func textSample() *Module {
	return &Module{
		Name: "m", Attrs: []Attr{{"target", "vmvx"}},
		Imports:   []Import{{Module: "check", Name: "expect_eq", Args: []Kind{KindRef, KindRef}, Optional: true}},
		Globals:   []Global{{Name: "state", Kind: KindRef, Mutable: true, Init: 0}},
		Constants: []Constant{{ElementType: 0x21000020, Shape: []int64{4}, Data: make([]byte, 16)}},
		Executables: []Executable{{Format: "vmvx-bytecode", Entries: []string{"d0"}, Data: make([]byte, 8)},
			{Format: "llvm-cpu-elf", Entries: []string{"d0"}, Data: make([]byte, 9), Variant: 1}},
		Functions: []Function{{Name: "f", Args: []Kind{KindI32}, Results: []Kind{KindI32}, Regs: []Kind{KindI32},
			Code: []Instr{{Op: OpReturn, Src: []int32{0}}}, Reflection: []Attr{{"iree.abi.declaration", "sync func @f(%a: i32) -> i32"}}}},
		Exports: []Export{{Name: "main", Function: 0}},
	}
}

func TestJSONHasIREEFieldNames(t *testing.T) {
	out, err := JSON(textSample())
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	for _, k := range []string{"name", "exported_functions", "imported_functions", "function_descriptors", "rodata_segments", "executables"} {
		if _, ok := v[k]; !ok {
			t.Errorf("no %q in %s", k, out)
		}
	}
	ex := v["exported_functions"].([]any)[0].(map[string]any)
	if ex["local_name"] != "main" || ex["internal_ordinal"] != 0.0 {
		t.Errorf("export %v", ex)
	}
	if !strings.Contains(string(out), `"sync func @f(%a: i32) -> i32"`) || !strings.Contains(string(out), `"flags": "OPTIONAL"`) {
		t.Errorf("reflection or import flags missing:\n%s", out)
	}
}

func TestMLIRTextStructure(t *testing.T) {
	text := MLIRText(textSample())
	for _, want := range []string{
		"vm.module public @m attributes {\"target\" = \"vmvx\"} {\n",
		"  vm.import private optional @check.expect_eq(!vm.ref<?>, !vm.ref<?>) -> ()\n",
		"  vm.global.ref private mutable @state : !vm.ref<?>\n",
		"  vm.rodata private @constant_0 {element_type = 0x21000020, shape = [4], byte_length = 16}\n",
		"  vm.rodata private @executable_1 {format = \"llvm-cpu-elf\", entry_points = [\"d0\"], variant = 1, byte_length = 9}\n",
		"  vm.func private @f(%r0: i32) -> (i32) attributes {iree.reflection = {iree.abi.declaration = \"sync func @f(%a: i32) -> i32\"}} {\n    return %r0  // 0\n  }\n",
		"  vm.export @f as(\"main\")\n}\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in:\n%s", want, text)
		}
	}
}
