package tooling

import (
	"github.com/gree-ml/gree/go/runtime/flags"
	"github.com/gree-ml/gree/go/runtime/tooling/vio"
)

// DefineRunFlags defines iree-run-module's flags in flags.Default and
// returns a function that reads them into RunOptions after parsing.
func DefineRunFlags() func() (RunOptions, error) {
	modules := flags.List("module", "A VM module to load; may be repeated. The last is the main module.\n'-' reads the module from stdin.")
	function := flags.String("function", "", "Name of a function contained in the module specified by --module= to run.\nMay be omitted when the module exports exactly one function.")
	devices := flags.List("device", "Device URI (e.g. local-task, cuda://0); may be repeated. Defaults to local-task.")
	inputs := flags.List("input", "An input (a) value or (b) buffer of the format:\n  (a) scalar value\n     value\n     e.g.: --input=\"3.14\"\n  (b) buffer:\n     [shape]xtype=[value]\n     e.g.: --input=\"2x2xi32=1 2 3 4\"\nOptionally, brackets may be used to separate the element values:\n  2x2xi32=[[1 2][3 4]]\nRaw binary files can be read to provide buffer contents:\n  2x2xi32=@some/file.bin\nNumpy npy files from numpy.save can be read to provide 1+ values:\n  @some.npy")
	outputs := flags.List("output", "Specifies how to handle an output from the invocation:\n  `` (empty): ignore output\n  `-`: print textual form to stdout\n  `@file.npy`: create/overwrite a numpy npy file and write buffer view\n  `+file.npy`: append a buffer view to a numpy npy file\n  `@file.bin`/`+file.bin`: write/append raw bytes")
	expected := flags.List("expected_output", "An expected function output following the same format as `--input=`.\nWhen present the results of the invocation will be compared against\nthese values and the tool will return non-zero if any differ.")
	maxElements := flags.Int("output_max_element_count", 1024, "Prints up to the maximum number of elements of output tensors and elides the remainder.")
	f16 := flags.Float("expected_f16_threshold", 0.001, "Threshold under which two f16 values are considered equal.")
	f32 := flags.Float("expected_f32_threshold", 0.0001, "Threshold under which two f32 values are considered equal.")
	f64 := flags.Float("expected_f64_threshold", 0.0001, "Threshold under which two f64 values are considered equal.")
	bf16 := flags.Float("expected_bf16_threshold", 0.01, "Threshold under which two bf16 values are considered equal.")
	rtol := flags.Float("expected_rtol", 1e-5, "Relative tolerance for floating-point comparisons.")
	mode := flags.String("equality_mode", "approximate", "approximate (default) or exact comparison of expected outputs.")
	return func() (RunOptions, error) {
		cmp := vio.DefaultCompareOptions()
		cmp.F16Threshold, cmp.F32Threshold, cmp.BF16Threshold = float32(*f16), float32(*f32), float32(*bf16)
		cmp.F64Threshold, cmp.RTol, cmp.EqualityMode = *f64, *rtol, *mode
		cmp.MaxElementCount = int(*maxElements)
		o := RunOptions{
			Modules: *modules, Function: *function, Inputs: *inputs, Outputs: *outputs,
			ExpectedOutputs: *expected, MaxElements: int(*maxElements), Compare: cmp,
		}
		o.Devices, o.Allocators = *devices, DeviceAllocators()
		return o, nil
	}
}
