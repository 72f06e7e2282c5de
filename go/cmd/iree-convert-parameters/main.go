// Command iree-convert-parameters converts parameter files (.irpa,
// .safetensors, .gguf) into one IREE parameter archive (.irpa), with
// IREE's flags; see `iree-convert-parameters --help`.
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

const usage = `Converts supported parameter file formats into IREE Parameter Archives
(.irpa) files. Provide one or more input parameter files in the same
form as expected by the iree-run-module tool (` + "`--parameters=foo.gguf`" + `)
and an output file with ` + "`--output=file.irpa`" + `.

Example converting from safetensors to IRPA:
  iree-convert-parameters \
    --parameters=input.safetensors \
    --output=output.irpa

Example mutating parameters:
  iree-convert-parameters \
    --parameters=a.gguf \
    --parameters=b.safetensors \
    --exclude=unneeded_param \
    --rename=old_name=new_name \
    --splat=some_name=f32=4.2 \
    --output=ab.irpa

Scopes are dropped: the archive holds every entry of every file by key.`

var (
	exclude = flags.List("exclude", "Excludes a named parameter from the resulting file.")
	rename  = flags.List("rename", "Renames a parameter when adding to the resulting file in the form of `--rename=old=new`.")
	strip   = flags.Bool("strip", false, "Strips all parameters by replacing them with zeros.")
	splat   = flags.List("splat", "Turns a parameter into a splat of 0 (`--splat=name`) or a specific\nsequence of typed values (`--splat=name=i8=123`, `--splat=name=f32=4.5`).")
	quiet   = flags.Bool("quiet", false, "Silences additional stdout output when not needed.")
	output  = flags.String("output", "", "Output .irpa file path.")
)

func main() {
	rest := tooling.ParseFlags("iree-convert-parameters", usage, os.Args[1:], flags.UnknownIsError)
	if err := run(rest); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(rest []string) error {
	if len(rest) != 0 {
		return status.Errorf(status.InvalidArgument, "no positional arguments expected (got %q); give inputs with --parameters=", rest)
	}
	if *output == "" {
		return status.Errorf(status.InvalidArgument, "--output=file.irpa is required")
	}
	p, err := params.FlagProvider()
	if err != nil {
		return err
	}
	if p == nil {
		return status.Errorf(status.InvalidArgument, "no input files: give them with --parameters=[scope=]file")
	}
	excluded := map[string]bool{}
	for _, k := range *exclude {
		excluded[k] = true
	}
	renames := map[string]string{}
	for _, r := range *rename {
		old, nw, ok := strings.Cut(r, "=")
		if !ok || nw == "" {
			return status.Errorf(status.InvalidArgument, "--rename=%s: expected old=new", r)
		}
		renames[old] = nw
	}
	splats := map[string][]byte{}
	for _, s := range *splat {
		name, spec, hasSpec := strings.Cut(s, "=")
		pat := []byte{0}
		if hasSpec {
			typ, value, ok := strings.Cut(spec, "=")
			if !ok {
				return status.Errorf(status.InvalidArgument, "--splat=%s: expected name or name=type=value", s)
			}
			_, et, err := params.ParseShapeType(typ)
			if err != nil {
				return status.Errorf(status.CodeOf(err), "--splat=%s: %v", s, err)
			}
			if pat, err = params.ParseElementPattern(et, value); err != nil {
				return status.Errorf(status.CodeOf(err), "--splat=%s: %v", s, err)
			}
		}
		splats[name] = pat
	}
	w := params.Writer{}
	seen := map[string]bool{}
	err = p.Each(func(scope string, e *params.Entry) error {
		if excluded[e.Key] {
			return nil
		}
		name := e.Key
		if nw, ok := renames[name]; ok {
			name = nw
		}
		if seen[name] {
			return status.Errorf(status.AlreadyExists, "parameter '%s' appears twice among the inputs (%s); exclude or rename one", name, e.File().Path)
		}
		seen[name] = true
		pat, isSplat := splats[e.Key]
		switch {
		case *strip || isSplat || e.Kind == params.StorageSplat:
			if e.Kind == params.StorageSplat && !*strip && !isSplat {
				pat = e.Pattern
			}
			if pat == nil {
				pat = []byte{0}
			}
			if e.Length%uint64(len(pat)) != 0 {
				pat = []byte{0}
			}
			return w.AddSplat(name, e.Metadata, pat, e.Length)
		}
		w.AddDataFunc(name, e.Metadata, e.Length, func(out io.Writer) error {
			d, err := e.Data()
			if err != nil {
				return err
			}
			_, err = out.Write(d)
			return err
		})
		return nil
	})
	if err != nil {
		return err
	}
	if err := w.WriteFile(*output); err != nil {
		return err
	}
	if *quiet {
		return nil
	}
	return params.DumpFile(os.Stdout, *output)
}
