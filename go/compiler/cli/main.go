package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/gree-ml/gree/go/compiler"
	"github.com/gree-ml/gree/go/compiler/input"
	"github.com/gree-ml/gree/go/schemas/module"
)

// Version is printed by --version.
const Version = "0.1.0"

// Main runs iree-compile with args (without the program name) and returns
// its exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	p, err := parseArgs(args)
	if err != nil {
		fmt.Fprintf(stderr, "iree-compile: %v\n", err)
		return 1
	}
	for _, n := range p.notes {
		fmt.Fprintln(stderr, n)
	}
	if p.bool("help") {
		fmt.Fprint(stdout, usage())
		return 0
	}
	if p.bool("version") {
		fmt.Fprintf(stdout, "gree iree-compile version %s\n", Version)
		fmt.Fprintf(stdout, "llvm-cpu: %s\n", compiler.LLVMCPUDescribe())
		return 0
	}
	if p.bool("iree-hal-list-target-backends") {
		fmt.Fprint(stdout, "Registered target backends:\n")
		for _, name := range compiler.TargetNames() {
			fmt.Fprintf(stdout, "  %s\n", name)
		}
		return 0
	}
	if p.bool("iree-llvmcpu-list-targets") {
		return listLLVMTargets(stdout, stderr)
	}
	if prefix := p.str("gree-generate-signing-key", ""); prefix != "" {
		return generateSigningKey(prefix, stdout, stderr)
	}
	for _, b := range commaList(p, "iree-hal-target-backends") {
		if !registered(b) {
			fmt.Fprintf(stderr, "error: %v\n", notRegistered(b))
			return 1
		}
	}
	if len(p.positional) == 0 {
		fmt.Fprint(stderr, "iree-compile: Not enough positional command line arguments specified!\nMust specify at least 1 positional argument: See: iree-compile --help\n")
		return 1
	}
	if len(p.positional) > 1 {
		fmt.Fprintf(stderr, "iree-compile: Too many positional arguments specified! (%s)\nCan specify at most 1 positional argument: See: iree-compile --help\n", strings.Join(p.positional, " "))
		return 1
	}
	backends, err := resolveBackends(p)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 1
	}
	path := p.positional[0]
	var src []byte
	if path == "-" {
		src, err = io.ReadAll(stdin)
		path = "<stdin>"
	} else {
		src, err = os.ReadFile(path)
	}
	if err != nil {
		fmt.Fprintf(stderr, "iree-compile: could not open input file '%s': %v\n", p.positional[0], err)
		return 1
	}
	format := p.str("iree-vm-bytecode-module-output-format", "flatbuffer-binary")
	// textFormat, when set, turns the compiled module into text.
	textFormat := ""
	switch f := strings.ReplaceAll(strings.ToLower(format), "_", "-"); f {
	case "flatbuffer-binary":
	case "flatbuffer-text", "mlir-text":
		textFormat = f
	default:
		fmt.Fprintf(stderr, "iree-compile: for the --iree-vm-bytecode-module-output-format option: Cannot find option named '%s'!\n", format)
		return 1
	}
	model := p.str("iree-execution-model", "async-internal")
	switch model {
	case "async-internal", "async-external":
	case "host-only", "inline-static", "inline-dynamic":
		fmt.Fprintf(stderr, "iree-compile: --iree-execution-model=%s is not supported by gree; use async-internal (the default) or async-external\n", model)
		return 1
	default:
		fmt.Fprintf(stderr, "iree-compile: for the --iree-execution-model option: Cannot find option named '%s'! (use async-internal or async-external)\n", model)
		return 1
	}
	if pl := p.str("iree-preprocessing-pass-pipeline", ""); pl != "" {
		note, err := checkPreprocessing(pl)
		if err != nil {
			fmt.Fprintf(stderr, "iree-compile: %v\n", err)
			return 1
		}
		if note != "" {
			fmt.Fprintln(stderr, note)
		}
	}
	for _, f := range []string{"mlir-print-ir-before", "mlir-print-ir-after"} {
		for _, ph := range p.list(f) {
			if !slices.Contains(compiler.InstrumentedPhases, ph) {
				fmt.Fprintf(stderr, "iree-compile: --%s=%s: gree has no phase or pass of that name; its phases are %s\n", f, ph, strings.Join(compiler.InstrumentedPhases, ", "))
				return 1
			}
		}
	}
	minParamSize, err := compiler.ParseParameterSize(p.str("iree-parameter-export-minimum-size", ""))
	if err != nil {
		fmt.Fprintf(stderr, "iree-compile: %v\n", err)
		return 1
	}
	// --iree-hal-dump-executable-files-to is the default of the three.
	dumpAll := p.str("iree-hal-dump-executable-files-to", "")
	opts := compiler.Options{
		Filename:       path,
		ExecutionModel: model,
		InputType:      p.str("iree-input-type", "auto"),
		Backends:       backends,
		CompileTo:      p.str("compile-to", ""),
		// Dispatch tracing is a debugging aid, off by default.
		TraceDispatches: p.bool("iree-flow-trace-dispatch-tensors"),
		Vulkan: compiler.VulkanOptions{
			Target:         p.str("iree-vulkan-target", ""),
			TargetFeatures: p.str("iree-vulkan-target-features", ""),
		},
		CUDA: compiler.CUDAOptions{
			Target:         p.str("iree-cuda-target", ""),
			TargetFeatures: p.str("iree-cuda-target-features", ""),
		},
		TestGPUStrategy: p.str("gree-test-gpu-strategy", ""),
		Parameters: compiler.ParameterOptions{
			Export:            p.str("iree-parameter-export", ""),
			ExportMinimumSize: minParamSize,
			Splat:             p.str("iree-parameter-splat", ""),
		},
		Demote: input.DemoteOptions{
			F64ToF32:  p.bool("iree-input-demote-f64-to-f32"),
			I64ToI32:  p.bool("iree-input-demote-i64-to-i32"),
			F16ToF32:  p.bool("iree-input-promote-f16-to-f32"),
			BF16ToF32: p.bool("iree-input-promote-bf16-to-f32"),
			F32ToF16:  p.bool("iree-input-demote-f32-to-f16"),
		},
		LLVMCPU: compiler.LLVMCPUOptions{
			TargetCPU:         p.str("iree-llvmcpu-target-cpu", ""),
			TargetCPUFeatures: p.str("iree-llvmcpu-target-cpu-features", ""),
			TargetTriple:      p.str("iree-llvmcpu-target-triple", ""),
			OptLevel:          p.str("iree-opt-level", ""),
		},
		Instrument: compiler.InstrumentOptions{
			Timing:         p.bool("mlir-timing"),
			PrintBeforeAll: p.bool("mlir-print-ir-before-all"),
			PrintAfterAll:  p.bool("mlir-print-ir-after-all"),
			PrintBefore:    p.list("mlir-print-ir-before"),
			PrintAfter:     p.list("mlir-print-ir-after"),
			Report:         stderr,
		},
		Dump: compiler.DumpOptions{
			Sources:       p.str("iree-hal-dump-executable-sources-to", dumpAll),
			Intermediates: p.str("iree-hal-dump-executable-intermediates-to", dumpAll),
			Binaries:      p.str("iree-hal-dump-executable-binaries-to", dumpAll),
		},
	}
	var out []byte
	if p.bool("split-input-file") {
		// Each part is compiled on its own; outputs are separated as the
		// input was.
		outs, cerr := compiler.CompileSplit(src, opts)
		for i := range outs {
			if cerr == nil {
				outs[i], cerr = moduleText(outs[i], textFormat, opts.CompileTo)
			}
		}
		out = bytes.Join(outs, []byte("\n// -----\n"))
		err = cerr
	} else {
		dest := p.str("o", "-")
		var file *lazyFile
		if dest != "-" && textFormat == "" && p.str("gree-sign-key", "") == "" {
			// The module goes straight to its file as it is serialized.
			file = &lazyFile{path: dest}
			opts.Output = file
		}
		out, err = compiler.Compile(src, opts)
		if file != nil {
			if cerr := file.finish(err); err == nil && cerr != nil {
				fmt.Fprintf(stderr, "iree-compile: cannot write output file '%s': %v\n", dest, cerr)
				return 1
			}
			if err == nil && file.f != nil {
				return 0
			}
		}
		if err == nil {
			out, err = moduleText(out, textFormat, opts.CompileTo)
		}
	}
	if key := p.str("gree-sign-key", ""); key != "" && err == nil {
		if opts.CompileTo != "" || textFormat != "" || p.bool("split-input-file") {
			err = fmt.Errorf("iree-compile: --gree-sign-key signs a module: it cannot be combined with --compile-to, a text output format or --split-input-file")
		} else {
			out, err = signModule(out, key)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "%v\n", err)
		return 1
	}
	dest := p.str("o", "-")
	if dest == "-" {
		stdout.Write(out)
		return 0
	}
	if err := os.WriteFile(dest, out, 0o644); err != nil {
		fmt.Fprintf(stderr, "iree-compile: cannot write output file '%s': %v\n", dest, err)
		return 1
	}
	return 0
}

// moduleText returns a compiled module as the text format asks for (JSON
// for flatbuffer-text, the VM dialect's structure for mlir-text); out
// unchanged for the binary format or when compilation stopped early.
func moduleText(out []byte, format, compileTo string) ([]byte, error) {
	if format == "" || (compileTo != "" && compileTo != "end") {
		return out, nil
	}
	m, err := module.Decode(out)
	if err != nil {
		return nil, fmt.Errorf("iree-compile: reading the compiled module back: %w", err)
	}
	if format == "mlir-text" {
		return []byte(module.MLIRText(m)), nil
	}
	return module.JSON(m)
}

// resolveBackends turns the target flags into executable backends: the
// legacy --iree-hal-target-backends list, and each --iree-hal-target-device
// with its device's backends.
func resolveBackends(p *parsed) ([]string, error) {
	backends := commaList(p, "iree-hal-target-backends")
	devices := map[string]bool{"local": true, "cuda": true, "hip": true, "amdgpu": true, "vulkan": true, "metal": true, "webgpu": true}
	specs := p.list("iree-hal-target-device")
	if err := oneDevice(specs); err != nil {
		return nil, err
	}
	for _, spec := range specs {
		for _, alias := range strings.Split(spec, ",") {
			alias = strings.Trim(alias, `" `)
			if _, after, ok := strings.Cut(alias, "="); ok {
				alias = after
			}
			if i := strings.IndexByte(alias, '['); i >= 0 {
				alias = alias[:i]
			}
			alias = strings.Trim(alias, `"`)
			if !devices[alias] {
				return nil, fmt.Errorf("unregistered device alias \"%s\"; ensure it is linked into the compiler (available = [ 'amdgpu' 'cuda' 'hip' 'local' 'metal' 'vulkan' 'webgpu' ])", alias)
			}
			if alias != "local" {
				// A GPU device's one backend (IREE's default for it).
				b, ok := deviceBackends[alias]
				if !ok || !registered(b) {
					return nil, fmt.Errorf("device alias \"%s\" does not provide any executable targets in gree yet; registered backends: [%s]", alias, strings.Join(compiler.TargetNames(), ", "))
				}
				backends = append(backends, b)
				continue
			}
			local := commaList(p, "iree-hal-local-target-device-backends")
			if len(local) == 0 {
				return nil, fmt.Errorf("device alias \"local\" does not provide any executable targets; ensure device-specific compilation backends have been specified (e.g. --iree-hal-local-target-device-backends=vmvx)")
			}
			for _, b := range local {
				if !registered(b) {
					return nil, notRegistered(b)
				}
				backends = append(backends, b)
			}
		}
	}
	// The same backend named twice (legacy flag and device) is one target.
	seen := map[string]bool{}
	var out []string
	for _, b := range backends {
		if !seen[b] {
			seen[b] = true
			out = append(out, b)
		}
	}
	return out, nil
}

// deviceBackends maps a GPU device alias of --iree-hal-target-device to
// the executable backend it compiles for.
var deviceBackends = map[string]string{"vulkan": "vulkan-spirv", "cuda": "cuda"}

// notRegistered is the error for a backend that cannot be used: the
// reason a registered one is unavailable (e.g. LLVM missing), or the list
// of registered backends.
func notRegistered(name string) error {
	if err := compiler.TargetUnavailable(name); err != nil {
		return fmt.Errorf("target backend '%s' is not available: %v", name, err)
	}
	return fmt.Errorf("target backend '%s' not registered; registered backends: [%s]", name, strings.Join(compiler.TargetNames(), ", "))
}

func registered(name string) bool {
	for _, n := range compiler.TargetNames() {
		if n == name {
			return true
		}
	}
	return false
}

// listLLVMTargets prints the targets llvm-cpu can build for
// (--iree-llvmcpu-list-targets).
func listLLVMTargets(stdout, stderr io.Writer) int {
	targets, err := compiler.LLVMCPUTargets()
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 1
	}
	fmt.Fprint(stdout, "  Registered Targets:\n")
	for _, t := range targets {
		fmt.Fprintf(stdout, "    %s\n", t)
	}
	return 0
}

// generateSigningKey writes a new Ed25519 key pair to prefix.key (PEM
// PKCS #8, readable by its owner only) and prefix.pub (PEM PKIX)
// (--gree-generate-signing-key) and prints the key's ID.
func generateSigningKey(prefix string, stdout, stderr io.Writer) int {
	priv, pub, err := module.GenerateKey()
	if err != nil {
		fmt.Fprintf(stderr, "iree-compile: %v\n", err)
		return 1
	}
	f, err := os.OpenFile(prefix+".key", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		fmt.Fprintf(stderr, "iree-compile: cannot create the private key file (it must not exist yet): %v\n", err)
		return 1
	}
	_, err = f.Write(priv)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.WriteFile(prefix+".pub", pub, 0o644)
	}
	if err != nil {
		fmt.Fprintf(stderr, "iree-compile: writing the key pair: %v\n", err)
		return 1
	}
	k, _ := module.ParsePublicKey(pub)
	fmt.Fprintf(stdout, "wrote %s.key (private: keep it secret) and %s.pub (public: --module_trust=%s.pub); key %s\n", prefix, prefix, prefix, module.KeyID(k))
	return 0
}

// signModule signs a compiled module with the private key in keyFile
// (--gree-sign-key).
func signModule(out []byte, keyFile string) ([]byte, error) {
	data, err := os.ReadFile(keyFile)
	if err != nil {
		return nil, fmt.Errorf("--gree-sign-key: %v", err)
	}
	key, err := module.ParsePrivateKey(data)
	if err != nil {
		return nil, fmt.Errorf("--gree-sign-key=%s: %v", keyFile, err)
	}
	signed, err := module.Sign(out, key)
	if err != nil {
		return nil, fmt.Errorf("--gree-sign-key: signing the module: %v", err)
	}
	return signed, nil
}

// lazyFile is the output file of a compile that streams its module: it is
// created at the first write (a compile that fails earlier leaves no file)
// and removed again when the compile fails after writing began.
type lazyFile struct {
	path string
	f    *os.File
	err  error
}

func (l *lazyFile) Write(b []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	if l.f == nil {
		if l.f, l.err = os.Create(l.path); l.err != nil {
			return 0, l.err
		}
	}
	n, err := l.f.Write(b)
	if err != nil {
		l.err = err
	}
	return n, err
}

// finish closes the file; when the compile failed (compileErr) or the file
// cannot be completed, the partial file is removed.
func (l *lazyFile) finish(compileErr error) error {
	if l.f == nil {
		return l.err
	}
	err := l.f.Close()
	if l.err != nil {
		err = l.err
	}
	if compileErr != nil || err != nil {
		os.Remove(l.path)
	}
	return err
}
