package parser

import (
	"strings"

	"github.com/gree-ml/gree/go/compiler/ir"
)

var closerOf = map[byte]byte{'<': '>', '(': ')', '[': ']', '{': '}'}

// rawBody scans the balanced "<…>" that starts at byte offset start and
// returns its text, leaving the parser after it. Nested brackets and string
// literals are skipped as units, a '>' right after '-' (an arrow) does not
// close anything, and references to aliases defined in this file are
// replaced by their definitions so the text stands on its own.
func (p *parser) rawBody(start int) (string, error) {
	src := p.lex.src
	var sb strings.Builder
	var stack []byte
	var opened []int // positions of the open brackets
	i := start
	for i < len(src) {
		c := src[i]
		switch c {
		case '<', '(', '[', '{':
			stack = append(stack, c)
			opened = append(opened, i)
			if len(stack) > maxDepth {
				return "", p.errorf(i, "nesting is too deep (more than %d levels)", maxDepth)
			}
		case '>', ')', ']', '}':
			if c == '>' && i > start && src[i-1] == '-' {
				break
			}
			if len(stack) == 0 {
				return "", p.errorf(i, "unexpected '%c' in dialect attribute or type body", c)
			}
			if open := stack[len(stack)-1]; closerOf[open] != c {
				return "", p.errorf(opened[len(opened)-1], "'%c' is not closed: found '%c' first, at %s",
					open, c, ir.FormatLoc(p.fileLoc(i)))
			}
			stack, opened = stack[:len(stack)-1], opened[:len(opened)-1]
		case '"':
			l := lexer{src: src, pos: i}
			if _, msg := l.str(); msg != "" {
				return "", p.errorf(i, "%s", msg)
			}
			sb.WriteString(src[i:l.pos])
			i = l.pos
			continue
		case '#', '!':
			j := i + 1
			for j < len(src) && (isIDChar(src[j]) || src[j] == '-' && j+1 < len(src) && src[j+1] != '>') {
				j++
			}
			name := src[i+1 : j]
			if name != "" && !strings.Contains(name, ".") && (j >= len(src) || src[j] != '<') {
				var alias interface{ String() string }
				if c == '#' {
					if a, ok := p.attrAliases[name]; ok {
						alias = a
					}
				} else if t, ok := p.typeAliases[name]; ok {
					alias = t
				}
				if alias != nil {
					sb.WriteString(alias.String())
					i = j
					continue
				}
			}
			sb.WriteString(src[i:j])
			i = j
			continue
		}
		sb.WriteByte(c)
		i++
		if len(stack) == 0 {
			p.seek(i)
			return sb.String(), nil
		}
	}
	return "", p.errorf(start, "unterminated '<' in dialect attribute or type body")
}

// parseHashAttr parses #alias, #dialect.name and #dialect.name<…>.
func (p *parser) parseHashAttr() (ir.Attribute, error) {
	name, pos := p.tok.text[1:], p.tok.pos
	end := pos + len(p.tok.text)
	hasBody := end < len(p.lex.src) && p.lex.src[end] == '<'
	if !hasBody && !strings.Contains(name, ".") {
		a, ok := p.attrAliases[name]
		if !ok {
			return nil, p.errorf(pos, "undefined attribute alias '#%s'", name)
		}
		p.advance()
		return a, nil
	}
	text := "#" + name
	if hasBody {
		body, err := p.rawBody(end)
		if err != nil {
			return nil, err
		}
		text += body
	} else {
		p.advance()
	}
	if ir.IsParameterText(text) && p.isPunct(":") {
		// IREE prints parameter references as typed attributes.
		p.advance()
		t, err := p.parseType()
		if err != nil {
			return nil, err
		}
		return &ir.ParameterAttr{Text: text, Type: t}, nil
	}
	return &ir.OpaqueAttr{Text: text}, nil
}
