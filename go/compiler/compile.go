package compiler

import (
	"fmt"
	"io"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/gree-ml/gree/go/compiler/codegen"
	"github.com/gree-ml/gree/go/compiler/flow"
	"github.com/gree-ml/gree/go/compiler/input"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/onnx"
	"github.com/gree-ml/gree/go/compiler/parser"
	"github.com/gree-ml/gree/go/compiler/target/gpu"
	"github.com/gree-ml/gree/go/compiler/vm"
	"github.com/gree-ml/gree/go/schemas/module"
	"github.com/gree-ml/gree/go/status"
)

// Phases are the compilation phases in order, with IREE's names; Compile
// can stop after any of them (Options.CompileTo) and return the IR.
var Phases = []string{"start", "input", "abi", "preprocessing", "global-optimization", "dispatch-creation", "flow", "stream", "executable-sources", "executable-configurations", "executable-targets", "hal", "vm", "end"}

// Options configures one compilation.
type Options struct {
	// Filename names the input in diagnostics.
	Filename string
	// InputType is the --iree-input-type value ("" = auto).
	InputType string
	// Backends are the executable target backends (e.g. "vmvx").
	Backends []string
	// CompileTo stops after a phase and returns its IR as text.
	CompileTo string
	// TraceDispatches prints every dispatch's input and output tensors
	// at run time (--iree-flow-trace-dispatch-tensors).
	TraceDispatches bool
	// ExecutionModel is --iree-execution-model: "async-internal" (or "",
	// the default: functions run to completion) or "async-external"
	// (IREE's coarse-fences ABI).
	ExecutionModel string
	// FirstLine is the line number of src's first line in the file (for
	// parts of a split input file).
	FirstLine int
	// LLVMCPU holds the --iree-llvmcpu-target-* flags.
	LLVMCPU LLVMCPUOptions
	// Vulkan holds the --iree-vulkan-target* flags.
	Vulkan VulkanOptions
	// CUDA holds the --iree-cuda-target* flags.
	CUDA CUDAOptions
	// Dump holds the --iree-hal-dump-executable-*-to directories, which
	// every backend writes its executables' files to.
	Dump DumpOptions
	// Instrument holds --mlir-timing and the --mlir-print-ir-* flags.
	Instrument InstrumentOptions
	// Output, when set, receives the module file as it is serialized
	// (Compile then returns no bytes): the weights are written from where
	// they lie instead of being gathered into one buffer first. Compiles
	// that stop early (CompileTo) still return their text.
	Output io.Writer
	// Demote holds the --iree-input-demote-*/--iree-input-promote-* type
	// conversions applied to the whole program after input conversion.
	Demote input.DemoteOptions
	// Parameters holds the --iree-parameter-export/-splat flags (params.go).
	Parameters ParameterOptions
	// TestGPUStrategy, when set, names a Vulkan target whose GPU codegen
	// strategy and legalization a CPU target (vmvx) compiles with
	// (--gree-test-gpu-strategy): thread-level kernels run on the CPU
	// drivers, which is how tests cover the GPU path's kernels without a
	// GPU.
	TestGPUStrategy string
}

// CUDAOptions are the cuda target's flags.
type CUDAOptions struct {
	// Target is --iree-cuda-target (or --iree-hal-cuda-llvm-target-arch):
	// one or more comma-separated targets ("sm_80", "ampere,hopper");
	// "" is IREE's default, sm_60. Each becomes a variant of every
	// executable, and the runtime loads the best the device runs.
	Target string
	// TargetFeatures is --iree-cuda-target-features ("+ptx78").
	TargetFeatures string
}

// VulkanOptions are the vulkan-spirv target's flags.
type VulkanOptions struct {
	// Target is --iree-vulkan-target (or its older spelling
	// --iree-vulkan-target-triple); "" is IREE's default,
	// vp_android_baseline_2022.
	Target string
	// TargetFeatures is --iree-vulkan-target-features
	// ("spirv:v1.6,cap:Shader,…"), replacing the target's.
	TargetFeatures string
}

// Backend is a target backend's code generator.
type Backend struct {
	Target
	// Format names the executable format the runtime loads.
	Format string
	// Strategy drives codegen for this target.
	Strategy codegen.Strategy
	// Emit turns kernels into one executable.
	Emit func([]*kir.Kernel) ([]byte, error)
	// EmitWith, when set, is used instead of Emit: it also sees the
	// options and returns module attributes to record (target CPU, …).
	EmitWith func([]*kir.Kernel, Options) ([]byte, []module.Attr, error)
	// Configure, when set, returns the backend the options make of this
	// one: a GPU backend resolves its device target from its flags, and
	// with it its strategy, Legalize and emitter.
	Configure func(Options) (*Backend, error)
	// Legalize, when set, rewrites each kernel codegen made before it is
	// emitted (GPU targets: gpu.Legalize).
	Legalize func(*kir.Kernel) error
}

var backends = map[string]*Backend{}

// RegisterBackend registers a target backend that compiles end to end.
func RegisterBackend(b *Backend) {
	RegisterTarget(b.Target)
	mu.Lock()
	backends[b.Name] = b
	mu.Unlock()
}

// placeAlign is the offset alignment of in-place views of a module for
// backends bes (vm.Input.PlaceAlign): a cache line where every target runs
// on the host, 256 bytes (the largest minStorageBufferOffsetAlignment
// Vulkan allows; CUDA's allocation alignment) where a GPU runs.
func placeAlign(bes []*Backend) int64 {
	for _, b := range bes {
		if b.Device != "local" {
			return 256
		}
	}
	return 64
}

func phaseIndex(name string) int {
	for i, p := range Phases {
		if p == name {
			return i
		}
	}
	return -1
}

// Compile compiles MLIR source text to a module file (or, with CompileTo,
// to the text of the IR after that phase). Errors are diagnostics naming
// file:line:col and the op.
func Compile(src []byte, opts Options) (out []byte, err error) {
	defer lowerGCTarget()()
	defer func() {
		// A panic is a compiler bug; it must not take the process down.
		if p := recover(); p != nil {
			out, err = nil, status.FromPanic(p, "the compiler (please include the input)")
		}
	}()
	stop := len(Phases) - 1
	if opts.CompileTo != "" {
		if stop = phaseIndex(opts.CompileTo); stop < 0 {
			return nil, fmt.Errorf("unknown phase '%s' for --compile-to (expected one of %s)", opts.CompileTo, strings.Join(Phases, ", "))
		}
	}
	switch opts.InputType {
	case "", "auto", "none", "stablehlo", "stablehlo_xla":
		// StableHLO ops are converted as they are met (a partial op set;
		// others are errors naming the op).
	case "tosa":
		// TOSA ops are converted as they are met (auto detects them too).
	case "onnx", "torch", "onnx_torch":
		// torch-onnx (IREE's ONNX importer output) is detected per function.
	default:
		return nil, fmt.Errorf("input type '%s' is not supported by gree yet (supported: auto, none, stablehlo — linalg, arith, math, tensor, scf, util and StableHLO programs)", opts.InputType)
	}
	name := opts.Filename
	if name == "" {
		name = "<stdin>"
	}
	in := newInstrument(opts.Instrument)
	defer in.report()
	var blobs []*ir.Resource
	var batch *onnx.BatchImport // a .onnx input's import, dynamic batch plan included
	if strings.HasSuffix(strings.ToLower(name), ".onnx") || onnx.LooksLikeONNX(src) {
		// An ONNX model: import it in process (as iree-import-onnx would,
		// with statically known shape computations folded), then compile
		// the torch-onnx MLIR, its weights handed to the parser as they
		// are in the model (not printed in hex and parsed back).
		size := len(src)
		err := in.phase("import-onnx", nil, func() (err error) {
			src, blobs, batch, err = importONNX(src, name)
			return err
		})
		if err != nil {
			return nil, err
		}
		if size >= releaseAfterImport {
			// The decoded protobuf and the import's temporaries are
			// garbage now (the weights live on in blobs, slices of the
			// model file's bytes): give their pages back before codegen
			// and serialization allocate, rather than when the heap next
			// doubles.
			debug.FreeOSMemory()
		}
	}
	var m *ir.Module
	if err := in.phase("parse", nil, func() (err error) {
		m, err = parser.ParseWithOptions(src, parser.Options{Filename: name, FirstLine: opts.FirstLine, Resources: blobs})
		return err
	}); err != nil {
		return nil, err
	}
	irText := func() string { return m.String() }
	printIR := func() ([]byte, error) { return []byte(m.String()), nil }
	if stop <= phaseIndex("start") {
		return printIR()
	}
	if err := in.phase("input", irText, func() error {
		if err := input.Run(m); err != nil {
			if batch != nil && batch.Refused != nil {
				return fmt.Errorf("%w\n(the model has a dynamic batch; gree compiles it by running one item at a time, which it cannot do here: %v)", err, batch.Refused)
			}
			return err
		}
		if batch != nil && batch.Plan != nil {
			if err := wrapBatch(m, batch.Plan); err != nil {
				return err
			}
		}
		if err := input.Demote(m, opts.Demote); err != nil {
			return err
		}
		return applyParameterOptions(m, opts.Parameters)
	}); err != nil {
		return nil, err
	}
	if stop <= phaseIndex("global-optimization") {
		return printIR()
	}
	// The backends (none without a valid one, an error only once there
	// are dispatches to compile) decide which dispatches flow merges. The
	// first is the target of the host program's dispatch interface; with
	// several, each region also gets a kernel per other target (variants.go).
	bes, beErr := selectBackends(opts.Backends)
	var be *Backend
	if beErr == nil {
		// A bad target flag is an error even without dispatches.
		if bes, err = configureBackends(bes, opts); err != nil {
			return nil, err
		}
		be = bes[0]
	}
	var fo flow.Options
	if be != nil {
		fo.Chain = chainOptions(bes)
		fo.Recurrence = recurrenceOptions(bes)
		for _, be := range bes {
			fo.Untap = fo.Untap || !be.Strategy.ContractTaps
		}
	}
	if err := in.phase("flow", irText, func() error { return flow.RunWith(m, fo) }); err != nil {
		return nil, err
	}
	if stop <= phaseIndex("stream") {
		return printIR()
	}
	regions := dispatchRegions(m)
	if len(regions) > 0 && beErr != nil {
		return nil, beErr
	}
	refs := map[*ir.Operation]vm.DispatchRef{}
	var kernels []*kir.Kernel
	// variantKernels[t] are the kernels of target bes[t+1].
	variantKernels := make([][]*kir.Kernel, max(len(bes)-1, 0))
	// The host module and the kernels made so far: what the print flags
	// show around codegen and --compile-to=executable-targets prints.
	withKernels := func() string {
		var b strings.Builder
		b.WriteString(m.String())
		for _, k := range kernels {
			b.WriteString("\n")
			b.WriteString(k.String())
		}
		return b.String()
	}
	if err := in.phase("codegen", withKernels, func() error {
		// Regions whose kernels (for every target) are the same program,
		// differing only in the buffers they bind, share one entry point:
		// each program is compiled once.
		entries := map[string]int{}
		for _, r := range regions {
			d, err := lowerRegion(be, r, dispatchName(r))
			if err != nil {
				return err
			}
			ref := vm.DispatchRef{Dispatch: d, Executable: 0}
			key := kir.Fingerprint(d.Kernel)
			for _, vb := range bes[1:] {
				k, err := lowerVariant(be, &ref, vb, r, dispatchName(r))
				if err != nil {
					return err
				}
				ref.Variants = append(ref.Variants, k)
				key += "\x00" + kir.Fingerprint(k)
			}
			if e, ok := entries[key]; ok {
				ref.Entry = e
				refs[r] = ref
				continue
			}
			ref.Entry = len(kernels)
			entries[key] = ref.Entry
			for t, k := range ref.Variants {
				variantKernels[t] = append(variantKernels[t], k)
			}
			refs[r] = ref
			kernels = append(kernels, d.Kernel)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if stop <= phaseIndex("executable-targets") {
		return []byte(withKernels()), nil
	}
	var execs []module.Executable
	attrs := []module.Attr{{Key: "compiler", Value: "gree"}}
	if be != nil && len(kernels) > 0 {
		if err := in.phase("executable-targets", nil, func() error {
			x, extra, err := emitVariants(bes, append([][]*kir.Kernel{kernels}, variantKernels...), opts)
			execs, attrs = x, append(attrs, extra...)
			return err
		}); err != nil {
			return nil, err
		}
	}
	var mod *module.Module
	if err := in.phase("vm", func() string { return module.Disassemble(mod) }, func() (err error) {
		mod, err = vm.Emit(&vm.Input{Module: m, Dispatches: refs, Executables: execs, Attrs: attrs, Trace: opts.TraceDispatches,
			CoarseFences: opts.ExecutionModel == "async-external", PlaceAlign: placeAlign(bes)})
		return err
	}); err != nil {
		return nil, err
	}
	if stop <= phaseIndex("vm") {
		return []byte(module.Disassemble(mod)), nil
	}
	err = in.phase("serialize", nil, func() error {
		if opts.Output == nil {
			out = module.Encode(mod)
			return nil
		}
		if _, err := module.EncodeTo(opts.Output, mod); err != nil {
			return status.Errorf(status.Unavailable, "writing the compiled module: %v", err)
		}
		return nil
	})
	return out, err
}

// releaseAfterImport is the model file size from which Compile returns the
// import's garbage to the OS at once (a forced collection costs
// milliseconds; below this size it would not lower the peak noticeably).
const releaseAfterImport = 32 << 20

// importONNX converts an ONNX model to torch-onnx MLIR text and the
// resource blobs it references (the model's tensor bytes); external data
// is read from the model file's directory.
func importONNX(src []byte, name string) ([]byte, []*ir.Resource, *onnx.BatchImport, error) {
	m, err := onnx.ParseModelAliased(src, name)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := onnx.LoadExternalData(m, filepath.Dir(name)); err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	res, err := onnx.ImportBatched(m, onnx.Options{FoldShapes: true, NodeLocs: true, LocFile: name})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	return res.Text, res.Blobs, res, nil
}

// dispatchName names a region's kernel as IREE does: the enclosing
// function's name, "_dispatch_" and the region's number in the function.
func dispatchName(r *ir.Operation) string {
	fn := r.ParentOp()
	for fn != nil && fn.Name != "func.func" && fn.Name != "util.func" {
		fn = fn.ParentOp()
	}
	name, n := "module", 0
	if fn != nil {
		if s, ok := fn.Attr("sym_name").(*ir.StringAttr); ok {
			name = s.Value
		}
		found := false
		fn.Walk(func(op *ir.Operation) bool {
			if op == r {
				found = true
			}
			if op.Name == flow.RegionName {
				if !found {
					n++
				}
				return false
			}
			return !found
		})
	}
	return fmt.Sprintf("%s_dispatch_%d", name, n)
}

func dispatchRegions(m *ir.Module) []*ir.Operation {
	var out []*ir.Operation
	m.Op.Walk(func(op *ir.Operation) bool {
		if op.Name == flow.RegionName {
			out = append(out, op)
			return false
		}
		return true
	})
	return out
}

// configureBackend applies the options to the selected backend: its own
// Configure, then --gree-test-gpu-strategy.
func configureBackend(be *Backend, opts Options) (*Backend, error) {
	if be.Configure != nil {
		c, err := be.Configure(opts)
		if err != nil {
			return nil, err
		}
		be = c
	}
	if opts.TestGPUStrategy == "" {
		return be, nil
	}
	if be.Name != "vmvx" && be.Name != "vmvx-inline" {
		return nil, fmt.Errorf("--gree-test-gpu-strategy compiles vmvx's kernels with a GPU target's strategy; the target backend is %s", be.Name)
	}
	t, err := gpu.VulkanTarget(opts.TestGPUStrategy, "")
	if err != nil {
		return nil, fmt.Errorf("--gree-test-gpu-strategy: %w", err)
	}
	c := *be
	c.Strategy = gpu.Strategy(t)
	c.Legalize = func(k *kir.Kernel) error { return gpu.Legalize(k, t) }
	return &c, nil
}

// CompileSplit compiles each "// -----"-separated part of src on its own
// (--split-input-file), returning the outputs in order and every part's
// error joined.
func CompileSplit(src []byte, opts Options) ([][]byte, error) {
	var outs [][]byte
	var errs []string
	for _, c := range parser.SplitInputFile(src) {
		o := opts
		o.FirstLine = c.Line
		out, err := Compile(c.Text, o)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		outs = append(outs, out)
	}
	if len(errs) > 0 {
		return outs, fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	return outs, nil
}
