package main

/*
#include "embed_internal.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/gree-ml/gree/go/compiler/embed"
)

// Invocations, sources and outputs of the compiler embedding API (see
// embedding.go).

// embedInvocation is what an iree_compiler_invocation_t names.
type embedInvocation struct {
	inv *embed.Invocation
}

// embedOutput is what an iree_compiler_output_t names: the output and the
// C copy of its memory that ireeCompilerOutputMapMemory handed out.
type embedOutput struct {
	out    *embed.Output
	mapped unsafe.Pointer
}

func (o *embedOutput) unmap() {
	if o.mapped != nil {
		C.free(o.mapped)
		o.mapped = nil
	}
}

//export ireeCompilerInvocationCreate
func ireeCompilerInvocationCreate(sp unsafe.Pointer) unsafe.Pointer {
	defer guardVoid()
	s, ok := embedUse[*embed.Session](sp, "session", "ireeCompilerInvocationCreate")
	if !ok {
		return nil
	}
	return embedNew(&embedInvocation{inv: s.Invocation()})
}

//export ireeCompilerInvocationDestroy
func ireeCompilerInvocationDestroy(ip unsafe.Pointer) { embedFree(ip) }

func invocationOf(ip unsafe.Pointer, fn string) (*embed.Invocation, bool) {
	i, ok := embedUse[*embedInvocation](ip, "invocation", fn)
	if !ok {
		return nil, false
	}
	return i.inv, true
}

//export ireeCompilerInvocationEnableCallbackDiagnostics
func ireeCompilerInvocationEnableCallbackDiagnostics(ip unsafe.Pointer, flags C.int, fn, user unsafe.Pointer) {
	inv, ok := invocationOf(ip, "ireeCompilerInvocationEnableCallbackDiagnostics")
	if !ok || fn == nil {
		return
	}
	inv.OnDiagnostic(func(sev embed.Severity, msg string) {
		c := C.CString(msg)
		C.gree__embed_call_diag(fn, C.int(sev), c, C.size_t(len(msg)), user)
		C.free(unsafe.Pointer(c))
	})
}

//export ireeCompilerInvocationEnableConsoleDiagnostics
func ireeCompilerInvocationEnableConsoleDiagnostics(ip unsafe.Pointer) {
	if inv, ok := invocationOf(ip, "ireeCompilerInvocationEnableConsoleDiagnostics"); ok {
		inv.ConsoleDiagnostics()
	}
}

// ireeCompilerInvocationSetCrashHandler is accepted; gree's compiler
// reports a crash (a recovered panic) as an error diagnostic, so the
// handler is never called.
//
//export ireeCompilerInvocationSetCrashHandler
func ireeCompilerInvocationSetCrashHandler(ip unsafe.Pointer, genLocalReproducer C.bool, fn, user unsafe.Pointer) {
	invocationOf(ip, "ireeCompilerInvocationSetCrashHandler")
}

//export ireeCompilerInvocationParseSource
func ireeCompilerInvocationParseSource(ip, sp unsafe.Pointer) (ok C.bool) {
	defer guardVoid()
	inv, live := invocationOf(ip, "ireeCompilerInvocationParseSource")
	src, srcLive := embedUse[*embed.Source](sp, "source", "ireeCompilerInvocationParseSource")
	if !live || !srcLive {
		return false
	}
	return C.bool(inv.ParseSource(src))
}

//export ireeCompilerInvocationSetCompileFromPhase
func ireeCompilerInvocationSetCompileFromPhase(ip unsafe.Pointer, phase *C.char) {
	if inv, ok := invocationOf(ip, "ireeCompilerInvocationSetCompileFromPhase"); ok && phase != nil {
		inv.SetCompileFromPhase(C.GoString(phase))
	}
}

//export ireeCompilerInvocationSetCompileToPhase
func ireeCompilerInvocationSetCompileToPhase(ip unsafe.Pointer, phase *C.char) {
	if inv, ok := invocationOf(ip, "ireeCompilerInvocationSetCompileToPhase"); ok && phase != nil {
		inv.SetCompileToPhase(C.GoString(phase))
	}
}

//export ireeCompilerInvocationSetDumpCompilationPhasesTo
func ireeCompilerInvocationSetDumpCompilationPhasesTo(ip unsafe.Pointer, path *C.char) {
	if inv, ok := invocationOf(ip, "ireeCompilerInvocationSetDumpCompilationPhasesTo"); ok && path != nil {
		inv.SetDumpCompilationPhasesTo(C.GoString(path))
	}
}

//export ireeCompilerInvocationSetVerifyIR
func ireeCompilerInvocationSetVerifyIR(ip unsafe.Pointer, enable C.bool) {
	if inv, ok := invocationOf(ip, "ireeCompilerInvocationSetVerifyIR"); ok {
		inv.SetVerifyIR(bool(enable))
	}
}

// ireeCompilerInvocationSetupRemarks is accepted; gree's compiler emits no
// optimization remarks.
//
//export ireeCompilerInvocationSetupRemarks
func ireeCompilerInvocationSetupRemarks(ip unsafe.Pointer, filter, file *C.char) {
	invocationOf(ip, "ireeCompilerInvocationSetupRemarks")
}

//export ireeCompilerInvocationPipeline
func ireeCompilerInvocationPipeline(ip unsafe.Pointer, pipeline C.int) C.bool {
	defer guardVoid()
	inv, ok := invocationOf(ip, "ireeCompilerInvocationPipeline")
	if !ok {
		return false
	}
	return C.bool(inv.RunPipeline(embed.Pipeline(pipeline)))
}

//export ireeCompilerInvocationRunPassPipeline
func ireeCompilerInvocationRunPassPipeline(ip unsafe.Pointer, text *C.char) C.bool {
	inv, ok := invocationOf(ip, "ireeCompilerInvocationRunPassPipeline")
	if !ok {
		return false
	}
	return C.bool(inv.RunPassPipeline(C.GoString(text)))
}

// invocationOutput runs write with the invocation and output p names.
func invocationOutput(ip, op unsafe.Pointer, write func(*embed.Invocation, *embed.Output) error) (out unsafe.Pointer) {
	defer embedGuard(&out)
	i, err := embedGet[*embedInvocation](ip, "invocation")
	if err != nil {
		return embedError(err)
	}
	o, err := embedGet[*embedOutput](op, "output")
	if err != nil {
		return embedError(err)
	}
	o.unmap()
	return embedError(write(i.inv, o.out))
}

//export ireeCompilerInvocationOutputIR
func ireeCompilerInvocationOutputIR(ip, op unsafe.Pointer) unsafe.Pointer {
	return invocationOutput(ip, op, func(inv *embed.Invocation, o *embed.Output) error { return inv.OutputIR(o) })
}

//export ireeCompilerInvocationOutputIRBytecode
func ireeCompilerInvocationOutputIRBytecode(ip, op unsafe.Pointer, version C.int) unsafe.Pointer {
	return invocationOutput(ip, op, func(inv *embed.Invocation, o *embed.Output) error {
		return inv.OutputIRBytecode(o, int(version))
	})
}

//export ireeCompilerInvocationOutputVMBytecode
func ireeCompilerInvocationOutputVMBytecode(ip, op unsafe.Pointer) unsafe.Pointer {
	return invocationOutput(ip, op, func(inv *embed.Invocation, o *embed.Output) error { return inv.OutputVMBytecode(o) })
}

//export ireeCompilerInvocationOutputVMCSource
func ireeCompilerInvocationOutputVMCSource(ip, op unsafe.Pointer) unsafe.Pointer {
	return invocationOutput(ip, op, func(inv *embed.Invocation, o *embed.Output) error { return inv.OutputVMCSource(o) })
}

//export ireeCompilerInvocationOutputHALExecutable
func ireeCompilerInvocationOutputHALExecutable(ip, op unsafe.Pointer) unsafe.Pointer {
	return invocationOutput(ip, op, func(inv *embed.Invocation, o *embed.Output) error { return inv.OutputHALExecutable(o) })
}

//export ireeCompilerSourceDestroy
func ireeCompilerSourceDestroy(sp unsafe.Pointer) { embedFree(sp) }

//export ireeCompilerSourceOpenFile
func ireeCompilerSourceOpenFile(session unsafe.Pointer, path *C.char, out *unsafe.Pointer) (e unsafe.Pointer) {
	defer embedGuard(&e)
	if _, err := embedGet[*embed.Session](session, "session"); err != nil {
		return embedError(err)
	}
	if path == nil || out == nil {
		return embedError(fmt.Errorf("filePath and out_source must not be NULL"))
	}
	src, err := embed.OpenSourceFile(C.GoString(path))
	if err != nil {
		return embedError(err)
	}
	*out = embedNew(src)
	return nil
}

//export ireeCompilerSourceWrapBuffer
func ireeCompilerSourceWrapBuffer(session unsafe.Pointer, name, buffer *C.char, length C.size_t, nullTerminated C.bool, out *unsafe.Pointer) (e unsafe.Pointer) {
	defer embedGuard(&e)
	if _, err := embedGet[*embed.Session](session, "session"); err != nil {
		return embedError(err)
	}
	if out == nil || (buffer == nil && length > 0) {
		return embedError(fmt.Errorf("out_source must not be NULL, nor buffer when length > 0"))
	}
	var data []byte
	if length > 0 {
		data = unsafe.Slice((*byte)(unsafe.Pointer(buffer)), int(length))
	}
	n := ""
	if name != nil {
		n = C.GoString(name)
	}
	*out = embedNew(embed.WrapBuffer(n, data, bool(nullTerminated)))
	return nil
}

//export ireeCompilerSourceSplit
func ireeCompilerSourceSplit(sp, fn, user unsafe.Pointer) (e unsafe.Pointer) {
	defer embedGuard(&e)
	src, err := embedGet[*embed.Source](sp, "source")
	if err != nil {
		return embedError(err)
	}
	if fn == nil {
		return embedError(fmt.Errorf("callback must not be NULL"))
	}
	for _, part := range src.Split() {
		p := embedNew(part)
		C.gree__embed_call_source(fn, p, user)
		embedFree(p)
	}
	return nil
}

//export ireeCompilerOutputDestroy
func ireeCompilerOutputDestroy(op unsafe.Pointer) {
	defer guardVoid()
	if o, ok := embedFree(op).(*embedOutput); ok {
		o.unmap()
		if err := o.out.Close(); err != nil {
			fmt.Fprintf(stderr(), "gree: closing a compiler output: %v\n", err)
		}
	}
}

//export ireeCompilerOutputOpenFile
func ireeCompilerOutputOpenFile(path *C.char, out *unsafe.Pointer) (e unsafe.Pointer) {
	defer embedGuard(&e)
	if path == nil || out == nil {
		return embedError(fmt.Errorf("filePath and out_output must not be NULL"))
	}
	o, err := embed.OpenOutputFile(C.GoString(path))
	if err != nil {
		return embedError(err)
	}
	*out = embedNew(&embedOutput{out: o})
	return nil
}

//export ireeCompilerOutputOpenFD
func ireeCompilerOutputOpenFD(fd C.int, out *unsafe.Pointer) (e unsafe.Pointer) {
	defer embedGuard(&e)
	if out == nil {
		return embedError(fmt.Errorf("out_output must not be NULL"))
	}
	o, err := embed.OpenOutputFD(int(fd))
	if err != nil {
		return embedError(err)
	}
	*out = embedNew(&embedOutput{out: o})
	return nil
}

//export ireeCompilerOutputOpenMembuffer
func ireeCompilerOutputOpenMembuffer(out *unsafe.Pointer) unsafe.Pointer {
	if out == nil {
		return embedError(fmt.Errorf("out_output must not be NULL"))
	}
	*out = embedNew(&embedOutput{out: embed.OpenMembuffer()})
	return nil
}

//export ireeCompilerOutputMapMemory
func ireeCompilerOutputMapMemory(op unsafe.Pointer, contents *unsafe.Pointer, size *C.uint64_t) (e unsafe.Pointer) {
	defer embedGuard(&e)
	o, err := embedGet[*embedOutput](op, "output")
	if err != nil {
		return embedError(err)
	}
	if contents == nil || size == nil {
		return embedError(fmt.Errorf("contents and size must not be NULL"))
	}
	b, err := o.out.Bytes()
	if err != nil {
		return embedError(err)
	}
	o.unmap()
	o.mapped = C.malloc(C.size_t(max(len(b), 1)))
	copy(unsafe.Slice((*byte)(o.mapped), len(b)), b)
	*contents, *size = o.mapped, C.uint64_t(len(b))
	return nil
}

//export ireeCompilerOutputKeep
func ireeCompilerOutputKeep(op unsafe.Pointer) {
	if o, ok := embedUse[*embedOutput](op, "output", "ireeCompilerOutputKeep"); ok {
		o.out.Keep()
	}
}

//export ireeCompilerOutputWrite
func ireeCompilerOutputWrite(op, data unsafe.Pointer, length C.size_t) (e unsafe.Pointer) {
	defer embedGuard(&e)
	o, err := embedGet[*embedOutput](op, "output")
	if err != nil {
		return embedError(err)
	}
	if data == nil && length > 0 {
		return embedError(fmt.Errorf("data must not be NULL when length > 0"))
	}
	o.unmap()
	if length > 0 {
		_, err = o.out.Write(unsafe.Slice((*byte)(data), int(length)))
	}
	return embedError(err)
}
