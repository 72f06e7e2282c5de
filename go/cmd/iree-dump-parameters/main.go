// Command iree-dump-parameters lists the entries of parameter files as the
// runtime tools index them, and extracts parameters to files; see
// `iree-dump-parameters --help`.
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/gree-ml/gree/go/runtime/flags"
	"github.com/gree-ml/gree/go/runtime/io/params"
	"github.com/gree-ml/gree/go/runtime/tooling"
	"github.com/gree-ml/gree/go/status"
)

const usage = `Dumps information about parsed parameter files.

  # List all available parameters and their index information:
  iree-dump-parameters --parameters=my_scope=my_file.gguf [--parameters=...]
  # Extract parameter binary contents from a file:
  iree-dump-parameters ... --extract=scope::key0=file0.bin [--extract=...]`

var extract = flags.List("extract", "Extracts a parameter to a file as `[scope::]key=file.bin`.")

func main() {
	rest := tooling.ParseFlags("iree-dump-parameters", usage, os.Args[1:], flags.UnknownIsError)
	if len(rest) != 0 {
		fmt.Fprintln(os.Stderr, "Error: no positional arguments expected.")
		fmt.Fprintln(os.Stderr, "Use one or more --parameters=file.ext flags to specify parameter files.")
		os.Exit(1)
	}
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run() error {
	p, err := params.FlagProvider()
	if err != nil {
		return err
	}
	if p == nil {
		p = &params.Provider{}
	}
	p.Dump(os.Stdout)
	for _, v := range *extract {
		ref, path, ok := strings.Cut(v, "=")
		if !ok || path == "" {
			return status.Errorf(status.InvalidArgument, "--extract=%s: expected [scope::]key=file.bin", v)
		}
		scope, key, scoped := strings.Cut(ref, "::")
		if !scoped {
			scope, key = "", ref
		}
		e, err := p.Lookup(scope, key)
		if err != nil {
			return err
		}
		fmt.Printf("Extracting parameter `%s` (%db) to `%s`...\n", ref, e.Length, path)
		data, err := p.Parameter(scope, key, int64(e.Length), 1)
		if err != nil {
			return err
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return status.Errorf(status.PermissionDenied, "--extract=%s: %v", v, err)
		}
	}
	return nil
}
