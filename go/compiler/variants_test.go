package compiler

import (
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler/flow"
	"github.com/gree-ml/gree/go/compiler/input"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/parser"
	"github.com/gree-ml/gree/go/compiler/vm"
	"github.com/gree-ml/gree/go/schemas/module"
)

// A matrix product then an element-wise op: the CPU targets tile the
// product differently (vmvx 128×512 tiles, llvm-cpu shorter row tiles),
// so their grids differ while their bindings agree.
const variantsSrc = `
func.func @mm(%a: tensor<200x64xf32>, %b: tensor<64x300xf32>) -> tensor<200x300xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<200x300xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<200x300xf32>) -> tensor<200x300xf32>
  %m = linalg.matmul ins(%a, %b : tensor<200x64xf32>, tensor<64x300xf32>) outs(%f : tensor<200x300xf32>) -> tensor<200x300xf32>
  %r = math.tanh %m : tensor<200x300xf32>
  return %r : tensor<200x300xf32>
}
`

func TestSeveralTargetsMakeExecutableVariants(t *testing.T) {
	backends := []string{"vmvx-inline", "vmvx"}
	if TargetUnavailable("llvm-cpu") == nil {
		backends = []string{"llvm-cpu", "vmvx"}
	} else {
		t.Logf("llvm-cpu unavailable (%v): variants of vmvx-inline and vmvx", TargetUnavailable("llvm-cpu"))
	}
	out, err := Compile([]byte(variantsSrc), Options{Filename: "mm.mlir", Backends: backends})
	if err != nil {
		t.Fatal(err)
	}
	m, err := module.Decode(out)
	if err != nil {
		t.Fatal(err)
	}
	gs := m.Groups()
	if len(m.Executables) != 2 || len(gs) != 1 || gs[0].Size != 2 {
		t.Fatalf("want one group of 2 variants, got %d executables, groups %v", len(m.Executables), gs)
	}
	for i, e := range m.Executables {
		if e.Variant != uint32(i) {
			t.Errorf("executable %d is variant %d", i, e.Variant)
		}
	}
	dis := module.Disassemble(m)
	if !strings.Contains(dis, "grid.v0(") || !strings.Contains(dis, "grid.v1(") {
		t.Errorf("dispatches lack per-variant workgroup counts:\n%s", dis)
	}
	for _, a := range m.Attrs {
		if a.Key == "target" && a.Value != strings.Join(backends, ",") {
			t.Errorf("target attribute %q, want %q", a.Value, strings.Join(backends, ","))
		}
	}
	// The same program for one target: format 1, no variants.
	one, err := Compile([]byte(variantsSrc), Options{Filename: "mm.mlir", Backends: backends[1:]})
	if err != nil {
		t.Fatal(err)
	}
	if v := one[8]; v != module.Version {
		t.Errorf("a single-target module has format version %d, want %d", v, module.Version)
	}
	if v := out[8]; v != module.VersionVariants {
		t.Errorf("a module with variants has format version %d, want %d", v, module.VersionVariants)
	}
}

func TestVariantsOfDifferentKernelInterfacesAreAnError(t *testing.T) {
	m, err := parser.Parse("mm.mlir", []byte(variantsSrc))
	if err != nil {
		t.Fatal(err)
	}
	if err := input.Run(m); err != nil {
		t.Fatal(err)
	}
	if err := flow.RunWith(m, flow.Options{}); err != nil {
		t.Fatal(err)
	}
	be, err := selectBackends([]string{"vmvx"})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, r := range dispatchRegions(m) {
		d, err := lowerRegion(be[0], r, dispatchName(r))
		if err != nil {
			t.Fatal(err)
		}
		ref := vm.DispatchRef{Dispatch: d}
		if _, err := lowerVariant(be[0], &ref, be[0], r, dispatchName(r)); err != nil {
			t.Fatalf("the same target's kernel: %v", err)
		}
		if len(d.Bindings) < 2 {
			continue
		}
		// A kernel that takes its tensors in another order cannot share
		// the dispatch instruction.
		swapped := *d
		swapped.Bindings = append([]*ir.Value{d.Bindings[1], d.Bindings[0]}, d.Bindings[2:]...)
		ref = vm.DispatchRef{Dispatch: &swapped}
		_, err = lowerVariant(be[0], &ref, be[0], r, dispatchName(r))
		if err == nil || !strings.Contains(err.Error(), "different bindings or push constants") || !strings.Contains(err.Error(), "compile one module per target") {
			t.Fatalf("kernels with bindings in another order: got %v", err)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no dispatch with two bindings to check")
	}
	if _, err := Compile([]byte(variantsSrc), Options{Filename: "mm.mlir", Backends: []string{"vmvx", "nope"}}); err == nil || !strings.Contains(err.Error(), "target backend 'nope' not registered") {
		t.Fatalf("an unknown backend: got %v", err)
	}
}
