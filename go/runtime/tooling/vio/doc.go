// Package vio reads and writes the values iree-run-module exchanges with
// its user, with IREE's exact text and file formats: buffer views as text
// ("2x3xi32=[1 2 3][4 5 6]"), --input specs (scalars, tensors, raw files
// and .npy arrays), --output specs (stdout, .npy and raw files), the
// "result[i]: …" printout and the --expected_output comparison with its
// "[SUCCESS]"/"[FAILED]" report.
//
// The behaviour follows IREE's runtime/src/iree/hal/string_util.c,
// buffer_view_util.c and runtime/src/iree/tooling/{function_io,numpy_io,
// comparison}.c, down to C quirks such as strtol's prefix parsing of
// integers and the element budget shared by all rows of a printed tensor.
package vio
