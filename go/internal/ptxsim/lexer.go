package ptxsim

import (
	"github.com/gree-ml/gree/go/status"
)

// tokKind classifies a token.
type tokKind uint8

const (
	tkEOF    tokKind = iota
	tkIdent          // names, opcodes, directives, registers: .reg %r1 ld.global.u32 $L1
	tkNumber         // 12 0x1f 0f3F800000 1.5e-3 7U
	tkString         // "..." (only in .pragma)
	tkPunct          // one of , ; : { } [ ] ( ) < > + - @ ! |
)

// token is one lexical token with its 1-based source line.
type token struct {
	kind tokKind
	text string
	line int
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || c == '%' || c == '.' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentChar(c byte) bool {
	return isIdentStart(c) || (c >= '0' && c <= '9')
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// lex splits PTX source into tokens, dropping // and /* */ comments.
func lex(src string) ([]token, error) {
	toks := make([]token, 0, len(src)/4)
	line := 1
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			start := line
			i += 2
			for {
				if i+1 >= len(src) {
					return nil, status.Errorf(status.InvalidArgument, "line %d: unterminated /* comment", start)
				}
				if src[i] == '*' && src[i+1] == '/' {
					i += 2
					break
				}
				if src[i] == '\n' {
					line++
				}
				i++
			}
		case c == '"':
			j := i + 1
			for j < len(src) && src[j] != '"' && src[j] != '\n' {
				j++
			}
			if j >= len(src) || src[j] != '"' {
				return nil, status.Errorf(status.InvalidArgument, "line %d: unterminated string", line)
			}
			toks = append(toks, token{tkString, src[i+1 : j], line})
			i = j + 1
		case isDigit(c):
			j := i
			decimal := !(c == '0' && i+1 < len(src) && (src[i+1]|0x20 == 'x' || src[i+1]|0x20 == 'f' || src[i+1]|0x20 == 'd' || src[i+1]|0x20 == 'b'))
			for j < len(src) {
				d := src[j]
				if isIdentChar(d) && d != '%' && d != '$' {
					j++
					continue
				}
				if decimal && (d == '+' || d == '-') && (src[j-1]|0x20 == 'e') {
					j++
					continue
				}
				break
			}
			toks = append(toks, token{tkNumber, src[i:j], line})
			i = j
		case isIdentStart(c):
			j := i + 1
			for j < len(src) && isIdentChar(src[j]) {
				j++
			}
			toks = append(toks, token{tkIdent, src[i:j], line})
			i = j
		default:
			switch c {
			case ',', ';', ':', '{', '}', '[', ']', '(', ')', '<', '>', '+', '-', '@', '!', '|':
				toks = append(toks, token{tkPunct, string(c), line})
				i++
			default:
				return nil, status.Errorf(status.InvalidArgument, "line %d: unexpected character %q", line, c)
			}
		}
	}
	toks = append(toks, token{tkEOF, "", line})
	return toks, nil
}
