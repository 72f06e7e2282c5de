package parser

import (
	"github.com/gree-ml/gree/go/compiler/ir"
)

// Syntaxes of the torch dialect ops that IREE's ONNX importer
// (iree-import-onnx, torch-mlir's onnx importer) writes. Types such as
// !torch.vtensor<[1,3,?],f32>, !torch.none or !torch.list<int> are kept as
// opaque dialect types; the input conversion reads them.
//
//	torch.operator "onnx.Conv"(%a, %b) {attrs}? : (T, T) -> T ({…}, {…})?
//	                                 name (string); regions for If/Loop/Scan
//	torch.operator_terminator %a, %b : T, U      ends those regions
//	torch.constant.none                          result !torch.none
//	torch.constant.int 5 / .float 1.5 / .bool true / .str "s"
//	                                             value; result !torch.int, …
//	torch.vtensor.literal(dense<…> : tensor<…>) : !torch.vtensor<…>
//	torch_c.to_builtin_tensor %a : !torch.vtensor<…> -> tensor<…>
//	torch_c.from_builtin_tensor %a : tensor<…> -> !torch.vtensor<…>
func init() {
	registerOwn("torch.operator", parseTorchOperator)
	ir.RegisterOp("torch.operator_terminator", ir.OpInfo{Terminator: true})
	registerOwn("torch.operator_terminator", parseTorchTerminator)
	registerOwn("torch.constant.none", parseTorchConstant(""))
	registerOwn("torch.constant.int", parseTorchConstant("int"))
	registerOwn("torch.constant.float", parseTorchConstant("float"))
	registerOwn("torch.constant.bool", parseTorchConstant("bool"))
	registerOwn("torch.constant.str", parseTorchConstant("str"))
	registerOwn("torch.vtensor.literal", parseTorchLiteral)
	registerOwn("torch_c.to_builtin_tensor", parseTorchCast)
	registerOwn("torch_c.from_builtin_tensor", parseTorchCast)
}

// TorchType returns the opaque type !torch.<body> (e.g. "none", "int").
func TorchType(body string) ir.Type { return &ir.OpaqueType{Text: "!torch." + body} }

// parseTorchOperator: "name"(%a, …) {attrs}? : (T, …) -> R ({…}, …)?
func parseTorchOperator(p *OpParser, st *ir.OperationState) error {
	name, err := p.ParseString()
	if err != nil {
		return err
	}
	st.AddAttr("name", ir.Str(name))
	r := &reader{p: p, st: st}
	ops := r.parenOperands()
	r.attrDict()
	ft := r.colonTypeFunction()
	if !r.ok() {
		return r.err
	}
	st.ResultTypes = ft.Results
	r.resolve(ops, ft.Inputs...)
	for r.ok() && p.IsNext("{") {
		r.region(nil)
		if !p.Optional(",") {
			break
		}
	}
	return r.err
}

// colonTypeFunction parses ": (T, …) -> R".
func (r *reader) colonTypeFunction() *ir.FunctionType {
	r.expect(":")
	return r.functionType()
}

// parseTorchTerminator: %a, … : T, … (or nothing).
func parseTorchTerminator(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	ops := r.operands()
	r.attrDict()
	if len(ops) == 0 {
		return r.err
	}
	r.resolve(ops, r.colonTypes()...)
	return r.err
}

// parseTorchConstant parses the value of torch.constant.<kind> into the
// attribute "value" and gives the result type !torch.<kind>.
func parseTorchConstant(kind string) ParseFunc {
	return func(p *OpParser, st *ir.OperationState) error {
		var v ir.Attribute
		switch kind {
		case "":
			st.ResultTypes = []ir.Type{TorchType("none")}
			return p.ParseOptionalAttrDict(st)
		case "int":
			n, err := p.ParseInteger()
			if err != nil {
				return err
			}
			v = ir.IntAttr(n, ir.I64)
		case "float":
			f, err := p.ParseFloat(ir.F64)
			if err != nil {
				return err
			}
			v = ir.FloatAttrOf(f, ir.F64)
		case "bool":
			switch {
			case p.OptionalKeyword("true"):
				v = &ir.BoolAttr{Value: true}
			case p.OptionalKeyword("false"):
				v = &ir.BoolAttr{Value: false}
			default:
				return p.Errorf("'%s' expects true or false", st.Name)
			}
		case "str":
			s, err := p.ParseString()
			if err != nil {
				return err
			}
			v = ir.Str(s)
		}
		st.AddAttr("value", v)
		st.ResultTypes = []ir.Type{TorchType(kind)}
		return p.ParseOptionalAttrDict(st)
	}
}

// parseTorchLiteral: (typed-attr) {attrs}? : T
func parseTorchLiteral(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	r.expect("(")
	if r.ok() {
		v, err := p.ParseTypedAttribute()
		if err != nil {
			return err
		}
		st.AddAttr("value", v)
	}
	r.expect(")")
	r.attrDict()
	st.ResultTypes = []ir.Type{r.colonType()}
	return r.err
}

// parseTorchCast: %a {attrs}? : T -> U
func parseTorchCast(p *OpParser, st *ir.OperationState) error {
	r := &reader{p: p, st: st}
	o := r.operand()
	r.attrDict()
	from := r.colonType()
	r.expect("->")
	to := r.typ()
	if !r.ok() {
		return r.err
	}
	st.ResultTypes = []ir.Type{to}
	r.resolve([]Operand{o}, from)
	return r.err
}
