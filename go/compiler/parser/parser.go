package parser

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/gree-ml/gree/go/compiler/ir"
)

// Options configure a parse.
type Options struct {
	// Filename names the input in locations and diagnostics.
	Filename string
	// FirstLine is the line number of the input's first line (0 means 1);
	// set it when parsing a chunk of a larger file.
	FirstLine int
	// Registry supplies the custom op syntaxes; nil means Default().
	Registry *Registry
	// SkipVerify returns the module without running ir.Verify.
	SkipVerify bool
	// Resources are defined before the text is read, as if its
	// {-# dialect_resources #-} section held them; dense_resource
	// attributes reference them without copying their blobs (an
	// in-process importer hands weights over this way instead of
	// printing them in hex). The text must not define them again.
	Resources []*ir.Resource
}

// Parse parses MLIR text into a module and verifies it. Errors are
// *ir.Diagnostic values: "file:line:col: error: message".
func Parse(filename string, src []byte) (*ir.Module, error) {
	return ParseWithOptions(src, Options{Filename: filename})
}

// ParseWithOptions is Parse with options.
func ParseWithOptions(src []byte, opts Options) (*ir.Module, error) {
	p := newParser(string(src), opts)
	var m *ir.Module
	err := p.guard(func() error {
		var err error
		if m, err = p.parseFile(); err != nil {
			return err
		}
		if !opts.SkipVerify {
			return ir.Verify(m.Op)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// ParseType parses the text of one type, e.g. "tensor<2x?xf32>".
func ParseType(s string) (ir.Type, error) {
	p := newParser(s, Options{Filename: "<type>"})
	var t ir.Type
	err := p.guard(func() error {
		var err error
		if t, err = p.parseType(); err == nil && p.tok.kind != tokEOF {
			err = p.errorf(p.tok.pos, "unexpected %s after the type", p.describe())
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// ParseAttribute parses the text of one attribute, e.g. "dense<1.0> :
// tensor<4xf32>".
func ParseAttribute(s string) (ir.Attribute, error) {
	p := newParser(s, Options{Filename: "<attribute>"})
	var a ir.Attribute
	err := p.guard(func() error {
		var err error
		if a, err = p.parseAttribute(); err == nil && p.tok.kind != tokEOF {
			err = p.errorf(p.tok.pos, "unexpected %s after the attribute", p.describe())
		}
		if err == nil {
			err = p.resolvePendingLocs(nil)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return a, nil
}

// guard runs fn, turning a panic (a bug in the parser or in a registered
// ParseFunc) into a diagnostic at the current token, so that bad input
// never takes the process down.
func (p *parser) guard(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = p.errorf(p.tok.pos, "internal parser error: %v", r)
		}
	}()
	return fn()
}

// maxDepth bounds the nesting of regions, attributes and types, so that
// hostile input cannot exhaust the stack.
const maxDepth = 512

type parser struct {
	lex        lexer
	tok        token
	opts       Options
	reg        *Registry
	lineStarts []int

	typeAliases map[string]ir.Type
	attrAliases map[string]ir.Attribute
	pendingLocs map[*ir.NameLoc]int // placeholder → position of the #alias
	resources   []*ir.Resource
	resIndex    map[string]*ir.Resource // dialect + "\x00" + key
	scopes      []*scope
	depth       int
}

func newParser(src string, opts Options) *parser {
	if opts.Filename == "" {
		opts.Filename = "<input>"
	}
	if opts.FirstLine <= 0 {
		opts.FirstLine = 1
	}
	p := &parser{
		lex: lexer{src: src}, opts: opts, reg: opts.Registry,
		typeAliases: map[string]ir.Type{}, attrAliases: map[string]ir.Attribute{},
		pendingLocs: map[*ir.NameLoc]int{}, resIndex: map[string]*ir.Resource{},
	}
	if p.reg == nil {
		p.reg = Default()
	}
	for _, r := range opts.Resources {
		p.resources = append(p.resources, r)
		p.resIndex[r.Dialect+"\x00"+r.Key] = r
	}
	p.lineStarts = append(p.lineStarts, 0)
	for i := 0; i < len(src); i++ {
		if src[i] == '\n' {
			p.lineStarts = append(p.lineStarts, i+1)
		}
	}
	p.advance()
	return p
}

// advance moves to the next token.
func (p *parser) advance() { p.tok = p.lex.next() }

// seek re-lexes from byte offset pos.
func (p *parser) seek(pos int) {
	p.lex.pos = pos
	p.advance()
}

// fileLoc returns the file position of byte offset pos.
func (p *parser) fileLoc(pos int) *ir.FileLineColLoc {
	i := sort.Search(len(p.lineStarts), func(i int) bool { return p.lineStarts[i] > pos }) - 1
	if i < 0 {
		i = 0
	}
	return ir.FileLoc(p.opts.Filename, p.opts.FirstLine+i, pos-p.lineStarts[i]+1)
}

// errorf returns a diagnostic at byte offset pos.
func (p *parser) errorf(pos int, format string, args ...any) error {
	return &ir.Diagnostic{Loc: p.fileLoc(pos), Msg: fmt.Sprintf(format, args...)}
}

// describe names the current token for messages.
func (p *parser) describe() string { return describeTok(p.tok) }

func describeTok(t token) string {
	switch t.kind {
	case tokEOF:
		return "end of input"
	case tokString:
		if len(t.text) > 40 {
			return "string literal"
		}
	}
	text := t.text
	if len(text) > 40 {
		text = text[:40] + "…"
	}
	return "'" + text + "'"
}

// tokErr turns a lexer error token into a diagnostic, or reports an
// unexpected token.
func (p *parser) unexpected(want string) error {
	if p.tok.kind == tokError {
		return p.errorf(p.tok.pos, "%s", p.tok.val)
	}
	return p.errorf(p.tok.pos, "expected %s, found %s", want, p.describe())
}

func (p *parser) isPunct(s string) bool { return p.tok.kind == tokPunct && p.tok.text == s }

func (p *parser) isKeyword(s string) bool { return p.tok.kind == tokIdent && p.tok.text == s }

// expect consumes the punctuation s or fails.
func (p *parser) expect(s string) error {
	if !p.isPunct(s) {
		return p.unexpected("'" + s + "'")
	}
	p.advance()
	return nil
}

// optional consumes the punctuation s if present.
func (p *parser) optional(s string) bool {
	if p.isPunct(s) {
		p.advance()
		return true
	}
	return false
}

// enter bumps the nesting depth; leave undoes it.
func (p *parser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		return p.errorf(p.tok.pos, "nesting is too deep (more than %d levels)", maxDepth)
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

// parseCommaList calls each for the elements of a comma-separated list
// that ends before close; the list may be empty. It consumes close.
func (p *parser) parseCommaList(close string, each func() error) error {
	if p.optional(close) {
		return nil
	}
	for {
		if err := each(); err != nil {
			return err
		}
		if !p.optional(",") {
			return p.expect(close)
		}
	}
}

// parseFile parses the whole input: alias definitions, operations and the
// file metadata section.
func (p *parser) parseFile() (*ir.Module, error) {
	top := &ir.Region{}
	block := ir.NewBlock()
	top.AddBlock(block)
	p.pushScope(top, false)
	for p.tok.kind != tokEOF {
		var err error
		switch {
		case p.tok.kind == tokHash:
			err = p.parseAttrAliasDef()
		case p.tok.kind == tokBang:
			err = p.parseTypeAliasDef()
		case p.isPunct("{-#"):
			err = p.parseFileMetadata()
		default:
			err = p.parseOperation(block)
		}
		if err != nil {
			return nil, err
		}
	}
	if err := p.popScope(); err != nil {
		return nil, err
	}
	var m *ir.Module
	if len(block.Ops) == 1 && block.Ops[0].Name == ir.ModuleOpName {
		op := block.Ops[0]
		block.Remove(op)
		m = &ir.Module{Op: op}
	} else {
		m = ir.NewModule(p.fileLoc(0))
		for len(block.Ops) > 0 {
			m.Body().Append(block.Ops[0])
		}
	}
	m.Resources = p.resources
	if err := p.resolvePendingLocs(m.Op); err != nil {
		return nil, err
	}
	return m, nil
}

// parseAttrAliasDef parses "#name = attribute".
func (p *parser) parseAttrAliasDef() error {
	name, pos := p.tok.text[1:], p.tok.pos
	if strings.Contains(name, ".") {
		return p.errorf(pos, "alias '#%s' contains a '.', which is reserved for dialect attributes", name)
	}
	p.advance()
	if err := p.expect("="); err != nil {
		return err
	}
	a, err := p.parseAttribute()
	if err != nil {
		return err
	}
	if _, dup := p.attrAliases[name]; dup {
		return p.errorf(pos, "redefinition of attribute alias '#%s'", name)
	}
	p.attrAliases[name] = a
	return nil
}

// parseTypeAliasDef parses "!name = type".
func (p *parser) parseTypeAliasDef() error {
	name, pos := p.tok.text[1:], p.tok.pos
	if strings.Contains(name, ".") {
		return p.errorf(pos, "alias '!%s' contains a '.', which is reserved for dialect types", name)
	}
	p.advance()
	if err := p.expect("="); err != nil {
		return err
	}
	t, err := p.parseType()
	if err != nil {
		return err
	}
	if _, dup := p.typeAliases[name]; dup {
		return p.errorf(pos, "redefinition of type alias '!%s'", name)
	}
	p.typeAliases[name] = t
	return nil
}

// Chunk is one part of a split input file: its text and the line number (in
// the whole file, from 1) of its first line.
type Chunk struct {
	Text []byte
	Line int
}

// splitMarker separates the parts of a file meant to be parsed one by one,
// as mlir-opt --split-input-file does.
const splitMarker = "// -----"

// SplitInputFile cuts src at every line that starts (after white space)
// with "// -----". The marker lines belong to no chunk. Parse each chunk
// with ParseChunk so that diagnostics keep the file's line numbers.
func SplitInputFile(src []byte) []Chunk {
	var chunks []Chunk
	start, startLine, line := 0, 1, 1
	for off := 0; off <= len(src); {
		end := bytes.IndexByte(src[off:], '\n')
		next := len(src) + 1
		if end >= 0 {
			end += off
			next = end + 1
		} else {
			end = len(src)
		}
		if bytes.HasPrefix(bytes.TrimLeft(src[off:end], " \t"), []byte(splitMarker)) {
			chunks = append(chunks, Chunk{Text: src[start:off], Line: startLine})
			start, startLine = min(next, len(src)), line+1
		}
		off = next
		line++
	}
	return append(chunks, Chunk{Text: src[start:], Line: startLine})
}

// ParseChunk parses one chunk of a split file named filename.
func ParseChunk(filename string, c Chunk) (*ir.Module, error) {
	return ParseWithOptions(c.Text, Options{Filename: filename, FirstLine: c.Line})
}
