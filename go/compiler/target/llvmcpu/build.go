package llvmcpu

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"unsafe"

	"github.com/gree-ml/gree/go/status"
)

// Machine says what code is generated for.
type Machine struct {
	// Triple is the LLVM target triple ("x86_64-unknown-linux-gnu").
	Triple string
	// CPU is the LLVM CPU name ("generic", "skylake-avx512", …).
	CPU string
	// Features is the LLVM feature string ("+avx2,+fma").
	Features string
	// OptLevel is 0 to 3.
	OptLevel int
}

// compileIR parses LLVM IR text, optimizes it with the default<On> pass
// pipeline and returns the object file LLVM emits for m; with optimized
// non-nil it also returns the optimized IR's text there.
func compileIR(src string, m Machine, optimized *string) ([]byte, error) {
	t, err := load()
	if err != nil {
		return nil, err
	}
	ctx := t.ContextCreate()
	defer t.ContextDispose(ctx)
	data := append([]byte(src), 0)
	buf := t.CreateMemBuf(&data[0], uintptr(len(src)), "gree-llvmcpu")
	var mod uintptr
	var msg *byte
	if t.ParseIR(ctx, buf, &mod, &msg) != 0 { // takes the buffer
		return nil, status.Errorf(status.Internal, "llvm-cpu: LLVM rejected the generated IR (an emitter bug): %s", t.message(msg))
	}
	defer t.DisposeModule(mod)
	if t.VerifyModule(mod, 2, &msg) != 0 {
		return nil, status.Errorf(status.Internal, "llvm-cpu: generated IR does not verify (an emitter bug): %s", t.message(msg))
	}
	var target uintptr
	if t.TargetFromTrip(m.Triple, &target, &msg) != 0 {
		return nil, status.Errorf(status.InvalidArgument, "llvm-cpu: target triple %q: %s (this LLVM supports x86_64 and aarch64)", m.Triple, t.message(msg))
	}
	lvl := int32(min(max(m.OptLevel, 0), 3))
	// Code generation is aggressive at every level but O0, as IREE's.
	cg := lvl
	if cg > 0 {
		cg = 3
	}
	tm := t.CreateTM(target, m.Triple, m.CPU, m.Features, cg, 2 /* PIC */, 0)
	if tm == 0 {
		return nil, status.Errorf(status.InvalidArgument, "llvm-cpu: LLVM could not create a target machine for %s, cpu %q, features %q", m.Triple, m.CPU, m.Features)
	}
	defer t.DisposeTM(tm)
	t.SetTarget(mod, m.Triple)
	dl := t.CreateDL(tm)
	t.SetModuleDL(mod, dl)
	t.DisposeDL(dl)
	opts := t.CreatePBO()
	defer t.DisposePBO(opts)
	if e := t.RunPasses(mod, fmt.Sprintf("default<O%d>", lvl), tm, opts); e != 0 {
		p := t.ErrorMessage(e)
		s := cstr(p)
		t.DisposeErrMsg(p)
		return nil, status.Errorf(status.Internal, "llvm-cpu: LLVM optimization failed: %s", s)
	}
	if optimized != nil {
		*optimized = t.message(t.PrintModule(mod))
	}
	var out uintptr
	if t.EmitToMemBuf(tm, mod, 1 /* object */, &msg, &out) != 0 {
		return nil, status.Errorf(status.Internal, "llvm-cpu: LLVM code generation failed: %s", t.message(msg))
	}
	defer t.DisposeMemBuf(out)
	n := int(t.BufferSize(out))
	obj := bytes.Clone(unsafe.Slice(t.BufferStart(out), n))
	return obj, nil
}

// link turns object files into one shared object with ld.lld.
func link(objs [][]byte) ([]byte, error) {
	t, err := load()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "gree-llvmcpu-")
	if err != nil {
		return nil, status.Errorf(status.Unavailable, "llvm-cpu: temporary directory: %v", err)
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "kernels.so")
	args := []string{"-shared", "--build-id=none", "-z", "noexecstack", "-z", "now", "--hash-style=both", "-O1", "-o", out}
	for i, obj := range objs {
		in := filepath.Join(dir, fmt.Sprintf("kernels%d.o", i))
		if err := os.WriteFile(in, obj, 0o600); err != nil {
			return nil, status.Errorf(status.Unavailable, "llvm-cpu: %v", err)
		}
		args = append(args, in)
	}
	cmd := exec.Command(t.lld, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, status.Errorf(status.Internal, "llvm-cpu: %s failed: %v: %s", t.lld, err, stderr.String())
	}
	so, err := os.ReadFile(out)
	if err != nil {
		return nil, status.Errorf(status.Internal, "llvm-cpu: %v", err)
	}
	return so, nil
}
