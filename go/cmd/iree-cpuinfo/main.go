// Command iree-cpuinfo prints, one per line, each CPU feature that
// llvm-cpu executables may require on the host's architecture and whether
// the host has it (1) or not (0), in the format of IREE's tool of the same
// name; these are the checks the runtime makes before it loads an
// executable.
package main

import (
	"fmt"
	"os"

	"github.com/gree-ml/gree/go/runtime/flags"
	"github.com/gree-ml/gree/go/runtime/hal/local/llvmcpu"
	"github.com/gree-ml/gree/go/runtime/tooling"
)

const usage = `Prints the host CPU's features as llvm-cpu executables name them (1: present, 0: absent).

Usage: iree-cpuinfo`

func main() {
	rest := tooling.ParseFlags("iree-cpuinfo", usage, os.Args[1:], flags.UnknownIsError)
	if len(rest) != 0 {
		fmt.Fprintf(os.Stderr, "iree-cpuinfo takes no arguments; got %q\n", rest)
		os.Exit(1)
	}
	for _, f := range llvmcpu.HostFeatures() {
		v := 0
		if f.Present {
			v = 1
		}
		fmt.Printf("%-20s %d\n", f.Name, v)
	}
}
