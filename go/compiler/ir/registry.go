package ir

import "sync"

// OpInfo holds the structural traits of an operation that the printer,
// parser and verifier rely on. Operations never registered have no traits:
// they may be anything, and the verifier only checks what holds for all ops.
type OpInfo struct {
	// Terminator: the op ends a block (func.return, scf.yield, cf.br, …)
	// and must be the last operation of its block.
	Terminator bool
	// NoTerminator: the op's regions are single blocks that need no
	// terminator (builtin.module). Otherwise, once registered, every block
	// of the op's regions must end with a terminator.
	NoTerminator bool
	// IsolatedFromAbove: the op's regions cannot use values defined outside
	// them; SSA names restart inside.
	IsolatedFromAbove bool
	// Verify, when set, checks op-specific invariants after the structural
	// ones hold.
	Verify func(op *Operation) error
}

var (
	opInfoMu sync.RWMutex
	opInfos  = map[string]OpInfo{}
)

// RegisterOp records the traits of the operation called name, replacing any
// earlier registration. Dialect packages call it from init.
func RegisterOp(name string, info OpInfo) {
	opInfoMu.Lock()
	defer opInfoMu.Unlock()
	opInfos[name] = info
}

// LookupOp returns the traits registered for name.
func LookupOp(name string) (OpInfo, bool) {
	opInfoMu.RLock()
	defer opInfoMu.RUnlock()
	info, ok := opInfos[name]
	return info, ok
}

// IsIsolatedFromAbove reports whether name is registered as isolated from
// above.
func IsIsolatedFromAbove(name string) bool {
	info, _ := LookupOp(name)
	return info.IsolatedFromAbove
}

func init() {
	RegisterOp(ModuleOpName, OpInfo{NoTerminator: true, IsolatedFromAbove: true})
	RegisterOp("func.func", OpInfo{IsolatedFromAbove: true, Verify: verifyFunc})
	RegisterOp("util.func", OpInfo{IsolatedFromAbove: true})
	RegisterOp("util.initializer", OpInfo{IsolatedFromAbove: true})
	for _, t := range []string{
		"func.return", "util.return", "cf.br", "cf.cond_br", "cf.switch",
		"scf.yield", "scf.condition", "linalg.yield", "tensor.yield",
		"stablehlo.return", "mhlo.return", "tosa.yield", "flow.return",
		"iree_linalg_ext.yield", "affine.yield", "util.unreachable",
	} {
		RegisterOp(t, OpInfo{Terminator: true})
	}
}

// verifyFunc checks func.func: a sym_name, a function_type, entry block
// arguments matching the inputs and func.return operands matching the
// results.
func verifyFunc(op *Operation) error {
	if _, ok := op.Attr("sym_name").(*StringAttr); !ok {
		return OpErrorf(op, "requires a string 'sym_name' attribute")
	}
	ta, ok := op.Attr("function_type").(*TypeAttr)
	var ft *FunctionType
	if ok {
		ft, ok = ta.Type.(*FunctionType)
	}
	if !ok {
		return OpErrorf(op, "requires a function type 'function_type' attribute")
	}
	if len(op.Regions) != 1 {
		return OpErrorf(op, "expects one region, has %d", len(op.Regions))
	}
	entry := op.Regions[0].Entry()
	if entry == nil {
		return nil // a declaration
	}
	if len(entry.Args) != len(ft.Inputs) {
		return OpErrorf(op, "entry block has %d arguments, but the function type has %d inputs", len(entry.Args), len(ft.Inputs))
	}
	for i, a := range entry.Args {
		if !TypesEqual(a.Type, ft.Inputs[i]) {
			return OpErrorf(op, "entry block argument #%d has type %s, but the function type says %s", i, a.Type, ft.Inputs[i])
		}
	}
	for _, b := range op.Regions[0].Blocks {
		ret := b.Terminator()
		if ret == nil || ret.Name != "func.return" {
			continue
		}
		if len(ret.Operands) != len(ft.Results) {
			return OpErrorf(ret, "has %d operands, but the enclosing function (@%s) returns %d",
				len(ret.Operands), op.Attr("sym_name").(*StringAttr).Value, len(ft.Results))
		}
		for i, v := range ret.Operands {
			if !TypesEqual(v.Type, ft.Results[i]) {
				return OpErrorf(ret, "type of return operand #%d (%s) does not match function result type (%s)", i, v.Type, ft.Results[i])
			}
		}
	}
	return nil
}
