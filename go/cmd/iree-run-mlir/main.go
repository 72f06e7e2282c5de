// Command iree-run-mlir compiles an MLIR file and runs it in one process,
// as IREE's tool does: `iree-run-mlir [compiler flags] file.mlir [runtime
// flags]`, with --Xcompiler,<flag> / --Xruntime,<flag> to route a flag
// explicitly. Without a target it compiles for llvm-cpu (vmvx where LLVM is
// not installed) and runs on local-task; see `iree-run-mlir --help`.
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/gree-ml/gree/go/compiler"
	"github.com/gree-ml/gree/go/compiler/cli"
	"github.com/gree-ml/gree/go/runtime/flags"
	"github.com/gree-ml/gree/go/runtime/tooling"
)

const usage = `Compiles an MLIR program and runs a function of it.

Usage: iree-run-mlir [--Xcompiler,<flag>...] file.mlir [--function=f] [--input=...]`

func main() {
	var compilerArgs, runtimeArgs []string
	var source string
	for _, a := range os.Args[1:] {
		switch {
		case strings.HasPrefix(a, "--Xcompiler,"):
			compilerArgs = append(compilerArgs, "--"+strings.TrimPrefix(a, "--Xcompiler,"))
		case strings.HasPrefix(a, "--Xruntime,"):
			runtimeArgs = append(runtimeArgs, "--"+strings.TrimPrefix(a, "--Xruntime,"))
		case strings.HasPrefix(a, "--iree-") || strings.HasPrefix(a, "--compile-") || strings.HasPrefix(a, "--gree-"):
			compilerArgs = append(compilerArgs, a)
		case a == "-" || !strings.HasPrefix(a, "-"):
			source = a
		default:
			runtimeArgs = append(runtimeArgs, a)
		}
	}
	tooling.DefineDeviceListingFlags(os.Stdout)
	options := tooling.DefineRunFlags()
	tooling.ParseFlags("iree-run-mlir", usage, runtimeArgs, flags.UnknownIsError)
	o, err := options()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if source == "" {
		fmt.Fprintln(os.Stderr, "iree-run-mlir: no input file; usage: iree-run-mlir [flags] file.mlir")
		os.Exit(1)
	}
	hasTarget := false
	for _, a := range compilerArgs {
		if strings.HasPrefix(a, "--iree-hal-target-backends") || strings.HasPrefix(a, "--iree-hal-target-device") {
			hasTarget = true
		}
	}
	if !hasTarget {
		// As IREE, llvm-cpu for the local devices; vmvx where LLVM is not
		// installed.
		backend := "llvm-cpu"
		if compiler.TargetUnavailable(backend) != nil {
			backend = "vmvx"
		}
		compilerArgs = append(compilerArgs, "--iree-hal-target-backends="+backend)
	}
	var vmfb bytes.Buffer
	if code := cli.Main(append(compilerArgs, source, "-o", "-"), os.Stdin, &vmfb, os.Stderr); code != 0 {
		os.Exit(tooling.FinishTrace(code, os.Stderr))
	}
	o.Modules = []string{"-"}
	out := bufio.NewWriter(os.Stdout)
	code := tooling.RunModule(o, bytes.NewReader(vmfb.Bytes()), tooling.SyncWriter{Writer: out}, os.Stderr)
	out.Flush()
	os.Exit(tooling.FinishTrace(code, os.Stderr))
}
