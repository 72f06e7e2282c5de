package vio

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/vm"
	"github.com/gree-ml/gree/go/status"
)

// refTypeName returns the VM type name of a reference value.
func refTypeName(r any) string {
	switch r.(type) {
	case *hal.BufferView:
		return "hal.buffer_view"
	case *vm.List:
		return "vm.list"
	case []byte:
		return "hal.buffer"
	}
	return fmt.Sprintf("%T", r)
}

// isNull reports an empty variant: a null value or a nil reference.
func isNull(v vm.Value) bool {
	if v.Kind == vm.KindNull {
		return true
	}
	if v.Kind != vm.KindRef {
		return false
	}
	switch r := v.Ref.(type) {
	case nil:
		return true
	case *hal.BufferView:
		return r == nil
	case *vm.List:
		return r == nil
	}
	return false
}

// FormatValue formats one variant as iree-run-module prints it
// (iree_tooling_format_variant): "i32=123", "f32=-3.14" (%g), "(null)",
// "hal.buffer_view\n<buffer view text>", "vm.list\n" followed by one
// "child_list[j]: …\n" line per element, and "<type name>\n(no printer)"
// for other references.
func FormatValue(v vm.Value, maxElements int) string {
	var b strings.Builder
	formatValue(&b, v, maxElements)
	return b.String()
}

func formatValue(b *strings.Builder, v vm.Value, maxElements int) {
	if isNull(v) {
		b.WriteString("(null)")
		return
	}
	if v.Kind != vm.KindRef {
		b.WriteString(v.String())
		return
	}
	b.WriteString(refTypeName(v.Ref))
	b.WriteByte('\n')
	switch r := v.Ref.(type) {
	case *hal.BufferView:
		b.WriteString(FormatBufferView(r, maxElements))
	case *vm.List:
		for j, item := range r.Items {
			fmt.Fprintf(b, "child_list[%d]: ", j)
			formatValue(b, item, maxElements)
			b.WriteByte('\n')
		}
	default:
		b.WriteString("(no printer)")
	}
}

// PrintResults writes every result as "result[i]: <FormatValue>\n", which
// iree-run-module prints when neither --output nor --expected_output is
// given.
func PrintResults(w io.Writer, results []vm.Value, maxElements int) error {
	for i, v := range results {
		line := fmt.Sprintf("result[%d]: %s\n", i, FormatValue(v, maxElements))
		if _, err := io.WriteString(w, line); err != nil {
			return status.Errorf(status.DataLoss, "failed to write result %d: %w", i, err)
		}
	}
	return nil
}

// WriteOutputs handles one --output spec per result
// (iree_tooling_write_variants): "" discards the result, "-" prints
// FormatValue and a newline to stdout (when stdout is not nil),
// "@file" creates or truncates file and "+file" appends to it (creating it
// if needed). Files ending in ".npy" get one ndarray per result (scalars
// with shape (), a raw buffer as an i8 array, null as a zero-length i8
// array); any other extension gets the raw bytes without metadata. A spec
// count different from the result count fails with OUT_OF_RANGE.
func WriteOutputs(results []vm.Value, specs []string, stdout io.Writer, maxElements int) error {
	if len(specs) != len(results) {
		return status.Errorf(status.OutOfRange,
			"%d outputs specified but the provided variant list only has %d elements",
			len(specs), len(results))
	}
	for i, spec := range specs {
		v := results[i]
		switch spec {
		case "":
		case "-":
			if stdout != nil {
				if _, err := io.WriteString(stdout, FormatValue(v, maxElements)+"\n"); err != nil {
					return status.Errorf(status.DataLoss, "failed to write output %d: %w", i, err)
				}
			}
		default:
			if err := writeValueToFile(v, spec); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeValueToFile writes v to the file named by an "@path" or "+path" spec.
func writeValueToFile(v vm.Value, spec string) error {
	var flags int
	switch {
	case strings.HasPrefix(spec, "@"):
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	case strings.HasPrefix(spec, "+"):
		flags = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	default:
		return status.Errorf(status.Unimplemented, "unsupported output mode specification '%s'", spec)
	}
	path := spec[1:]
	f, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		return fileError(err, "failed to open file '%s'", path)
	}
	werr := writeValue(f, v, strings.HasSuffix(path, ".npy"))
	cerr := f.Close()
	if werr != nil {
		return werr
	}
	if cerr != nil {
		return fileError(cerr, "failed to close file '%s'", path)
	}
	return nil
}

// writeValue writes v as an ndarray or as raw bytes.
func writeValue(w io.Writer, v vm.Value, npy bool) error {
	bv, err := viewOfValue(v)
	if err != nil {
		return err
	}
	if npy {
		return WriteNPY(w, bv)
	}
	data := bv.Bytes()
	if data == nil {
		return status.New(status.InvalidArgument, "the buffer view is not in host memory")
	}
	if _, err := w.Write(data); err != nil {
		return status.Errorf(status.DataLoss, "failed to write buffer contents: %w", err)
	}
	return nil
}

// viewOfValue wraps any writable variant in a buffer view
// (iree_tooling_create_buffer_view_from_variant).
func viewOfValue(v vm.Value) (*hal.BufferView, error) {
	le := binary.LittleEndian
	if isNull(v) {
		return hal.NewHostBufferView([]int64{0}, hal.ElementInt8)
	}
	switch v.Kind {
	case vm.KindI32:
		return hal.HostBufferViewOf(nil, hal.ElementInt32, le.AppendUint32(nil, uint32(v.I)))
	case vm.KindI64:
		return hal.HostBufferViewOf(nil, hal.ElementInt64, le.AppendUint64(nil, uint64(v.I)))
	case vm.KindF32:
		return hal.HostBufferViewOf(nil, hal.ElementFloat32, le.AppendUint32(nil, math.Float32bits(float32(v.F))))
	case vm.KindF64:
		return hal.HostBufferViewOf(nil, hal.ElementFloat64, le.AppendUint64(nil, math.Float64bits(v.F)))
	}
	switch r := v.Ref.(type) {
	case *hal.BufferView:
		return r, nil
	case []byte:
		return hal.HostBufferViewOf([]int64{int64(len(r))}, hal.ElementInt8, r)
	}
	return nil, status.New(status.InvalidArgument,
		"unsupported output source type; expected: !hal.buffer, !hal.buffer_view, !vm.buffer")
}
