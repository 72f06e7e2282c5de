package embed

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/gree-ml/gree/go/compiler/cli"
	"github.com/gree-ml/gree/go/schemas/module"
)

// Severity is a diagnostic's severity, numbered as IREE's
// iree_compiler_diagnostic_severity_t.
type Severity int

// The severities.
const (
	SeverityNote Severity = iota
	SeverityWarning
	SeverityError
	SeverityRemark
)

// Pipeline is a compilation pipeline, numbered as IREE's
// iree_compiler_pipeline_t.
type Pipeline int

// The pipelines.
const (
	PipelineStd Pipeline = iota
	PipelineHALExecutable
	PipelinePrecompile
	PipelineVM
)

// Invocation compiles one source with its session's flags.
type Invocation struct {
	session *Session
	// diag receives diagnostics; nil prints them to stderr (the console).
	diag     func(Severity, string)
	src      *Source
	from, to string
	verify   bool
	dumpTo   string
	// result is the last output: IR text when ir is set, else a module.
	result []byte
	ir     bool
	phase  string
}

// OnDiagnostic sends diagnostics to fn instead of the console.
func (inv *Invocation) OnDiagnostic(fn func(Severity, string)) { inv.diag = fn }

// ConsoleDiagnostics prints diagnostics to stderr (the default).
func (inv *Invocation) ConsoleDiagnostics() { inv.diag = nil }

func (inv *Invocation) report(sev Severity, msg string) {
	msg = strings.TrimRight(msg, "\n")
	if msg == "" {
		return
	}
	if inv.diag != nil {
		inv.diag(sev, msg)
		return
	}
	fmt.Fprintln(os.Stderr, msg)
}

// SetCompileFromPhase sets the phase the source starts at; gree compiles
// from source programs only ("start" or "input").
func (inv *Invocation) SetCompileFromPhase(p string) { inv.from = p }

// SetCompileToPhase sets the phase a pipeline stops after (its IR is then
// the result: see OutputIR).
func (inv *Invocation) SetCompileToPhase(p string) { inv.to = p }

// SetVerifyIR is accepted for IREE's API: gree verifies the IR after each
// phase whatever it is set to.
func (inv *Invocation) SetVerifyIR(enable bool) { inv.verify = enable }

// SetDumpCompilationPhasesTo makes each pipeline write the IR after each of
// gree's phases into dir, one file per phase
// (<module name>.<n>.<phase>.mlir).
func (inv *Invocation) SetDumpCompilationPhasesTo(dir string) { inv.dumpTo = dir }

// mlirBytecodeMagic starts MLIR bytecode files.
var mlirBytecodeMagic = []byte("ML\xefR")

// ParseSource parses src (reporting its errors as diagnostics) and makes it
// the invocation's program; it returns whether it parsed.
func (inv *Invocation) ParseSource(src *Source) bool {
	if bytes.HasPrefix(src.Data, mlirBytecodeMagic) {
		inv.report(SeverityError, fmt.Sprintf("%s: the source is MLIR bytecode; gree reads MLIR as text (or an ONNX model): print it as text first (mlir-opt without --emit-bytecode)", src.Name))
		return false
	}
	out, ok := inv.run(src, []string{"--compile-to=start"})
	if !ok {
		return false
	}
	inv.src, inv.result, inv.ir, inv.phase = src, out, true, "start"
	return true
}

// RunPipeline runs a pipeline on the parsed source; it returns whether it
// succeeded (errors are diagnostics).
func (inv *Invocation) RunPipeline(p Pipeline) bool {
	if inv.src == nil {
		inv.report(SeverityError, "no source: parse one (ireeCompilerInvocationParseSource) before running a pipeline")
		return false
	}
	if inv.from != "" && inv.from != "start" && inv.from != "input" {
		inv.report(SeverityError, fmt.Sprintf("gree compiles from source programs only; it cannot start from the '%s' phase", inv.from))
		return false
	}
	to := inv.to
	switch p {
	case PipelineStd:
	case PipelinePrecompile:
		// IREE's precompile pipeline ends after global optimization.
		if to == "" {
			to = "global-optimization"
		}
	case PipelineHALExecutable:
		inv.report(SeverityError, "gree does not compile a lone hal.executable (IREE_COMPILER_PIPELINE_HAL_EXECUTABLE); compile the whole program with the standard pipeline")
		return false
	case PipelineVM:
		inv.report(SeverityError, "gree does not compile VM dialect input (IREE_COMPILER_PIPELINE_VM); compile the source program with the standard pipeline")
		return false
	default:
		inv.report(SeverityError, fmt.Sprintf("unknown pipeline %d", p))
		return false
	}
	var extra []string
	if to != "" && to != "end" {
		extra = append(extra, "--compile-to="+to)
	}
	if inv.dumpTo != "" {
		extra = append(extra, "--mlir-print-ir-after-all")
	}
	out, ok := inv.run(inv.src, extra)
	if !ok {
		return false
	}
	inv.result, inv.ir, inv.phase = out, to != "" && to != "end", to
	if inv.ir || textOutput(inv.session.args()) {
		inv.ir = true
	}
	return true
}

// textOutput reports whether flags ask for the module as text.
func textOutput(args []string) bool {
	for _, f := range cli.SessionFlagList(args, true) {
		if strings.HasPrefix(f, "--iree-vm-bytecode-module-output-format=") && !strings.HasSuffix(f, "=flatbuffer-binary") {
			return true
		}
	}
	return false
}

// RunPassPipeline would run a textual MLIR pass pipeline; gree's compiler
// is not MLIR, so it reports that and returns false.
func (inv *Invocation) RunPassPipeline(pipeline string) bool {
	inv.report(SeverityError, fmt.Sprintf("gree runs its own phases, not MLIR pass pipelines ('%s'); run the standard pipeline, with a compile-to phase to stop early", pipeline))
	return false
}

// run compiles src with the session's flags and extra, as iree-compile
// does, reporting its stderr as diagnostics (and, with a dump directory,
// writing the IR dumps there).
func (inv *Invocation) run(src *Source, extra []string) ([]byte, bool) {
	args := append(inv.session.args(), extra...)
	in := io.Reader(bytes.NewReader(src.Data))
	args = append(args, "-o", "-", "-")
	var stdout, stderr bytes.Buffer
	code := cli.Main(args, in, &stdout, &stderr)
	diags := strings.ReplaceAll(stderr.String(), "<stdin>", src.Name)
	if inv.dumpTo != "" {
		var err error
		if diags, err = writePhaseDumps(inv.dumpTo, src.Name, diags); err != nil {
			inv.report(SeverityError, err.Error())
			return nil, false
		}
	}
	if code != 0 {
		inv.report(SeverityError, diags)
		return nil, false
	}
	inv.report(SeverityNote, diags)
	return stdout.Bytes(), true
}

// dumpHeader starts each IR dump --mlir-print-ir-after-all writes.
var dumpHeader = regexp.MustCompile(`(?m)^// -----// IR Dump After (\S+) //----- //\n`)

// writePhaseDumps moves the IR dumps out of diags into files under dir and
// returns the rest of diags.
func writePhaseDumps(dir, name, diags string) (string, error) {
	locs := dumpHeader.FindAllStringSubmatchIndex(diags, -1)
	if len(locs) == 0 {
		return diags, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return diags, fmt.Errorf("cannot create the phase dump directory: %w", err)
	}
	stem := strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	rest := diags[:locs[0][0]]
	for i, l := range locs {
		end := len(diags)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		phase := diags[l[2]:l[3]]
		file := filepath.Join(dir, fmt.Sprintf("%s.%d.%s.mlir", stem, i+1, phase))
		if err := os.WriteFile(file, []byte(diags[l[1]:end]), 0o644); err != nil {
			return diags, fmt.Errorf("cannot write a phase dump: %w", err)
		}
	}
	return rest, nil
}

// OutputIR writes the invocation's IR as text: the parsed program, the IR
// at the compile-to phase, or, after a whole pipeline, the VM module.
func (inv *Invocation) OutputIR(out io.Writer) error {
	if inv.result == nil {
		return fmt.Errorf("no IR to output: parse a source first")
	}
	if inv.ir {
		_, err := out.Write(inv.result)
		return err
	}
	m, err := module.Decode(inv.result)
	if err != nil {
		return err
	}
	_, err = io.WriteString(out, module.Disassemble(m))
	return err
}

// OutputIRBytecode reports that gree writes no MLIR bytecode.
func (inv *Invocation) OutputIRBytecode(io.Writer, int) error {
	return fmt.Errorf("gree writes no MLIR bytecode; output the IR as text (ireeCompilerInvocationOutputIR)")
}

// OutputVMBytecode writes the compiled module.
func (inv *Invocation) OutputVMBytecode(out io.Writer) error {
	switch {
	case inv.result == nil || inv.phase == "start" && inv.ir:
		return fmt.Errorf("no module to output: run the standard pipeline first (ireeCompilerInvocationPipeline)")
	case inv.ir:
		return fmt.Errorf("no module to output: the pipeline stopped after the '%s' phase or wrote text; output its IR instead", inv.phase)
	}
	_, err := out.Write(inv.result)
	return err
}

// OutputVMCSource reports that gree has no C module output.
func (inv *Invocation) OutputVMCSource(io.Writer) error {
	return fmt.Errorf("gree does not emit VM modules as C source; output VM bytecode (ireeCompilerInvocationOutputVMBytecode)")
}

// OutputHALExecutable reports that gree does not compile lone executables.
func (inv *Invocation) OutputHALExecutable(io.Writer) error {
	return fmt.Errorf("gree does not compile a lone hal.executable; compile the whole program and output VM bytecode")
}
