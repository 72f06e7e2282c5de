// Package parser reads MLIR text into gree's ir: the generic operation
// form ("arith.addf"(%a, %b) {…} : (f32, f32) -> f32) for any op, custom
// assembly for the ops whose syntax is registered, types, attributes
// (dense elements, dense_resource blobs, affine maps, dialect attributes
// kept opaque), locations with #loc aliases, !type and #attr aliases and the
// {-# dialect_resources #-} section. SplitInputFile cuts a file at
// "// -----" lines; ParseChunk keeps the file's line numbers.
//
// Every error is an *ir.Diagnostic, "file:line:col: error: message", naming
// the offending token and what was expected. The parser never panics: input
// nesting is bounded and an internal failure becomes an error.
//
// # Custom syntax
//
// An op written without quotes (%0 = arith.addf %a, %b : f32) is parsed by
// the ParseFunc registered for its name; names without a dialect are looked
// up as builtin.* and func.* (module, return, call). A ParseFunc reads the
// rest of the op through OpParser (ParseOperand, ResolveOperands,
// ParseColonType, ParseOptionalAttrDict, ParseRegion, OptionalKeyword, …)
// and fills the ir.OperationState; result names and the trailing loc(…) are
// handled around it. This package registers builtin.module, func.func,
// func.return, func.call, arith.constant and the arith/math elementwise,
// compare, select and cast ops, tensor.empty, util.unfoldable_constant,
// util.optimization_barrier and the check.expect_* ops. Other packages add
// theirs from init:
//
//	func init() {
//		parser.Register("tosa.abs", func(p *parser.OpParser, st *ir.OperationState) error {
//			x, err := p.ParseOperand()
//			if err != nil {
//				return err
//			}
//			if err := p.ParseOptionalAttrDict(st); err != nil {
//				return err
//			}
//			if err := p.Expect(":"); err != nil {
//				return err
//			}
//			ft, err := p.ParseFunctionType()
//			if err != nil {
//				return err
//			}
//			st.ResultTypes = ft.Results
//			return p.ResolveOperands(st, []parser.Operand{x}, ft.Inputs)
//		})
//	}
package parser
