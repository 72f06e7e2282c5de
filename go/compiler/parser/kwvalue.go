package parser

// The "kw = value" pairs of the pretty StableHLO and CHLO syntaxes
// (dim = 1, dimensions = [0, 1], k = 4).

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
