package compiler

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/schemas/irpa"
	"github.com/gree-ml/gree/go/schemas/module"
)

const exportSrc = `
util.global private @big = dense<[[1.5, 2.5, 3.5, 4.5], [5.5, 6.5, 7.5, 8.5]]> : tensor<2x4xf32>
util.global private @ones = dense<1.0> : tensor<64xf32>
util.global private @small = dense<[7, 9]> : tensor<2xi32>
util.global private @p = #flow.parameter.named<"s"::"already"> : tensor<3xi16>
func.func @f() -> (tensor<2x4xf32>, tensor<64xf32>, tensor<2xi32>, tensor<3xi16>) {
  %a = util.global.load @big : tensor<2x4xf32>
  %b = util.global.load @ones : tensor<64xf32>
  %c = util.global.load @small : tensor<2xi32>
  %d = util.global.load @p : tensor<3xi16>
  return %a, %b, %c, %d : tensor<2x4xf32>, tensor<64xf32>, tensor<2xi32>, tensor<3xi16>
}`

// irpaEntries reads an archive's entries by hand (name → data bytes, or
// the splat pattern and length).
func irpaEntries(t *testing.T, b []byte) map[string][]byte {
	t.Helper()
	le := binary.LittleEndian
	if string(b[:4]) != irpa.Magic || le.Uint64(b[8:]) != irpa.HeaderSize {
		t.Fatalf("not a v0 archive: % x", b[:16])
	}
	n, tab, meta, store := le.Uint64(b[32:]), le.Uint64(b[40:]), le.Uint64(b[56:]), le.Uint64(b[72:])
	out := map[string][]byte{}
	pos := tab
	for i := uint64(0); i < n; i++ {
		e := b[pos:]
		size, typ := le.Uint64(e), le.Uint32(e[8:])
		name := string(b[meta+le.Uint64(e[20:]) : meta+le.Uint64(e[20:])+le.Uint64(e[28:])])
		switch typ {
		case irpa.EntryTypeSplat:
			out[name] = append([]byte("splat:"), e[68:68+e[84]]...)
			out[name+".length"] = binary.LittleEndian.AppendUint64(nil, le.Uint64(e[60:]))
		case irpa.EntryTypeData:
			off, l := store+le.Uint64(e[60:]), le.Uint64(e[68:])
			if off%irpa.DefaultDataAlignment != 0 {
				t.Errorf("%s at unaligned offset %d", name, off)
			}
			out[name] = b[off : off+l]
		}
		pos += irpa.AlignUp(size, irpa.EntryAlignment)
	}
	return out
}

func TestParameterExportAndSplat(t *testing.T) {
	dir := t.TempDir()
	exp, spl := filepath.Join(dir, "exp.irpa"), filepath.Join(dir, "splat.irpa")
	vmfb, err := Compile([]byte(exportSrc), Options{Backends: []string{"vmvx"}, Parameters: ParameterOptions{
		Export: "model=" + exp, ExportMinimumSize: 16, Splat: spl}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := module.Decode(vmfb)
	if err != nil {
		t.Fatal(err)
	}
	refs := map[string]bool{}
	for _, c := range m.Constants {
		if c.Parameter != nil {
			refs[c.Parameter.String()] = true
		}
	}
	for _, want := range []string{"model::big", "model::ones", "s::already"} {
		if !refs[want] {
			t.Errorf("no parameter %s in the module (have %v)", want, refs)
		}
	}
	if refs["model::small"] {
		t.Error("an 8-byte global was exported below the 16-byte minimum")
	}
	data, err := os.ReadFile(exp)
	if err != nil {
		t.Fatal(err)
	}
	es := irpaEntries(t, data)
	var big []byte
	for _, v := range []float32{1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5} {
		big = binary.LittleEndian.AppendUint32(big, math.Float32bits(v))
	}
	if string(es["big"]) != string(big) {
		t.Errorf("big = % x", es["big"])
	}
	if one := binary.LittleEndian.AppendUint32([]byte("splat:"), math.Float32bits(1)); string(es["ones"]) != string(one) || binary.LittleEndian.Uint64(es["ones.length"]) != 256 {
		t.Errorf("ones = %q", es["ones"])
	}
	// The splat archive covers every parameter the module references.
	data, err = os.ReadFile(spl)
	if err != nil {
		t.Fatal(err)
	}
	es = irpaEntries(t, data)
	for key, n := range map[string]uint64{"big": 32, "ones": 256, "already": 6} {
		if !strings.HasPrefix(string(es[key]), "splat:") || binary.LittleEndian.Uint64(es[key+".length"]) != n {
			t.Errorf("splat %s = %q", key, es[key])
		}
	}
}
