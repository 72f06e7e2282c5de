package parser

import (
	"strconv"
	"strings"

	"github.com/gree-ml/gree/go/compiler/ir"
)

// Pretty syntax of StableHLO's contractions and reductions:
//
//	stablehlo.dot %a, %b (, precision = [P, P])? : (T, U) -> V
//	stablehlo.dot_general %a, %b, (batching_dims = [..] x [..],)?
//	    contracting_dims = [..] x [..] (, precision = [P, P])? (, algorithm = <…>)? : (T, U) -> V
//	stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],
//	    window = {stride = [..], pad = [[..], ..], lhs_dilate = [..], rhs_dilate = [..], reverse = [..]}
//	    {attrs}? : (T, U) -> V
//	stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [1] : (T, S) -> U
//	stablehlo.reduce(%a init: %c), (%b init: %d) across dimensions = [1] : (…) -> (…)
//	    reducer(%a0: S, %a1: S) (%b0: R, %b1: R) { body }
func init() {
	registerOwn("stablehlo.dot", parseHLODot)
	registerOwn("stablehlo.dot_general", parseHLODot)
	registerOwn("stablehlo.convolution", parseHLOConvolution)
	registerOwn("stablehlo.reduce", parseHLOReduce)
}

// parseDimsPair parses "[..] x [..]".
func parseDimsPair(p *OpParser) ([]int64, []int64, error) {
	l, err := p.ParseIntegerList()
	if err != nil {
		return nil, nil, err
	}
	if err := p.ExpectKeyword("x"); err != nil {
		return nil, nil, err
	}
	r, err := p.ParseIntegerList()
	return l, r, err
}

func parseHLODot(p *OpParser, st *ir.OperationState) error {
	a, err := p.ParseOperand()
	if err != nil {
		return err
	}
	if err := p.Expect(","); err != nil {
		return err
	}
	b, err := p.ParseOperand()
	if err != nil {
		return err
	}
	var dn []string
	for p.Optional(",") {
		pos := p.CurrentPos()
		kw, err := p.ParseKeyword()
		if err != nil {
			return err
		}
		if err := p.Expect("="); err != nil {
			return err
		}
		switch {
		case (kw == "batching_dims" || kw == "contracting_dims") && p.Name() == "stablehlo.dot_general":
			l, r, err := parseDimsPair(p)
			if err != nil {
				return err
			}
			what := strings.TrimSuffix(kw, "_dims")
			if len(l) > 0 {
				dn = append(dn, "lhs_"+what+"_dimensions = "+formatInts(l))
			}
			if len(r) > 0 {
				dn = append(dn, "rhs_"+what+"_dimensions = "+formatInts(r))
			}
		case kw == "precision":
			prec, err := hloPrecisions(p)
			if err != nil {
				return err
			}
			st.AddAttr("precision_config", prec)
		case kw == "algorithm" && p.Name() == "stablehlo.dot_general":
			body, err := p.ParseAngleBody()
			if err != nil {
				return err
			}
			st.AddAttr("algorithm", &ir.OpaqueAttr{Text: "#stablehlo.dot_algorithm" + body})
		default:
			return p.ErrorfAt(pos, "'%s' has an unknown clause '%s'", p.Name(), kw)
		}
	}
	if p.Name() == "stablehlo.dot_general" {
		// Batching entries print before contracting ones, as StableHLO does.
		var ordered []string
		for _, k := range []string{"lhs_batching", "rhs_batching", "lhs_contracting", "rhs_contracting"} {
			for _, e := range dn {
				if strings.HasPrefix(e, k) {
					ordered = append(ordered, e)
				}
			}
		}
		st.AddAttr("dot_dimension_numbers", &ir.OpaqueAttr{Text: "#stablehlo.dot<" + strings.Join(ordered, ", ") + ">"})
	}
	return hloFinish(p, st, []Operand{a, b})
}

// parseConvLayout parses one "[b, f, 0, 1]" of a convolution's
// dim_numbers and returns its text.
func parseConvLayout(p *OpParser) (string, error) {
	if err := p.Expect("["); err != nil {
		return "", err
	}
	var parts []string
	err := p.p.parseCommaList("]", func() error {
		if kw, ok := p.PeekKeyword(); ok {
			switch kw {
			case "b", "f", "i", "o":
				p.OptionalKeyword(kw)
				parts = append(parts, kw)
				return nil
			}
			return p.Errorf("'%s' has an unknown dimension '%s' in dim_numbers (expected b, f, i, o or a spatial index)", p.Name(), kw)
		}
		n, err := p.ParseInteger()
		if err != nil {
			return err
		}
		parts = append(parts, strconv.FormatInt(n, 10))
		return nil
	})
	return "[" + strings.Join(parts, ", ") + "]", err
}

func parseHLOConvolution(p *OpParser, st *ir.OperationState) error {
	ops, err := parseParenOperands(p)
	if err != nil {
		return err
	}
	if err := expectKeywordEq(p, "dim_numbers"); err != nil {
		return err
	}
	in, err := parseConvLayout(p)
	if err != nil {
		return err
	}
	if err := p.ExpectKeyword("x"); err != nil {
		return err
	}
	ker, err := parseConvLayout(p)
	if err != nil {
		return err
	}
	if err := p.Expect("->"); err != nil {
		return err
	}
	out, err := parseConvLayout(p)
	if err != nil {
		return err
	}
	st.AddAttr("dimension_numbers", &ir.OpaqueAttr{Text: "#stablehlo.conv<" + in + "x" + ker + "->" + out + ">"})
	if p.Optional(",") {
		if err := expectKeywordEq(p, "window"); err != nil {
			return err
		}
		if err := p.Expect("{"); err != nil {
			return err
		}
		if err := p.p.parseCommaList("}", func() error { return parseConvWindowEntry(p, st) }); err != nil {
			return err
		}
	}
	return hloFinish(p, st, ops)
}

// parseConvWindowEntry parses one "stride = [..]" (pad, lhs_dilate,
// rhs_dilate, reverse) of a convolution's window.
func parseConvWindowEntry(p *OpParser, st *ir.OperationState) error {
	pos := p.CurrentPos()
	kw, err := p.ParseKeyword()
	if err != nil {
		return err
	}
	if err := p.Expect("="); err != nil {
		return err
	}
	switch kw {
	case "stride", "lhs_dilate", "rhs_dilate":
		vs, err := p.ParseIntegerList()
		if err != nil {
			return err
		}
		name := map[string]string{"stride": "window_strides", "lhs_dilate": "lhs_dilation", "rhs_dilate": "rhs_dilation"}[kw]
		st.AddAttr(name, ir.I64Array(vs...))
	case "pad":
		if err := p.Expect("["); err != nil {
			return err
		}
		var flat []int64
		rows := int64(0)
		err := p.p.parseCommaList("]", func() error {
			vs, err := p.ParseIntegerList()
			if err != nil {
				return err
			}
			if len(vs) != 2 {
				return p.Errorf("'%s' expects [low, high] pairs in its window padding", p.Name())
			}
			flat = append(flat, vs...)
			rows++
			return nil
		})
		if err != nil {
			return err
		}
		st.AddAttr("padding", &ir.DenseElementsAttr{Type: ir.Tensor([]int64{rows, 2}, ir.I64), Ints: flat})
	case "reverse":
		if err := p.Expect("["); err != nil {
			return err
		}
		var vs []int64
		err := p.p.parseCommaList("]", func() error {
			switch {
			case p.OptionalKeyword("true"):
				vs = append(vs, 1)
			case p.OptionalKeyword("false"):
				vs = append(vs, 0)
			default:
				v, err := p.ParseInteger()
				if err != nil {
					return err
				}
				vs = append(vs, v)
			}
			return nil
		})
		if err != nil {
			return err
		}
		st.AddAttr("window_reversal", &ir.DenseArrayAttr{Elem: ir.I1, Ints: vs})
	default:
		return p.ErrorfAt(pos, "'%s' has an unknown window entry '%s'", p.Name(), kw)
	}
	return nil
}

// parseHLOReduce parses both forms of stablehlo.reduce.
func parseHLOReduce(p *OpParser, st *ir.OperationState) error {
	if p.IsNext("{") || !p.IsNext("(") {
		return p.Errorf("'%s' expects '(%%operand init: %%init)'", p.Name())
	}
	var ins, inits []Operand
	for {
		if err := p.Expect("("); err != nil {
			return err
		}
		x, err := p.ParseOperand()
		if err != nil {
			return err
		}
		if err := p.ExpectKeyword("init"); err != nil {
			return err
		}
		if err := p.Expect(":"); err != nil {
			return err
		}
		c, err := p.ParseOperand()
		if err != nil {
			return err
		}
		if err := p.Expect(")"); err != nil {
			return err
		}
		ins, inits = append(ins, x), append(inits, c)
		if !p.Optional(",") {
			break
		}
	}
	applies := ""
	appliesPos := p.CurrentPos()
	if p.OptionalKeyword("applies") {
		var err error
		appliesPos = p.CurrentPos()
		if applies, err = p.ParseKeyword(); err != nil {
			return err
		}
	}
	if err := p.ExpectKeyword("across"); err != nil {
		return err
	}
	dims, err := parseKeywordIntegers(p, "dimensions")
	if err != nil {
		return err
	}
	st.AddAttr("dimensions", ir.I64Array(dims...))
	if err := p.ParseOptionalAttrDict(st); err != nil {
		return err
	}
	if err := p.Expect(":"); err != nil {
		return err
	}
	ft, err := p.ParseFunctionType()
	if err != nil {
		return err
	}
	n := len(ins)
	if len(ft.Inputs) != 2*n || len(ft.Results) != n {
		return p.Errorf("'%s' with %d inputs expects a type (%d types) -> %d types", p.Name(), n, 2*n, n)
	}
	st.ResultTypes = ft.Results
	if err := p.ResolveOperands(st, append(append([]Operand{}, ins...), inits...), ft.Inputs); err != nil {
		return err
	}
	if applies != "" {
		if n != 1 {
			return p.ErrorfAt(appliesPos, "'%s' with 'applies' takes one input, found %d", p.Name(), n)
		}
		if !strings.Contains(applies, ".") {
			applies = "stablehlo." + applies
		}
		et := ir.Tensor([]int64{}, ir.ElementTypeOf(ft.Inputs[1]))
		loc := p.LocAt(appliesPos)
		blk := ir.NewBlock()
		x, y := blk.AddArgument(et, loc), blk.AddArgument(et, loc)
		bb := ir.AtEnd(blk, loc)
		r := bb.Create(applies, []*ir.Value{x, y}, []ir.Type{et})
		bb.Create("stablehlo.return", r.Results, nil)
		region := &ir.Region{}
		region.AddBlock(blk)
		st.Regions = append(st.Regions, region)
		return nil
	}
	if err := p.ExpectKeyword("reducer"); err != nil {
		return err
	}
	firsts, seconds := make([]Argument, n), make([]Argument, n)
	for i := 0; i < n; i++ {
		if err := p.Expect("("); err != nil {
			return err
		}
		if firsts[i], err = p.ParseArgument(true, false); err != nil {
			return err
		}
		if err := p.Expect(","); err != nil {
			return err
		}
		if seconds[i], err = p.ParseArgument(true, false); err != nil {
			return err
		}
		if err := p.Expect(")"); err != nil {
			return err
		}
	}
	region, err := p.ParseRegion(append(firsts, seconds...))
	if err != nil {
		return err
	}
	st.Regions = append(st.Regions, region)
	return nil
}
