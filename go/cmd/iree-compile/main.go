// Command iree-compile compiles MLIR (and .onnx) programs into .vmfb modules.
// Its command line is IREE's; see `iree-compile --help`.
//
// For profiling the compiler, GREE_CPUPROFILE=FILE writes a Go CPU profile
// of the run to FILE (read it with `go tool pprof`).
package main

import (
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/gree-ml/gree/go/compiler/cli"
)

func main() {
	if p := os.Getenv("GREE_CPUPROFILE"); p != "" {
		f, err := os.Create(p)
		if err != nil {
			fmt.Fprintf(os.Stderr, "iree-compile: GREE_CPUPROFILE: %v\n", err)
			os.Exit(1)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintf(os.Stderr, "iree-compile: GREE_CPUPROFILE: %v\n", err)
			os.Exit(1)
		}
		code := cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
		pprof.StopCPUProfile()
		f.Close()
		os.Exit(code)
	}
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
