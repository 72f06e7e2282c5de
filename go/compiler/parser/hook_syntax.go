package parser

// Small pieces of op syntax that several dialects' hooks share: the
// "kw = value" pairs of the pretty StableHLO and CHLO syntaxes (dim = 1,
// dimensions = [0, 1], k = 4) and parenthesized operand lists.

// expectKeywordEq parses "kw =".
func expectKeywordEq(p *OpParser, kw string) error {
	if err := p.ExpectKeyword(kw); err != nil {
		return err
	}
	return p.Expect("=")
}

// parseKeywordInteger parses "kw = N".
func parseKeywordInteger(p *OpParser, kw string) (int64, error) {
	if err := expectKeywordEq(p, kw); err != nil {
		return 0, err
	}
	return p.ParseInteger()
}

// parseKeywordIntegers parses "kw = [N, …]".
func parseKeywordIntegers(p *OpParser, kw string) ([]int64, error) {
	if err := expectKeywordEq(p, kw); err != nil {
		return nil, err
	}
	return p.ParseIntegerList()
}

// parseParenOperands parses "(%a, …)", possibly empty.
func parseParenOperands(p *OpParser) ([]Operand, error) {
	if err := p.Expect("("); err != nil {
		return nil, err
	}
	ops, err := p.ParseOperandList()
	if err != nil {
		return nil, err
	}
	return ops, p.Expect(")")
}
