package paramse2e

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler"
	"github.com/gree-ml/gree/go/runtime/flags"
	"github.com/gree-ml/gree/go/runtime/io/params"
	"github.com/gree-ml/gree/go/runtime/tooling"
	"github.com/gree-ml/gree/go/runtime/tooling/vio"
)

const (
	batch, in, out = 3, 64, 32
)

// program is a dense layer, x·W + b, with W and b globals initialized by
// init (a parameter reference or an inlined constant).
func program(initW, initB string) string {
	return fmt.Sprintf(`
util.global private @weight = %s : tensor<%dx%dxf32>
util.global private @bias = %s : tensor<%dxf32>
func.func @predict(%%x: tensor<%dx%dxf32>) -> tensor<%dx%dxf32> {
  %%w = util.global.load @weight : tensor<%dx%dxf32>
  %%b = util.global.load @bias : tensor<%dxf32>
  %%e = tensor.empty() : tensor<%dx%dxf32>
  %%c0 = arith.constant 0.0 : f32
  %%z = linalg.fill ins(%%c0 : f32) outs(%%e : tensor<%dx%dxf32>) -> tensor<%dx%dxf32>
  %%m = linalg.matmul ins(%%x, %%w : tensor<%dx%dxf32>, tensor<%dx%dxf32>) outs(%%z : tensor<%dx%dxf32>) -> tensor<%dx%dxf32>
  %%r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%%m, %%b : tensor<%dx%dxf32>, tensor<%dxf32>) outs(%%e : tensor<%dx%dxf32>) {
  ^bb0(%%a: f32, %%c: f32, %%o: f32):
    %%s = arith.addf %%a, %%c : f32
    linalg.yield %%s : f32
  } -> tensor<%dx%dxf32>
  return %%r : tensor<%dx%dxf32>
}
`, initW, in, out, initB, out,
		batch, in, batch, out,
		in, out, out,
		batch, out, batch, out, batch, out,
		batch, in, in, out, batch, out, batch, out,
		batch, out, out, batch, out, batch, out,
		batch, out)
}

func values(n int, seed float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(math.Sin(float64(i)*0.37+seed)) * 0.75
	}
	return v
}

func le(vs []float32) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return b
}

func dense(vs []float32) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = fmt.Sprintf("%.9e", v)
	}
	return "dense<[" + strings.Join(parts, ", ") + "]>"
}

// dense2 writes a rows×cols dense literal.
func dense2(vs []float32, rows, cols int) string {
	var rs []string
	for r := 0; r < rows; r++ {
		rs = append(rs, strings.TrimSuffix(strings.TrimPrefix(dense(vs[r*cols:(r+1)*cols]), "dense<"), ">"))
	}
	return "dense<[" + strings.Join(rs, ", ") + "]>"
}

// safetensorsFile writes the format by hand (8-byte header length, JSON,
// data), independently of the params package's encoder.
func safetensorsFile(w, b []float32) []byte {
	hdr := fmt.Sprintf(`{"bias":{"dtype":"F32","shape":[%d],"data_offsets":[0,%d]},"weight":{"dtype":"F32","shape":[%d,%d],"data_offsets":[%d,%d]}}`,
		out, 4*out, in, out, 4*out, 4*out+4*in*out)
	f := binary.LittleEndian.AppendUint64(nil, uint64(len(hdr)))
	f = append(f, hdr...)
	f = append(f, le(b)...)
	return append(f, le(w)...)
}

// ggufFile writes GGUF v3 by hand: header, one string key/value, two F32
// tensor infos (dims innermost first), data 32-byte aligned.
func ggufFile(w, b []float32) []byte {
	var f []byte
	str := func(s string) {
		f = binary.LittleEndian.AppendUint64(f, uint64(len(s)))
		f = append(f, s...)
	}
	u32 := func(x uint32) { f = binary.LittleEndian.AppendUint32(f, x) }
	u64 := func(x uint64) { f = binary.LittleEndian.AppendUint64(f, x) }
	f = append(f, "GGUF"...)
	u32(3)
	u64(2) // tensors
	u64(1) // key/values
	str("general.architecture")
	u32(8) // string
	str("dense")
	str("weight")
	u32(2)
	u64(out) // innermost first
	u64(in)
	u32(0) // F32
	u64(0)
	str("bias")
	u32(1)
	u64(out)
	u32(0)
	u64(uint64(4 * in * out)) // a multiple of 32
	for len(f)%32 != 0 {
		f = append(f, 0)
	}
	f = append(f, le(w)...)
	return append(f, le(b)...)
}

func compile(t *testing.T, dir, backend, name, src string) string {
	t.Helper()
	vmfb, err := compiler.Compile([]byte(src), compiler.Options{Filename: name + ".mlir", Backends: []string{backend}})
	if err != nil {
		t.Fatalf("compile %s: %v", name, err)
	}
	p := filepath.Join(dir, name+".vmfb")
	if err := os.WriteFile(p, vmfb, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// run runs iree-run-module's code with the given --parameters values.
func run(t *testing.T, module, input string, paramFlags ...string) (string, string, int) {
	t.Helper()
	args := []string{"--parameters="}
	for _, p := range paramFlags {
		args = append(args, "--parameters="+p)
	}
	if _, err := flags.Parse(args, flags.UnknownIsError); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := tooling.RunModule(tooling.RunOptions{
		Modules: []string{module}, Function: "predict", Inputs: []string{input},
		Outputs: []string{"-"}, MaxElements: 1 << 20, Compare: vio.DefaultCompareOptions(),
	}, nil, &stdout, &stderr)
	return stdout.String(), stderr.String(), code
}

func TestParameterGlobalsEndToEnd(t *testing.T) {
	for _, backend := range []string{"vmvx", "llvm-cpu"} {
		t.Run(backend, func(t *testing.T) {
			if !slices.Contains(compiler.TargetNames(), backend) {
				t.Skipf("%s is not available here", backend)
			}
			testEndToEnd(t, backend)
		})
	}
}

func testEndToEnd(t *testing.T, backend string) {
	defer flags.Parse([]string{"--parameters="}, flags.UnknownIsError)
	dir := t.TempDir()
	w, b := values(in*out, 0.1), values(out, 2.3)
	withParams := compile(t, dir, backend, "params", program(`#flow.parameter.named<"model"::"weight">`, `#stream.parameter.named<"model"::"bias">`))
	inlined := compile(t, dir, backend, "inlined", program(dense2(w, in, out), dense(b)))

	// The module with parameters holds no weights.
	pm, _ := os.ReadFile(withParams)
	im, _ := os.ReadFile(inlined)
	weightBytes := 4 * (in*out + out)
	if bytes.Contains(pm, le(w)[:64]) || bytes.Contains(pm, le(b)[:64]) {
		t.Error("the parameter module contains weight bytes")
	}
	if len(im)-len(pm) < weightBytes {
		t.Errorf("module sizes: %d with parameters, %d inlined: the difference is under the %d weight bytes", len(pm), len(im), weightBytes)
	}
	t.Logf("module sizes: %d bytes with parameters, %d inlined (%d weight bytes)", len(pm), len(im), weightBytes)

	x := values(batch*in, 4.2)
	input := fmt.Sprintf("%dx%dxf32=%s", batch, in, strings.Trim(strings.ReplaceAll(fmt.Sprint(x), "[", ""), "]"))
	want, errOut, code := run(t, inlined, input)
	if code != 0 || !strings.Contains(want, fmt.Sprintf("%dx%dxf32=", batch, out)) {
		t.Fatalf("inlined program: exit %d: %s%s", code, want, errOut)
	}

	var irpa params.Writer
	irpa.AddData("weight", nil, le(w))
	irpa.AddData("bias", nil, le(b))
	irpaPath := filepath.Join(dir, "p.irpa")
	if err := irpa.WriteFile(irpaPath); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"p.safetensors": safetensorsFile(w, b), "p.gguf": ggufFile(w, b)}
	paths := []string{irpaPath}
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	for _, p := range paths {
		got, errOut, code := run(t, withParams, input, "model="+p)
		if code != 0 {
			t.Errorf("%s: exit %d: %s", filepath.Base(p), code, errOut)
			continue
		}
		if got != want {
			t.Errorf("%s: results differ from the inlined program:\n%s\nwant:\n%s", filepath.Base(p), got, want)
		}
		// .irpa and .gguf data is aligned: the globals use the mapped
		// file bytes, nothing is copied.
		if prov, _ := params.FlagProvider(); !strings.HasSuffix(p, ".safetensors") && (prov == nil || prov.Copied != 0) {
			t.Errorf("%s: parameters were copied, not used in place", filepath.Base(p))
		}
	}

	// A missing key names the scope, the key and the files.
	_, errOut, code = run(t, withParams, input, "other="+irpaPath)
	if code == 0 || !strings.Contains(errOut, "NOT_FOUND") || !strings.Contains(errOut, "model::weight") || !strings.Contains(errOut, "other="+irpaPath) {
		t.Errorf("missing parameter: exit %d: %s", code, errOut)
	}
	// No --parameters at all.
	_, errOut, code = run(t, withParams, input)
	if code == 0 || !strings.Contains(errOut, "no parameter files were given") {
		t.Errorf("no parameters: exit %d: %s", code, errOut)
	}
	// A size mismatch names the entry.
	var bad params.Writer
	bad.AddData("weight", nil, le(w[:in*out-1]))
	bad.AddData("bias", nil, le(b))
	badPath := filepath.Join(dir, "bad.irpa")
	bad.WriteFile(badPath)
	_, errOut, code = run(t, withParams, input, "model="+badPath)
	if code == 0 || !strings.Contains(errOut, "INVALID_ARGUMENT") || !strings.Contains(errOut, "'model::weight'") || !strings.Contains(errOut, fmt.Sprint(4*in*out)) {
		t.Errorf("size mismatch: exit %d: %s", code, errOut)
	}
}
