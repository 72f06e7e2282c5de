package onnx

import (
	"fmt"
	"os"
	"strings"

	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/onnx/onnxpb"
	"github.com/gree-ml/gree/go/status"
)

// Options configures an import.
type Options struct {
	// DataDir holds external data files ("" = the model's directory).
	DataDir string
	// OpsetVersion, when newer than the model's default-domain opset,
	// upgrades the model to it first (see opset.go).
	OpsetVersion int64
	// FoldShapes replaces shape computations whose values are known
	// statically by onnx.Constant literals and drops the ops that only fed
	// them (iree-compile does this; iree-import-onnx by default does not,
	// to print what IREE prints).
	FoldShapes bool
	// NoInference disables shape inference: only declared types are used.
	NoInference bool
	// NoDataProp turns off data propagation (--no-data-prop): shapes use
	// literal values only, as ONNX's inference with data_prop=False.
	NoDataProp bool
	// NodeLocs gives every torch.operator made from a node the location
	// loc("<node>"("<LocFile>":line:col)): the node's name (or
	// "<OpType> #<index>" when it has none) around the op's position in
	// the printed text, so the compiler's diagnostics name the node
	// (iree-compile does this; iree-import-onnx prints what IREE prints).
	NodeLocs bool
	// LocFile names the file in NodeLocs locations.
	LocFile string
	// ExternalizeParams turns the main graph's floating-point
	// initializers of at least ParamsMinElements elements into parameter
	// globals in scope ParamsScope ("" = "model"); see params.go.
	ExternalizeParams bool
	ParamsMinElements int64
	ParamsScope       string
	// ExternalizeInputs (with ExternalizeParams) makes the main graph's
	// inputs from index InputParamsFrom on (among the inputs that are not
	// initializers) parameter globals too; InputParamsFrom must index an
	// input (iree-import-onnx --externalize-inputs-threshold).
	ExternalizeInputs bool
	InputParamsFrom   int
}

// ImportFile loads an ONNX model file and imports it (see Import).
func ImportFile(path string, opts Options) ([]byte, error) {
	m, err := LoadModel(path, opts.DataDir)
	if err != nil {
		return nil, err
	}
	out, err := Import(m, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// Import converts a decoded model (external data loaded) into MLIR text in
// the torch-onnx dialect, as IREE's importer prints it.
func Import(m *onnxpb.ModelProto, opts Options) ([]byte, error) {
	out, _, err := ImportWithParams(m, opts)
	return out, err
}

// ImportWithParams is Import that also returns the initializers
// Options.ExternalizeParams made parameters, for a parameter archive.
func ImportWithParams(m *onnxpb.ModelProto, opts Options) (out []byte, params []Param, err error) {
	out, params, _, err = importModel(m, opts, false)
	return out, params, err
}

// ImportDetached is Import for a compiler in the same process: the text
// declares the tensors' dense_resource blobs without holding them (no
// hex copy of the weights), and blobs gives them as builtin resources, in
// creation order, whose bytes are the model's own (not copied); hand them
// to parser.Options.Resources.
func ImportDetached(m *onnxpb.ModelProto, opts Options) (out []byte, blobs []*ir.Resource, err error) {
	out, _, blobs, err = importModel(m, opts, true)
	return out, blobs, err
}

// importModel imports m; detach keeps the blobs out of the text and
// returns them instead.
func importModel(m *onnxpb.ModelProto, opts Options, detach bool) (out []byte, params []Param, blobs []*ir.Resource, err error) {
	out, params, blobs, _, err = importModelKeep(m, opts, detach)
	return out, params, blobs, err
}

// importModelKeep is importModel that also returns the main graph's
// importer (its types and propagated values).
func importModelKeep(m *onnxpb.ModelProto, opts Options, detach bool) (out []byte, params []Param, blobs []*ir.Resource, main *graphImporter, err error) {
	defer func() {
		if p := recover(); p != nil {
			// Debugging aid: GREE_ONNX_PANIC=1 re-raises the panic with
			// its stack.
			if os.Getenv("GREE_ONNX_PANIC") != "" {
				panic(p)
			}
			out, params, blobs, main, err = nil, nil, nil, nil, status.Errorf(status.Internal, "internal error importing the ONNX model (please report it with the model): %v", p)
		}
	}()
	if m.GetGraph() == nil {
		return nil, nil, nil, nil, status.Errorf(status.InvalidArgument, "ONNX model has no main graph")
	}
	if opts.OpsetVersion != 0 {
		if err := upgradeOpset(m, opts.OpsetVersion); err != nil {
			return nil, nil, nil, nil, err
		}
	}
	imp := &importer{model: m, opts: opts, opsets: map[string]int64{}}
	for _, o := range m.GetOpsetImport() {
		imp.opsets[normalizeDomain(o.GetDomain())] = o.GetVersion()
	}
	fn, err := imp.function(m.GetGraph())
	if err != nil {
		return nil, nil, nil, nil, status.Annotate(asInvalid(err), "importing ONNX graph '%s'", m.GetGraph().GetName())
	}
	var b strings.Builder
	fn.globals = imp.globals
	imp.res.detached = detach
	fn.print(&b, &imp.res)
	if detach {
		blobs = imp.res.builtin()
	}
	return []byte(b.String()), imp.params, blobs, imp.main, nil
}

func asInvalid(err error) error {
	if status.CodeOf(err) == status.Unknown {
		return status.Errorf(status.InvalidArgument, "%v", err)
	}
	return err
}

func normalizeDomain(d string) string {
	if d == "ai.onnx" {
		return ""
	}
	return d
}

// importer holds per-model state: opsets and resource blobs.
type importer struct {
	model  *onnxpb.ModelProto
	opts   Options
	opsets map[string]int64
	res    resources
	locs   *locWriter // with Options.NodeLocs
	// main is the main graph's importer, once imported.
	main *graphImporter
	// globals and params are the externalized initializers.
	globals []global
	params  []Param
}

// graphImporter imports one graph (the main graph or a subgraph) into a
// region.
type graphImporter struct {
	imp *importer
	// main is set for the model's graph (not a subgraph).
	main     bool
	g        *onnxpb.GraphProto
	inits    map[string]*onnxpb.TensorProto
	initKeys []string
	declared map[string]*vtype // value_info, outputs, declared inputs
	env      *env
	nv       map[string]*value
	region   *region
	none     *value
	skip     map[*onnxpb.NodeProto]bool
	folded   map[*onnxpb.NodeProto]bool
	// nodeIndex is the index in g of the node being imported.
	nodeIndex int
}

func newGraphImporter(imp *importer, g *onnxpb.GraphProto, parent *graphImporter) (*graphImporter, error) {
	gi := &graphImporter{imp: imp, g: g, inits: map[string]*onnxpb.TensorProto{}, declared: map[string]*vtype{}, nv: map[string]*value{}, region: &region{}}
	for _, t := range g.GetInitializer() {
		if _, ok := gi.inits[t.GetName()]; !ok {
			gi.initKeys = append(gi.initKeys, t.GetName())
		}
		gi.inits[t.GetName()] = t
	}
	// Lookup order as IREE's importer: value_info, then outputs, then
	// declared inputs (the first found wins).
	add := func(vis []*onnxpb.ValueInfoProto, what string) error {
		for _, vi := range vis {
			if _, ok := gi.declared[vi.GetName()]; ok {
				continue
			}
			t, err := fromTypeProto(vi.GetType())
			if err != nil {
				return fmt.Errorf("%s '%s': %v", what, vi.GetName(), err)
			}
			gi.declared[vi.GetName()] = t
		}
		return nil
	}
	if err := add(g.GetValueInfo(), "value_info"); err != nil {
		return nil, err
	}
	if err := add(g.GetOutput(), "graph output"); err != nil {
		return nil, err
	}
	if err := add(g.GetInput(), "graph input"); err != nil {
		return nil, err
	}
	var parentEnv *env
	if parent != nil {
		parentEnv = parent.env
		for k, v := range parent.nv {
			gi.nv[k] = v
		}
	}
	gi.env = newEnv(parentEnv)
	gi.env.hideOuterValues = parent != nil && !imp.opts.FoldShapes
	return gi, nil
}

// function imports the main graph as the entry func.func.
func (imp *importer) function(g *onnxpb.GraphProto) (*function, error) {
	gi, err := newGraphImporter(imp, g, nil)
	if err != nil {
		return nil, err
	}
	gi.main = true
	imp.main = gi
	fn := &function{name: g.GetName(), body: gi.region}
	var inputs []*onnxpb.ValueInfoProto
	for _, in := range g.GetInput() {
		if _, isInit := gi.inits[in.GetName()]; !isInit {
			inputs = append(inputs, in) // initialized inputs are constants (modern ONNX norms)
		}
	}
	firstParam := len(inputs)
	if imp.opts.ExternalizeParams && imp.opts.ExternalizeInputs {
		if firstParam = imp.opts.InputParamsFrom; firstParam < 0 || firstParam >= len(inputs) {
			return nil, status.Errorf(status.InvalidArgument, "the inputs threshold (--externalize-inputs-threshold) %d is not an input index: the graph has %d inputs that are not initializers (the threshold must be in [0, %d))", firstParam, len(inputs), len(inputs))
		}
	}
	for i, in := range inputs {
		t, err := fromTypeProto(in.GetType())
		if err != nil {
			return nil, fmt.Errorf("graph input '%s': %v", in.GetName(), err)
		}
		if i >= firstParam {
			if err := gi.inputParameter(in.GetName(), t); err != nil {
				return nil, err
			}
			continue
		}
		asm, err := gi.imp.typeAsm(t)
		if err != nil {
			return nil, fmt.Errorf("graph input '%s': %v", in.GetName(), err)
		}
		v := &value{typ: asm}
		gi.region.args = append(gi.region.args, v)
		gi.nv[in.GetName()] = v
		gi.env.set(in.GetName(), &info{t: t})
	}
	if err := gi.importAll(true); err != nil {
		return nil, err
	}
	for _, out := range g.GetOutput() {
		fn.results = append(fn.results, gi.nv[out.GetName()].typ)
	}
	fn.attrs = imp.metaAttrs()
	return fn, nil
}

// typeAsm spells a value's type. A tensor of unknown rank prints as IREE's
// importer prints it ("[]", which reads as a scalar), except in gree's own
// pipeline (FoldShapes), where it is the unranked !torch.vtensor<*,…> so that
// a conversion needing the rank fails with an error instead of treating
// the value as a scalar.
func (imp *importer) typeAsm(t *vtype) (string, error) {
	if imp.opts.FoldShapes && t.isTensor() && !t.ranked {
		e, err := mlirElem(t.elem)
		if err != nil {
			return "", err
		}
		return "!torch.vtensor<*," + e + ">", nil
	}
	return t.asm()
}

func (imp *importer) metaAttrs() []namedAttr {
	m := imp.model
	var attrs []namedAttr
	var defaultVersion int64
	var others []namedAttr
	for _, o := range m.GetOpsetImport() {
		d := normalizeDomain(o.GetDomain())
		if d == "" {
			defaultVersion = o.GetVersion()
		} else {
			others = append(others, namedAttr{d, fmt.Sprintf("%d : si64", o.GetVersion())})
		}
	}
	if defaultVersion != 0 {
		attrs = append(attrs, namedAttr{"torch.onnx_meta.opset_version", fmt.Sprintf("%d : si64", defaultVersion)})
	}
	if len(others) > 0 {
		sortAttrs(others)
		var b strings.Builder
		writeAttrDict(&b, dedupeAttrs(others))
		attrs = append(attrs, namedAttr{"torch.onnx_meta.opset_versions", b.String()})
	}
	attrs = append(attrs,
		namedAttr{"torch.onnx_meta.ir_version", fmt.Sprintf("%d : si64", m.GetIrVersion())},
		namedAttr{"torch.onnx_meta.producer_name", escapeString(m.GetProducerName())},
		namedAttr{"torch.onnx_meta.producer_version", escapeString(m.GetProducerVersion())})
	sortAttrs(attrs)
	return attrs
}

// dedupeAttrs keeps the last value of each key, as a Python dict does.
func dedupeAttrs(attrs []namedAttr) []namedAttr {
	var out []namedAttr
	for _, a := range attrs {
		if len(out) > 0 && out[len(out)-1].key == a.key {
			out[len(out)-1] = a
			continue
		}
		out = append(out, a)
	}
	return out
}

// importAll imports initializers, the none value, the nodes and the
// terminator (return for functions, torch.operator_terminator for
// subgraphs).
func (gi *graphImporter) importAll(isFunc bool) error {
	for _, name := range gi.initKeys {
		if err := gi.importInitializer(gi.inits[name], name); err != nil {
			return err
		}
	}
	if err := gi.analyze(); err != nil {
		return err
	}
	noneOp := &op{kind: opNone}
	gi.none = noneOp.addResult("!torch.none")
	gi.region.ops = append(gi.region.ops, noneOp)
	for i, n := range gi.g.GetNode() {
		if gi.skip[n] {
			continue
		}
		gi.nodeIndex = i
		if err := gi.importNode(n); err != nil {
			return fmt.Errorf("node '%s' (%s, opset %d): %w", n.GetName(), n.GetOpType(), gi.imp.opsets[normalizeDomain(n.GetDomain())], err)
		}
	}
	term := &op{kind: opReturn}
	if !isFunc {
		term.kind = opTerminator
	}
	for _, out := range gi.g.GetOutput() {
		v, ok := gi.nv[out.GetName()]
		if !ok {
			return fmt.Errorf("non topologically produced ONNX graph output '%s'", out.GetName())
		}
		term.operands = append(term.operands, v)
	}
	gi.region.ops = append(gi.region.ops, term)
	return nil
}

// importInitializer makes an onnx.Constant for a tensor named name.
func (gi *graphImporter) importInitializer(tp *onnxpb.TensorProto, name string) error {
	t, err := decodeTensor(tp)
	if err != nil {
		return err
	}
	if gi.externalizable(t) {
		return gi.parameter(t, name)
	}
	return gi.constant(t, name)
}

func (gi *graphImporter) constant(t *tensor, name string) error {
	attr, err := tensorAttr(t, &gi.imp.res)
	if err != nil {
		return fmt.Errorf("initializer '%s': %w", name, err)
	}
	vt := tensorType(t.elem, t.dims)
	asm, err := gi.imp.typeAsm(vt)
	if err != nil {
		return err
	}
	o := &op{kind: opOperator, name: "onnx.Constant", attrs: []namedAttr{{"torch.onnx.value", attr}}}
	gi.nv[name] = o.addResult(asm)
	gi.region.ops = append(gi.region.ops, o)
	gi.env.set(name, constInfo(t))
	return nil
}

// typeFor is the type of a node output: declared types merged with the
// inferred one, as after ONNX shape inference; !torch.none when nothing is
// known.
func (gi *graphImporter) typeFor(name string) *vtype {
	inferred := gi.env.get(name).typ()
	if d, ok := gi.declared[name]; ok {
		if t := mergeTypes(d, inferred); t != nil {
			return t
		}
		return &vtype{kind: kindNone}
	}
	if tp, ok := gi.inits[name]; ok {
		return tensorType(tp.GetDataType(), tp.GetDims())
	}
	if inferred != nil {
		return inferred
	}
	return &vtype{kind: kindNone}
}

func (gi *graphImporter) importNode(n *onnxpb.NodeProto) error {
	domain := normalizeDomain(n.GetDomain())
	if gi.folded[n] {
		for _, out := range n.GetOutput() {
			if out == "" {
				continue
			}
			if err := gi.constant(gi.env.get(out).val, out); err != nil {
				return err
			}
		}
		return nil
	}
	if n.GetOpType() == "Constant" && domain == "" {
		for _, a := range n.GetAttribute() {
			if a.GetName() == "value" && a.GetType() == onnxpb.AttributeProto_TENSOR && len(n.GetOutput()) == 1 {
				t, err := decodeTensor(a.GetT())
				if err != nil {
					return err
				}
				if err := gi.constant(t, n.GetOutput()[0]); err != nil {
					return err
				}
				gi.inits[n.GetOutput()[0]] = a.GetT()
				return nil
			}
		}
	}
	o := &op{kind: opOperator, name: "onnx." + n.GetOpType()}
	if gi.imp.opts.NodeLocs {
		o.loc = gi.imp.nodeLocs(n, gi.nodeIndex)
	}
	for _, in := range n.GetInput() {
		if in == "" {
			o.operands = append(o.operands, gi.none)
			continue
		}
		v, ok := gi.nv[in]
		if !ok {
			return fmt.Errorf("non topologically produced ONNX node input '%s'", in)
		}
		o.operands = append(o.operands, v)
	}
	for _, out := range n.GetOutput() {
		asm, err := gi.imp.typeAsm(gi.typeFor(out))
		if err != nil {
			return fmt.Errorf("output '%s': %v", out, err)
		}
		o.addResult(asm)
	}
	seen := map[string]bool{}
	var graphs []*onnxpb.AttributeProto
	for _, a := range n.GetAttribute() {
		if a.GetType() == onnxpb.AttributeProto_GRAPH {
			graphs = append(graphs, a)
			continue
		}
		s, ok, err := attrValue(a, &gi.imp.res)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		key := "torch.onnx." + a.GetName()
		if seen[key] {
			return fmt.Errorf("duplicate attribute '%s'", a.GetName())
		}
		seen[key] = true
		o.attrs = append(o.attrs, namedAttr{key, s})
	}
	// Regions in attribute-name order, as IREE's importer orders them.
	for i := 1; i < len(graphs); i++ {
		for j := i; j > 0 && graphs[j].GetName() < graphs[j-1].GetName(); j-- {
			graphs[j], graphs[j-1] = graphs[j-1], graphs[j]
		}
	}
	if len(graphs) > 0 && !fixedRegions[n.GetOpType()] {
		// Optional graph attributes (FlexAttention's score_mod, mask_mod,
		// prob_mod): the regions alone do not say which is which.
		names := make([]string, len(graphs))
		for i, a := range graphs {
			names[i] = escapeString(a.GetName())
		}
		o.attrs = append(o.attrs, namedAttr{"gree.graph_attrs", "[" + strings.Join(names, ", ") + "]"})
	}
	sortAttrs(o.attrs)
	for _, a := range graphs {
		var inTypes []*vtype
		if a.GetName() == "body" {
			inTypes = gi.bodyInputTypes(n)
		}
		r, err := gi.subgraph(a.GetG(), inTypes)
		if err != nil {
			return fmt.Errorf("subgraph '%s': %w", a.GetName(), err)
		}
		o.regions = append(o.regions, r)
	}
	for i, out := range n.GetOutput() {
		if out != "" {
			gi.nv[out] = o.results[i]
		}
	}
	gi.region.ops = append(gi.region.ops, o)
	return nil
}

// fixedRegions are the ops whose graph attributes are all required, so
// that their regions in name order say which is which.
var fixedRegions = map[string]bool{"If": true, "Loop": true, "Scan": true, "SequenceMap": true}

// subgraph imports a GRAPH attribute as a region whose block arguments are
// the subgraph's inputs; outer values stay visible inside.
func (gi *graphImporter) subgraph(g *onnxpb.GraphProto, inTypes []*vtype) (*region, error) {
	if g == nil {
		return nil, fmt.Errorf("missing graph")
	}
	sub, err := newGraphImporter(gi.imp, g, gi)
	if err != nil {
		return nil, err
	}
	for _, in := range g.GetInput() {
		t, err := fromTypeProto(in.GetType())
		if err != nil {
			return nil, fmt.Errorf("subgraph input '%s': %v", in.GetName(), err)
		}
		if i := len(sub.region.args); i < len(inTypes) && inTypes[i] != nil {
			// Typed from the op's operands, as ONNX's inference types
			// Loop and Scan bodies.
			t = mergeTypes(t, inTypes[i])
		}
		asm, err := gi.imp.typeAsm(t)
		if err != nil {
			return nil, err
		}
		v := &value{typ: asm}
		sub.region.args = append(sub.region.args, v)
		sub.nv[in.GetName()] = v
		sub.env.set(in.GetName(), &info{t: t})
	}
	if err := sub.importAll(false); err != nil {
		return nil, err
	}
	return sub.region, nil
}
