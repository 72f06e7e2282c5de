package onnx

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gree-ml/gree/go/schemas/irpa"
)

const usageText = `usage: iree-import-onnx [-h] [-o OUTPUT_FILE] [--no-verify] [--data-prop | --no-data-prop]
                        [--data-dir DATA_DIR] [--opset-version OPSET_VERSION]
                        [--large-model | --no-large-model] [--fold-shapes]
                        [--externalize-params | --no-externalize-params]
                        [--externalize-inputs-threshold INDEX]
                        [--num-elements-threshold N] [--params-scope SCOPE]
                        [--save-params | --no-save-params] [--save-params-to PATH]
                        [--param-gb-threshold GB]
                        input_file

IREE ONNX import tool (gree)

positional arguments:
  input_file            ONNX protobuf input

options:
  -h, --help            show this help message and exit
  -o OUTPUT_FILE        Output path (or '-' for stdout)
  --no-verify           Disable verification prior to printing
  --data-prop, --no-data-prop
                        Toggle data propagation for onnx shape inference
  --data-dir DATA_DIR   Path to the base directory of the data. Defaults to the directory of the input file.
  --opset-version OPSET_VERSION
                        Allows specification of a newer opset_version to update the model to before importing to MLIR.
                        gree re-stamps the opset when no op of the model changed in between, and reports an error otherwise.
  --large-model, --no-large-model
                        Accepted for compatibility (gree loads weights without a size limit).
  --fold-shapes         gree: replace statically known shape computations (Shape, Gather, Concat, ...) by constants.

externalization:
  --externalize-params, --no-externalize-params
                        Import the mlir file with large weights replaced by external reference calls
                        (util.global initialized from #flow.parameter.named; floating-point initializers).
  --externalize-inputs-threshold INDEX
                        Treats inputs at or after the provided index as external parameters of the model
                        (loaded from the parameter scope at run time instead of passed as arguments).
                        Only has an effect if 'externalize-params' is true.
  --num-elements-threshold N
                        Minimum number of elements for an initializer to be externalized (default 100).
  --params-scope SCOPE  The scope of the externalized parameters (default 'model').
  --save-params, --no-save-params
                        Whether to write the parameters to an .irpa archive (default: yes).
  --save-params-to PATH Where to write them (default '<output_file stem>_params.irpa' next to the output).
  --param-gb-threshold GB
                        Accepted for compatibility (gree writes the archive once).
`

// Main runs iree-import-onnx with args (without the program name) and
// returns its exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	var input, output, saveTo string
	var noSave bool
	opts := Options{ParamsMinElements: 100}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "usage: iree-import-onnx [-h] [-o OUTPUT_FILE] ... input_file\niree-import-onnx: error: "+format+"\n", a...)
		return 2
	}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		name, val, hasVal := strings.Cut(arg, "=")
		takeValue := func() (string, bool) {
			if hasVal {
				return val, true
			}
			if i+1 < len(args) {
				i++
				return args[i], true
			}
			return "", false
		}
		switch {
		case arg == "-h" || arg == "--help":
			fmt.Fprint(stdout, usageText)
			return 0
		case name == "-o":
			v, ok := takeValue()
			if !ok {
				return fail("argument -o: expected one argument")
			}
			output = v
		case strings.HasPrefix(arg, "-o") && len(arg) > 2 && !strings.HasPrefix(arg, "--"):
			output = arg[2:]
		case arg == "--no-verify", arg == "--data-prop", arg == "--large-model", arg == "--no-large-model":
		case arg == "--no-data-prop":
			opts.NoDataProp = true
		case arg == "--fold-shapes":
			opts.FoldShapes = true
		case name == "--data-dir":
			v, ok := takeValue()
			if !ok {
				return fail("argument --data-dir: expected one argument")
			}
			opts.DataDir = v
		case name == "--opset-version":
			v, ok := takeValue()
			if !ok {
				return fail("argument --opset-version: expected one argument")
			}
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return fail("argument --opset-version: invalid int value: '%s'", v)
			}
			opts.OpsetVersion = n
		case arg == "--externalize-params":
			opts.ExternalizeParams = true
		case arg == "--no-externalize-params":
			opts.ExternalizeParams = false
		case arg == "--save-params":
			noSave = false
		case arg == "--no-save-params":
			noSave = true
		case name == "--num-elements-threshold":
			v, ok := takeValue()
			n, err := strconv.ParseInt(v, 10, 64)
			if !ok || err != nil {
				return fail("argument --num-elements-threshold: invalid int value: '%s'", v)
			}
			opts.ParamsMinElements = n
		case name == "--params-scope":
			v, ok := takeValue()
			if !ok {
				return fail("argument --params-scope: expected one argument")
			}
			opts.ParamsScope = v
		case name == "--save-params-to":
			v, ok := takeValue()
			if !ok {
				return fail("argument --save-params-to: expected one argument")
			}
			saveTo = v
		case name == "--param-gb-threshold":
			// IREE flushes parameters to a temporary file past this size;
			// gree writes the archive once, from the model's own bytes.
			v, ok := takeValue()
			if _, err := strconv.ParseFloat(v, 64); !ok || err != nil {
				return fail("argument --param-gb-threshold: invalid float value: '%s'", v)
			}
		case name == "--externalize-inputs-threshold":
			v, ok := takeValue()
			n, err := strconv.Atoi(v)
			if !ok || err != nil {
				return fail("argument --externalize-inputs-threshold: invalid int value: '%s'", v)
			}
			opts.ExternalizeInputs, opts.InputParamsFrom = true, n
		case strings.HasPrefix(arg, "-") && arg != "-":
			return fail("unrecognized arguments: %s", arg)
		default:
			if input != "" {
				return fail("unrecognized arguments: %s", arg)
			}
			input = arg
		}
	}
	if input == "" {
		return fail("the following arguments are required: input_file")
	}
	m, err := LoadModel(input, opts.DataDir)
	var out []byte
	var params []Param
	if err == nil {
		if out, params, err = ImportWithParams(m, opts); err != nil {
			err = fmt.Errorf("%s: %w", input, err)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "iree-import-onnx: %v\n", err)
		return 1
	}
	if opts.ExternalizeParams && !noSave {
		if saveTo == "" {
			if output == "" || output == "-" {
				return fail("--externalize-params writes the parameters next to the output: pass -o, or --save-params-to, or --no-save-params")
			}
			saveTo = defaultParamsPath(output)
		}
		if err := writeParams(saveTo, params); err != nil {
			fmt.Fprintf(stderr, "iree-import-onnx: %v\n", err)
			return 1
		}
	}
	out = append(out, '\n')
	if output == "" || output == "-" {
		stdout.Write(out)
		return 0
	}
	if err := os.WriteFile(output, out, 0o644); err != nil {
		fmt.Fprintf(stderr, "iree-import-onnx: cannot write output file '%s': %v\n", output, err)
		return 1
	}
	return 0
}

// defaultParamsPath is where --externalize-params writes the archive when
// --save-params-to is not given: "<stem>_params.irpa" next to the output,
// as IREE's importer names it (model.mlir → model_params.irpa).
func defaultParamsPath(output string) string {
	dir, base := filepath.Split(output)
	if ext := filepath.Ext(base); ext != base && ext != "." {
		base = strings.TrimSuffix(base, ext) // a leading dot is not a suffix, as in Python's Path.stem
	}
	return filepath.Join(dir, base+"_params.irpa")
}

// writeParams writes the externalized initializers as an IREE parameter
// archive at path.
func writeParams(path string, params []Param) error {
	var w irpa.Writer
	for _, p := range params {
		w.AddData(p.Key, nil, p.Data)
	}
	if err := w.WriteFile(path); err != nil {
		return fmt.Errorf("writing the parameter archive: %w", err)
	}
	return nil
}
