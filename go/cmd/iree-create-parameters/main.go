// Command iree-create-parameters writes an IREE parameter archive (.irpa)
// from parameter declarations, with IREE's flags; see
// `iree-create-parameters --help`.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gree-ml/gree/go/runtime/flags"
	"github.com/gree-ml/gree/go/runtime/io/params"
	"github.com/gree-ml/gree/go/runtime/tooling"
	"github.com/gree-ml/gree/go/status"
)

const usage = `Creates IREE Parameter Archive (.irpa) files. Provide zero or more
parameter value declarations and an output file with
` + "`--output=file.irpa`" + ` to produce a new file with zeroed, patterned or
file contents.

Parameter declarations take a shape and type in order to calculate the
required storage size of the parameter at rest and at runtime. The shape and
type need not match what the consuming program expects so long as the
storage size is equivalent.

  iree-create-parameters \
    --data=my.zeroed_param_1=4096xf32 \
    --data=my.pattern_param_2=8x2xf32=2.1 \
    --data=my.weights=4x3xf32=@weights.bin \
    --splat=my.splat_param_1=4096xf32=4.1 \
    --output=params.irpa

--data=name=SHAPExTYPE=@file.bin (gree) stores the raw little-endian bytes of
file.bin, which must be exactly the declared size.`

var (
	splats    = flags.List("splat", "Declares a splat parameter in the form `name=shapextype=pattern`.\nSplat parameters have no storage on disk.")
	datas     = flags.List("data", "Declares a data parameter in the form `name=shapextype[=pattern|=@file.bin]`.\nOmitting the value leaves the parameter zeroed.")
	alignment = flags.Int("alignment", params.DefaultDataAlignment, "Storage data alignment relative to the header.")
	quiet     = flags.Bool("quiet", false, "Silences additional stdout output when not needed.")
	output    = flags.String("output", "", "Output .irpa file path.")
)

func main() {
	rest := tooling.ParseFlags("iree-create-parameters", usage, os.Args[1:], flags.UnknownIsError)
	if err := run(rest); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// decl is one parsed declaration.
type decl struct {
	name    string
	length  uint64
	pattern []byte // nil: zeros
	file    string
}

func parseDecl(flag, v string, allowFile bool) (decl, error) {
	name, spec, ok := strings.Cut(v, "=")
	if !ok || name == "" {
		return decl{}, status.Errorf(status.InvalidArgument, "--%s=%s: expected name=shapextype[=value]", flag, v)
	}
	st, value, hasValue := strings.Cut(spec, "=")
	n, et, err := params.ParseShapeType(st)
	if err != nil {
		return decl{}, status.Errorf(status.CodeOf(err), "--%s=%s: %v", flag, v, err)
	}
	d := decl{name: name, length: n}
	switch {
	case hasValue && allowFile && strings.HasPrefix(value, "@"):
		d.file = value[1:]
		fi, err := os.Stat(d.file)
		if err != nil {
			return decl{}, status.Errorf(status.NotFound, "--%s=%s: %v", flag, v, err)
		}
		if uint64(fi.Size()) != n {
			return decl{}, status.Errorf(status.InvalidArgument, "--%s=%s: %s is %d bytes but %s is %d bytes", flag, v, d.file, fi.Size(), st, n)
		}
	case hasValue && value != "":
		if d.pattern, err = params.ParseElementPattern(et, value); err != nil {
			return decl{}, status.Errorf(status.CodeOf(err), "--%s=%s: %v", flag, v, err)
		}
	}
	return d, nil
}

func run(rest []string) error {
	if len(rest) != 0 {
		return status.Errorf(status.InvalidArgument, "no positional arguments expected (got %q)", rest)
	}
	if *output == "" {
		return status.Errorf(status.InvalidArgument, "--output=file.irpa is required")
	}
	if *alignment <= 0 || *alignment&(*alignment-1) != 0 {
		return status.Errorf(status.InvalidArgument, "--alignment=%d is not a power of two", *alignment)
	}
	w := params.Writer{Alignment: uint64(*alignment)}
	// Metadata-only splats first, as IREE orders them.
	for _, v := range *splats {
		d, err := parseDecl("splat", v, false)
		if err != nil {
			return err
		}
		pat := d.pattern
		if pat == nil {
			pat = []byte{0}
		}
		if err := w.AddSplat(d.name, nil, pat, d.length); err != nil {
			return err
		}
	}
	for _, v := range *datas {
		d, err := parseDecl("data", v, true)
		if err != nil {
			return err
		}
		w.AddDataFunc(d.name, nil, d.length, func(out io.Writer) error {
			if d.file != "" {
				f, err := os.Open(d.file)
				if err != nil {
					return err
				}
				defer f.Close()
				_, err = io.CopyN(out, f, int64(d.length))
				return err
			}
			return writePattern(out, d.pattern, d.length)
		})
	}
	if err := w.WriteFile(*output); err != nil {
		return err
	}
	if *quiet {
		return nil
	}
	return params.DumpFile(os.Stdout, *output)
}

// writePattern writes n bytes repeating pattern (zeros when nil).
func writePattern(out io.Writer, pattern []byte, n uint64) error {
	if pattern == nil {
		pattern = []byte{0}
	}
	chunk := make([]byte, min(n, 1<<20))
	params.FillSplat(chunk, pattern)
	for n > 0 {
		k := min(n, uint64(len(chunk)))
		if _, err := out.Write(chunk[:k]); err != nil {
			return err
		}
		n -= k
	}
	return nil
}
