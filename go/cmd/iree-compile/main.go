// Command iree-compile compiles MLIR (and .onnx) programs into .vmfb modules.
// Its command line is IREE's; see `iree-compile --help`.
package main

import (
	"os"

	"github.com/gree-ml/gree/go/compiler/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
