package multitarget

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler"
	"github.com/gree-ml/gree/go/runtime"
	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/hal/local"
	"github.com/gree-ml/gree/go/runtime/tooling"
	"github.com/gree-ml/gree/go/runtime/tooling/vio"
	"github.com/gree-ml/gree/go/schemas/module"
	"github.com/gree-ml/gree/go/status"
)

// program has a matrix product (the CPU targets tile it differently, so
// each variant has its own workgroup counts) and a row reduction over a
// dynamic number of rows (workgroup counts computed on the host from a
// push constant).
const program = `
func.func @mm(%a: tensor<200x64xf32>, %b: tensor<64x300xf32>) -> tensor<200x300xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<200x300xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<200x300xf32>) -> tensor<200x300xf32>
  %m = linalg.matmul ins(%a, %b : tensor<200x64xf32>, tensor<64x300xf32>) outs(%f : tensor<200x300xf32>) -> tensor<200x300xf32>
  %r = math.tanh %m : tensor<200x300xf32>
  return %r : tensor<200x300xf32>
}

func.func @rowsum(%x: tensor<?x37xf32>, %y: tensor<?x37xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x37xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty(%n) : tensor<?xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x, %y : tensor<?x37xf32>, tensor<?x37xf32>) outs(%f : tensor<?xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
`

// needLLVM skips the test when llvm-cpu cannot compile here.
func needLLVM(t *testing.T) {
	t.Helper()
	if err := compiler.TargetUnavailable("llvm-cpu"); err != nil {
		t.Skipf("llvm-cpu is not available here, so no llvm-cpu,vmvx module can be built: %v", err)
	}
}

func compile(t *testing.T, src string, backends ...string) []byte {
	t.Helper()
	out, err := compiler.Compile([]byte(src), compiler.Options{Filename: "program.mlir", Backends: backends})
	if err != nil {
		t.Fatalf("compiling for %v: %v", backends, err)
	}
	return out
}

// tensorSpec writes a tensor input in iree-run-module's syntax with
// values of both signs that are not round numbers.
func tensorSpec(shape string, n, seed int) string {
	var b strings.Builder
	b.WriteString(shape + "=")
	for i := range n {
		fmt.Fprintf(&b, "%.6g ", math.Sin(float64(i*7+seed))*1.7+0.01*float64(i%13))
	}
	return b.String()
}

var calls = []struct {
	fn     string
	inputs []string
}{
	{"mm", []string{tensorSpec("200x64xf32", 200*64, 1), tensorSpec("64x300xf32", 64*300, 2)}},
	{"rowsum", []string{tensorSpec("1000x37xf32", 1000*37, 3), tensorSpec("1000x37xf32", 1000*37, 4)}},
	{"rowsum", []string{tensorSpec("3x37xf32", 3*37, 5), tensorSpec("3x37xf32", 3*37, 6)}},
}

// run loads data on a new context of dev, returns the executables the
// device prepared (module.Executables indices) and every call's results
// as .npy bytes.
func run(t *testing.T, dev hal.Device, data []byte) (selected []int, results [][]byte, err error) {
	t.Helper()
	s := runtime.NewSessionOn(dev)
	defer s.Close()
	m, err := s.LoadModule(data)
	if err != nil {
		return nil, nil, err
	}
	for _, c := range calls {
		f, _ := m.Lookup(c.fn)
		args, err := vio.ParseInputsFor(c.inputs, f.CConv()[1:strings.IndexByte(f.CConv(), '_')], f.ArgTypes)
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.CallSync(m.Name(), c.fn, args)
		if err != nil {
			t.Fatalf("%s: %v", c.fn, err)
		}
		if res, err = tooling.TransferToHost(dev, res); err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			var buf bytes.Buffer
			if err := vio.WriteNPY(&buf, r.Ref.(*hal.BufferView)); err != nil {
				t.Fatal(err)
			}
			results = append(results, buf.Bytes())
		}
	}
	return s.Context.SelectedVariants(m.Name()), results, nil
}

// setLoaders sets --executable_loaders for the rest of the test.
func setLoaders(t *testing.T, list string) {
	t.Helper()
	if err := local.SetExecutableLoaders(list); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { local.SetExecutableLoaders("") })
}

// TestEachVariantMatchesItsSingleTargetModule runs llvm-cpu,vmvx and
// vmvx,llvm-cpu modules with each loader selection on both local
// drivers: the variant the device prepares is the first whose loader is
// enabled, and its results are bit for bit those of the module compiled
// for that target alone (with the other variant's workgroup counts,
// llvm-cpu's smaller matrix tiles would leave results unwritten).
func TestEachVariantMatchesItsSingleTargetModule(t *testing.T) {
	needLLVM(t)
	multi := map[string][]byte{"llvm-cpu,vmvx": compile(t, program, "llvm-cpu", "vmvx"), "vmvx,llvm-cpu": compile(t, program, "vmvx", "llvm-cpu")}
	single := map[string][]byte{"llvm-cpu": compile(t, program, "llvm-cpu"), "vmvx": compile(t, program, "vmvx")}
	for _, driver := range []string{"local-sync", "local-task"} {
		dev, err := runtime.Drivers().CreateDeviceByURI(driver)
		if err != nil {
			t.Fatal(err)
		}
		defer dev.Close()
		for _, c := range []struct {
			targets, loaders, target string
			variant                  int
		}{
			{"llvm-cpu,vmvx", "", "llvm-cpu", 0},
			{"llvm-cpu,vmvx", "vmvx", "vmvx", 1},
			{"llvm-cpu,vmvx", "vmvx-module", "vmvx", 1},
			{"llvm-cpu,vmvx", "llvm-cpu", "llvm-cpu", 0},
			{"llvm-cpu,vmvx", "vmvx,llvm-cpu", "llvm-cpu", 0},
			{"vmvx,llvm-cpu", "", "vmvx", 0},
			{"vmvx,llvm-cpu", "system-library", "llvm-cpu", 1},
		} {
			t.Run(driver+"/"+c.targets+"/loaders="+c.loaders, func(t *testing.T) {
				setLoaders(t, c.loaders)
				sel, got, err := run(t, dev, multi[c.targets])
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(sel, []int{c.variant}) {
					t.Fatalf("the device prepared executables %v, want [%d] (%s)", sel, c.variant, c.target)
				}
				_, want, err := run(t, dev, single[c.target])
				if err != nil {
					t.Fatal(err)
				}
				for i := range want {
					if !bytes.Equal(got[i], want[i]) {
						t.Errorf("result %d differs from the %s-only module's", i, c.target)
					}
				}
			})
		}
	}
}

// TestNoLoadableVariantIsAnError: a module none of whose variants the
// device's enabled loaders load fails to register, naming the loaders.
func TestNoLoadableVariantIsAnError(t *testing.T) {
	needLLVM(t)
	dev, err := runtime.Drivers().CreateDeviceByURI("local-sync")
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	setLoaders(t, "vmvx")
	_, _, err = run(t, dev, compile(t, program, "llvm-cpu"))
	if status.CodeOf(err) != status.Unimplemented || !strings.Contains(err.Error(), "--executable_loaders=vmvx") {
		t.Fatalf("an llvm-cpu module with only the vmvx loader: got %v", err)
	}
	if err := local.SetExecutableLoaders("nope"); err == nil || !strings.Contains(err.Error(), "vmvx-module") {
		t.Fatalf("an unknown loader: got %v", err)
	}
}

// TestVariantsHaveTheirOwnWorkgroupCounts: the matrix product's dispatch
// passes different workgroup counts to the two variants (the targets
// tile it differently), and the module lists both executables.
func TestVariantsHaveTheirOwnWorkgroupCounts(t *testing.T) {
	needLLVM(t)
	m, err := module.Decode(compile(t, program, "llvm-cpu", "vmvx"))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Executables) != 2 || m.Executables[1].Variant != 1 {
		t.Fatalf("executables %+v", m.Executables)
	}
	differ := false
	for _, f := range m.Functions {
		for _, in := range f.Code {
			if in.Op == module.OpDispatch && !slices.Equal(in.Src[0:3], in.Src[3:6]) {
				differ = true
			}
		}
	}
	if !differ {
		t.Errorf("every dispatch passes both variants the same workgroup counts:\n%s", module.Disassemble(m))
	}
}
