package embed

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/schemas/module"
)

const negSrc = `func.func @neg(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.negf %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
`

func TestSessionFlagsAreScopedAndValidated(t *testing.T) {
	s1, s2 := NewSession(), NewSession()
	if got := s1.Flags(true); len(got) != 0 {
		t.Fatalf("a new session has non-default flags %v", got)
	}
	if !slices.Contains(s1.Flags(false), "--iree-input-type=auto") {
		t.Errorf("default flags lack --iree-input-type=auto: %v", s1.Flags(false))
	}
	if err := s1.SetFlags([]string{"--iree-input-type=tosa"}); err != nil {
		t.Fatal(err)
	}
	if err := s2.SetFlags([]string{"--iree-input-type=none", "--iree-hal-target-backends=vmvx"}); err != nil {
		t.Fatal(err)
	}
	if got := s1.Flags(true); !slices.Equal(got, []string{"--iree-input-type=tosa"}) {
		t.Errorf("session 1 flags %v", got)
	}
	if got := s2.Flags(true); !slices.Contains(got, "--iree-input-type=none") || !slices.Contains(got, "--iree-hal-target-backends=vmvx") {
		t.Errorf("session 2 flags %v", got)
	}
	for _, bad := range []string{"--does-not-exist=1", "--help", "-o=x.vmfb", "input.mlir"} {
		if err := s1.SetFlags([]string{"--iree-opt-level=O3", bad}); err == nil {
			t.Errorf("SetFlags(%q) succeeded", bad)
		}
	}
	if slices.Contains(s1.Flags(true), "--iree-opt-level=O3") {
		t.Error("a failed SetFlags added some of its flags")
	}
}

func TestInvocationCompilesAsTheTool(t *testing.T) {
	s := NewSession()
	if err := s.SetFlags([]string{"--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=vmvx"}); err != nil {
		t.Fatal(err)
	}
	inv := s.Invocation()
	var diags []string
	inv.OnDiagnostic(func(sev Severity, msg string) { diags = append(diags, msg) })
	if !inv.ParseSource(WrapBuffer("neg.mlir", []byte(negSrc+"\x00"), true)) {
		t.Fatalf("parse failed: %v", diags)
	}
	ir := OpenMembuffer()
	if err := inv.OutputIR(ir); err != nil {
		t.Fatal(err)
	}
	if b, _ := ir.Bytes(); !bytes.Contains(b, []byte(`sym_name = "neg"`)) {
		t.Errorf("parsed IR:\n%s", b)
	}
	if err := inv.OutputVMBytecode(OpenMembuffer()); err == nil {
		t.Error("VM bytecode before a pipeline ran")
	}
	if !inv.RunPipeline(PipelineStd) {
		t.Fatalf("pipeline failed: %v", diags)
	}
	out := OpenMembuffer()
	if err := inv.OutputVMBytecode(out); err != nil {
		t.Fatal(err)
	}
	b, _ := out.Bytes()
	m, err := module.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Exports) != 1 || m.Exports[0].Name != "neg" || m.Executables[0].Format != "vmvx-bytecode" {
		t.Errorf("module exports %v, executables %d", m.Exports, len(m.Executables))
	}
	text := OpenMembuffer()
	if err := inv.OutputIR(text); err != nil {
		t.Fatal(err)
	}
	if b, _ := text.Bytes(); !bytes.Contains(b, []byte("@neg")) {
		t.Errorf("module text:\n%s", b)
	}
}

func TestErrorsAreDiagnosticsNamingTheSource(t *testing.T) {
	inv := NewSession().Invocation()
	var diags []string
	inv.OnDiagnostic(func(sev Severity, msg string) {
		if sev == SeverityError {
			diags = append(diags, msg)
		}
	})
	if inv.ParseSource(WrapBuffer("bad.mlir", []byte("func.func @f( {"), false)) {
		t.Fatal("malformed source parsed")
	}
	if len(diags) != 1 || !strings.HasPrefix(diags[0], "bad.mlir:1:") {
		t.Errorf("diagnostics %q", diags)
	}
	diags = nil
	if inv.ParseSource(WrapBuffer("x.mlirbc", []byte("ML\xefR\x00junk"), false)) || len(diags) != 1 || !strings.Contains(diags[0], "MLIR bytecode") {
		t.Errorf("bytecode input: %q", diags)
	}
	diags = nil
	if inv.RunPipeline(PipelineStd) || !strings.Contains(diags[0], "parse one") {
		t.Errorf("pipeline without source: %q", diags)
	}
	inv.ParseSource(WrapBuffer("neg.mlir", []byte(negSrc), false))
	diags = nil
	if inv.RunPassPipeline("symbol-dce") || !strings.Contains(diags[0], "not MLIR pass pipelines") {
		t.Errorf("pass pipeline: %q", diags)
	}
	if err := inv.OutputIRBytecode(OpenMembuffer(), 0); err == nil {
		t.Error("MLIR bytecode output did not fail")
	}
}

func TestCompileToPhaseAndPhaseDumps(t *testing.T) {
	s := NewSession()
	s.SetFlags([]string{"--iree-hal-target-backends=vmvx"})
	inv := s.Invocation()
	if !inv.ParseSource(WrapBuffer("neg.mlir", []byte(negSrc), false)) {
		t.Fatal("parse failed")
	}
	dir := t.TempDir()
	inv.SetDumpCompilationPhasesTo(dir)
	inv.SetCompileToPhase("flow")
	if !inv.RunPipeline(PipelineStd) {
		t.Fatal("pipeline failed")
	}
	if err := inv.OutputVMBytecode(OpenMembuffer()); err == nil || !strings.Contains(err.Error(), "'flow'") {
		t.Errorf("VM bytecode after compile-to=flow: %v", err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "neg.*.mlir"))
	if len(files) < 2 {
		t.Errorf("phase dumps %v", files)
	}
}

func TestSplitAndOutputs(t *testing.T) {
	src := WrapBuffer("two.mlir", []byte("a\nb\n// -----\nc\n// -----  trailing\nd"), false)
	parts := src.Split()
	if len(parts) != 3 || string(parts[0].Data) != "a\nb\n" || parts[1].FirstLine != 4 || string(parts[2].Data) != "d" || parts[2].FirstLine != 6 {
		t.Errorf("split: %+v", parts)
	}
	path := filepath.Join(t.TempDir(), "out.bin")
	o, err := OpenOutputFile(path)
	if err != nil {
		t.Fatal(err)
	}
	o.Write([]byte("x"))
	if _, err := o.Bytes(); err == nil {
		t.Error("a file output mapped")
	}
	o.Close()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Error("an unkept output file stayed")
	}
	o, _ = OpenOutputFile(path)
	o.Write([]byte("kept"))
	o.Keep()
	o.Close()
	if b, _ := os.ReadFile(path); string(b) != "kept" {
		t.Errorf("kept file holds %q", b)
	}
}
