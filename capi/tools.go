package main

/*
#include "internal.h"
*/
import "C"

import (
	"bytes"
	"unsafe"

	"github.com/gree-ml/gree/go/compiler/cli"
	"github.com/gree-ml/gree/go/status"
)

// tools are the command-line tools libgree can run in process.
var tools = map[string]func(args []string, stdin []byte, stdout, stderr *bytes.Buffer) int{
	"iree-compile": func(args []string, stdin []byte, stdout, stderr *bytes.Buffer) int {
		return cli.Main(args, bytes.NewReader(stdin), stdout, stderr)
	},
	"iree-import-onnx": func(args []string, _ []byte, stdout, stderr *bytes.Buffer) int {
		return cli.ImportONNXMain(args, stdout, stderr)
	},
	// A self-test of the panic guard: it panics inside an export, and the
	// caller must get an INTERNAL status back instead of a dead process.
	"gree-selftest-panic": func([]string, []byte, *bytes.Buffer, *bytes.Buffer) int {
		panic("gree-selftest-panic: deliberate panic to test the C ABI guard")
	},
}

//export gree_tool_run
func gree_tool_run(tool *C.char, argc C.size_t, argv **C.char, stdinData *C.uint8_t, stdinSize C.size_t,
	outStdout **C.uint8_t, outStdoutSize *C.size_t, outStderr **C.uint8_t, outStderrSize *C.size_t, outExit *C.int32_t) (st C.gree_status_t) {
	defer guard(&st)
	if tool == nil || outStdout == nil || outStdoutSize == nil || outStderr == nil || outStderrSize == nil || outExit == nil {
		return invalidArg("tool and every out-parameter must be non-NULL")
	}
	if argc == 0 || argv == nil {
		return invalidArg("argv must hold at least the program name")
	}
	name := C.GoString(tool)
	run, ok := tools[name]
	if !ok {
		return toStatus(status.Errorf(status.NotFound, "no tool '%s' in libgree; available: iree-compile, iree-import-onnx, gree-selftest-panic", name))
	}
	var stdin []byte
	if stdinSize > 0 && stdinData != nil {
		stdin = bytes.Clone(unsafe.Slice((*byte)(unsafe.Pointer(stdinData)), int(stdinSize)))
	}
	args := goArgs(argc, argv)[1:]
	var stdout, stderr bytes.Buffer
	code := run(args, stdin, &stdout, &stderr)
	*outStdout, *outStdoutSize = cbytes(stdout.Bytes())
	*outStderr, *outStderrSize = cbytes(stderr.Bytes())
	*outExit = C.int32_t(code)
	return nil
}
