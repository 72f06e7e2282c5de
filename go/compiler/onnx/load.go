package onnx

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gree-ml/gree/go/compiler/onnx/onnxpb"
	"github.com/gree-ml/gree/go/status"
	"google.golang.org/protobuf/proto"
)

// LooksLikeONNX reports whether data is probably an ONNX protobuf rather
// than MLIR text or bytecode: a protobuf starts with a field tag, a control
// byte that MLIR text never starts with.
func LooksLikeONNX(data []byte) bool {
	if len(data) == 0 {
		return false
	}
	c := data[0]
	if c == '\t' || c == '\n' || c == '\r' {
		return false
	}
	// Tags of ModelProto fields 1-3, 5-8, 14, 20, 25 as varint or
	// length-delimited wire types; all but ':' and 'B' are control bytes.
	return c < 0x20 || ((c == ':' || c == 'B') && !isText(data))
}

func isText(data []byte) bool {
	n := len(data)
	if n > 256 {
		n = 256
	}
	for _, c := range data[:n] {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' {
			return false
		}
	}
	return true
}

// ParseModel decodes an ONNX model from protobuf bytes. name is the file
// name used in messages. External data is not loaded (see LoadExternalData).
func ParseModel(data []byte, name string) (*onnxpb.ModelProto, error) {
	if len(data) == 0 {
		return nil, status.Errorf(status.InvalidArgument, "%s: empty file; not an ONNX model", name)
	}
	m := &onnxpb.ModelProto{}
	if err := proto.Unmarshal(data, m); err != nil {
		return nil, status.Errorf(status.DataLoss, "%s: not a valid ONNX model (truncated or corrupt protobuf): %v", name, err)
	}
	if m.Graph == nil {
		return nil, status.Errorf(status.InvalidArgument, "%s: ONNX model has no main graph (is this an ONNX model file?)", name)
	}
	if len(m.OpsetImport) == 0 {
		return nil, status.Errorf(status.InvalidArgument, "%s: ONNX model has no opset_import (is this an ONNX model file?)", name)
	}
	return m, nil
}

// LoadModel reads and decodes an ONNX model file and loads its external
// data tensors from dataDir ("" = the model's directory).
func LoadModel(path, dataDir string) (*onnxpb.ModelProto, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, status.Errorf(status.NotFound, "could not open ONNX model '%s': %v", path, err)
	}
	m, err := ParseModelAliased(data, path)
	if err != nil {
		return nil, err
	}
	if dataDir == "" {
		dataDir = filepath.Dir(path)
	}
	if err := LoadExternalData(m, dataDir); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// LoadExternalData reads every tensor stored outside the model (data_location
// EXTERNAL: location, offset, length) from files under dir into its
// raw_data, as onnx.load does. Only what a tensor declares is read: its
// byte size follows from its dims and element type (a length that
// disagrees is an error), so a location naming a device or a huge file
// costs no more than the tensor. The location must name a regular file
// inside dir once symbolic links are resolved.
func LoadExternalData(m *onnxpb.ModelProto, dir string) error {
	files := map[string]*os.File{}
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	var root string
	load := func(t *onnxpb.TensorProto) error {
		if t.GetDataLocation() != onnxpb.TensorProto_EXTERNAL {
			return nil
		}
		var loc string
		offset, length := int64(0), int64(-1)
		for _, kv := range t.GetExternalData() {
			var err error
			switch kv.GetKey() {
			case "location":
				loc = kv.GetValue()
			case "offset":
				offset, err = strconv.ParseInt(kv.GetValue(), 10, 64)
			case "length":
				length, err = strconv.ParseInt(kv.GetValue(), 10, 64)
			}
			if err != nil {
				return status.Errorf(status.InvalidArgument, "tensor '%s': bad external data %s '%s'", t.GetName(), kv.GetKey(), kv.GetValue())
			}
		}
		if loc == "" {
			return status.Errorf(status.InvalidArgument, "tensor '%s' has external data without a location", t.GetName())
		}
		clean := filepath.Clean(filepath.FromSlash(loc))
		if filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
			return status.Errorf(status.InvalidArgument, "tensor '%s': external data location '%s' must be a relative path inside the data directory", t.GetName(), loc)
		}
		size, err := declaredBytes(t)
		if err != nil {
			return err
		}
		if length >= 0 && length != size {
			return status.Errorf(status.InvalidArgument, "tensor '%s': external data length %d differs from the %d bytes its shape %v and type %s need", t.GetName(), length, size, t.GetDims(), elemName(t.GetDataType()))
		}
		if offset < 0 {
			return status.Errorf(status.InvalidArgument, "tensor '%s': negative external data offset %d", t.GetName(), offset)
		}
		full := filepath.Join(dir, clean)
		f, ok := files[full]
		if !ok {
			if root == "" {
				if root, err = filepath.EvalSymlinks(dir); err != nil {
					return status.Errorf(status.NotFound, "tensor '%s': data directory '%s': %v", t.GetName(), dir, err)
				}
			}
			if f, err = openInside(root, full); err != nil {
				return status.Errorf(status.NotFound, "tensor '%s': cannot read external data file '%s' (set --data-dir to the directory holding it): %v", t.GetName(), full, err)
			}
			files[full] = f
		}
		data := make([]byte, size)
		if n, err := f.ReadAt(data, offset); int64(n) < size {
			return status.Errorf(status.DataLoss, "tensor '%s': external data [%d, +%d) lies outside '%s' (read %d bytes: %v)", t.GetName(), offset, size, full, n, err)
		}
		t.RawData = data
		t.DataLocation = onnxpb.TensorProto_DEFAULT.Enum()
		t.ExternalData = nil
		return nil
	}
	var graph func(g *onnxpb.GraphProto) error
	graph = func(g *onnxpb.GraphProto) error {
		if g == nil {
			return nil
		}
		for _, t := range g.GetInitializer() {
			if err := load(t); err != nil {
				return err
			}
		}
		for _, n := range g.GetNode() {
			for _, a := range n.GetAttribute() {
				if a.T != nil {
					if err := load(a.T); err != nil {
						return err
					}
				}
				for _, t := range a.GetTensors() {
					if err := load(t); err != nil {
						return err
					}
				}
				if err := graph(a.G); err != nil {
					return err
				}
				for _, sg := range a.GetGraphs() {
					if err := graph(sg); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}
	return graph(m.Graph)
}

// declaredBytes is the byte size of t's data from its dims and element
// type (sub-byte types packed, rounded up to whole bytes).
func declaredBytes(t *onnxpb.TensorProto) (int64, error) {
	info, ok := elemTypes[t.GetDataType()]
	if !ok || (info.bytes == 0 && info.bits == 0) {
		return 0, status.Errorf(status.InvalidArgument, "tensor '%s': external data of element type %s has no fixed size", t.GetName(), elemName(t.GetDataType()))
	}
	n := int64(1)
	for _, d := range t.GetDims() {
		if d < 0 || (d > 0 && n > (1<<50)/d) {
			return 0, status.Errorf(status.InvalidArgument, "tensor '%s': dims %v are negative or too large", t.GetName(), t.GetDims())
		}
		n *= d
	}
	if info.bits > 0 {
		return (n*int64(info.bits) + 7) / 8, nil
	}
	return n * int64(info.bytes), nil
}

// openInside opens path for reading if, with symbolic links resolved, it
// is a regular file inside root (itself resolved).
func openInside(root, path string) (*os.File, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, err
	}
	rel, err := filepath.Rel(root, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return nil, fmt.Errorf("it resolves to '%s', outside the data directory '%s'", real, root)
	}
	// Stat before opening: opening a FIFO would wait for a writer.
	if st, err := os.Stat(real); err != nil || !st.Mode().IsRegular() {
		return nil, fmt.Errorf("'%s' is not a regular file", real)
	}
	f, err := os.Open(real)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close() // replaced between the checks
		return nil, fmt.Errorf("'%s' is not a regular file", real)
	}
	return f, nil
}
