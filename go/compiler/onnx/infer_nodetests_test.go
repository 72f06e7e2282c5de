package onnx

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/gree-ml/gree/go/compiler/onnx/onnxpb"
)

// nodeTestRoot finds the ONNX node tests of the onnx pip package in the
// repository's .venv (or GREE_ONNX_NODE_TESTS).
func nodeTestRoot() string {
	if d := os.Getenv("GREE_ONNX_NODE_TESTS"); d != "" {
		return d
	}
	matches, _ := filepath.Glob("../../../.venv/lib/python3*/site-packages/onnx/backend/test/data/node")
	if len(matches) > 0 {
		return matches[0]
	}
	return ""
}

// TestInferenceMatchesDeclaredOutputs: every node test declares the types of
// its graph outputs. Forgetting those declarations, gree's shape inference
// must infer the same shapes (where it infers a rank at all), with ONNX's
// propagation rules and with gree's wider ones (FoldShapes).
func TestInferenceMatchesDeclaredOutputs(t *testing.T) {
	root := nodeTestRoot()
	if root == "" {
		t.Skip("the onnx package's node tests are not installed (.venv)")
	}
	dirs, _ := filepath.Glob(filepath.Join(root, "*"))
	sort.Strings(dirs)
	checked, inferred := 0, 0
	var bad []string
	missing := map[string]int{}
	for _, fold := range []bool{false, true} {
		for _, d := range dirs {
			m, err := LoadModel(filepath.Join(d, "model.onnx"), "")
			if err != nil {
				continue
			}
			want := map[string]*vtype{}
			for _, o := range m.GetGraph().GetOutput() {
				vt, err := fromTypeProto(o.GetType())
				if err != nil || !vt.isTensor() || !vt.static() {
					continue
				}
				want[o.GetName()] = vt
				// Keep the element type, forget the shape.
				o.GetType().GetTensorType().Shape = nil
			}
			m.GetGraph().ValueInfo = nil
			imp := &importer{model: m, opts: Options{FoldShapes: fold}, opsets: map[string]int64{}}
			for _, o := range m.GetOpsetImport() {
				imp.opsets[normalizeDomain(o.GetDomain())] = o.GetVersion()
			}
			gi, err := newGraphImporter(imp, m.GetGraph(), nil)
			if err != nil {
				continue
			}
			seed(gi, m.GetGraph())
			if gi.analyze() != nil {
				continue
			}
			for name, w := range want {
				checked++
				got := gi.env.get(name).typ()
				if got == nil || !got.isTensor() || !got.ranked {
					if os.Getenv("GREE_ONNX_MISSING") != "" {
						for _, n := range m.GetGraph().GetNode() {
							for _, o := range n.GetOutput() {
								if o == name {
									missing[n.GetOpType()]++
								}
							}
						}
					}
					continue
				}
				inferred++
				if len(got.dims) != len(w.dims) {
					bad = append(bad, filepath.Base(d)+": "+name+": rank")
					continue
				}
				for i := range w.dims {
					if got.dims[i] >= 0 && got.dims[i] != w.dims[i] {
						bad = append(bad, filepath.Base(d)+": "+name+": dims")
						break
					}
				}
			}
		}
	}
	if len(missing) > 0 {
		t.Logf("outputs without an inferred shape, by op: %v", missing)
	}
	t.Logf("%d declared outputs, %d with an inferred shape, %d inconsistent", checked, inferred, len(bad))
	for _, b := range bad {
		t.Errorf("inferred shape differs from the declared one: %s", b)
	}
}

// seed enters the graph inputs and initializers as the importer does.
func seed(gi *graphImporter, g *onnxpb.GraphProto) {
	for _, in := range g.GetInput() {
		if t, err := fromTypeProto(in.GetType()); err == nil {
			gi.env.set(in.GetName(), &info{t: t})
		}
	}
	for _, tp := range g.GetInitializer() {
		if t, err := decodeTensor(tp); err == nil {
			gi.env.set(tp.GetName(), constInfo(t))
		}
	}
}
