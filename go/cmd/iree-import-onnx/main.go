// Command iree-import-onnx converts an ONNX model (.onnx) into MLIR text in
// the torch-onnx dialect, as IREE's iree-import-onnx does; see
// `iree-import-onnx --help`.
package main

import (
	"os"

	"github.com/gree-ml/gree/go/compiler/onnx"
)

func main() {
	os.Exit(onnx.Main(os.Args[1:], os.Stdout, os.Stderr))
}
