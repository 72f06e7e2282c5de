package cli

import (
	"io"

	"github.com/gree-ml/gree/go/compiler/onnx"
)

// ImportONNXMain runs iree-import-onnx with args (without the program name)
// and returns its exit code (the facade libgree's in-process tool uses).
func ImportONNXMain(args []string, stdout, stderr io.Writer) int {
	return onnx.Main(args, stdout, stderr)
}
