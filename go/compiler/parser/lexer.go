package parser

import "strings"

// tokKind classifies tokens.
type tokKind uint8

const (
	tokEOF    tokKind = iota
	tokError          // val holds the message
	tokIdent          // bare identifier: foo, arith.addf, f32
	tokValue          // %name, or %name#N for a result of a group
	tokBlock          // ^name
	tokSymbol         // @name or @"quoted" (val holds the name)
	tokHash           // #name
	tokBang           // !name
	tokInt            // 42, 0x2A
	tokFloat          // 1.5, 2.0e-3
	tokString         // "…" (val holds the decoded string)
	tokPunct          // ( ) { } [ ] < > , : = ? * + - | -> ... {-# #-}
)

// token is one lexeme: its kind, its source text and byte offset.
type token struct {
	kind tokKind
	text string
	pos  int
	val  string
}

// lexer produces tokens on demand; the parser may move pos to re-lex or to
// scan raw text (dimension lists, dialect bodies).
type lexer struct {
	src string
	pos int
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isHex(c byte) bool    { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// isIDChar reports whether c continues a bare identifier.
func isIDChar(c byte) bool { return isLetter(c) || isDigit(c) || c == '$' || c == '.' }

// skipSpace moves past white space and // comments.
func (l *lexer) skipSpace() {
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			l.pos++
		case c == '/' && l.pos+1 < len(l.src) && l.src[l.pos+1] == '/':
			for l.pos < len(l.src) && l.src[l.pos] != '\n' {
				l.pos++
			}
		default:
			return
		}
	}
}

func (l *lexer) peekByte(off int) byte {
	if l.pos+off < len(l.src) {
		return l.src[l.pos+off]
	}
	return 0
}

func (l *lexer) next() token {
	l.skipSpace()
	start := l.pos
	if l.pos >= len(l.src) {
		return token{kind: tokEOF, pos: start}
	}
	c := l.src[l.pos]
	switch {
	case isLetter(c):
		for l.pos < len(l.src) && isIDChar(l.src[l.pos]) {
			l.pos++
		}
		return l.tok(tokIdent, start)
	case isDigit(c):
		return l.number(start)
	case c == '%' || c == '^' || c == '#' || c == '!' || c == '@':
		return l.prefixed(c, start)
	case c == '"':
		s, err := l.str()
		if err != "" {
			return token{kind: tokError, pos: start, text: l.src[start:l.pos], val: err}
		}
		t := l.tok(tokString, start)
		t.val = s
		return t
	case c == '-':
		l.pos++
		if l.peekByte(0) == '>' {
			l.pos++
		}
		return l.tok(tokPunct, start)
	case c == '.':
		if strings.HasPrefix(l.src[l.pos:], "...") {
			l.pos += 3
			return l.tok(tokPunct, start)
		}
	case c == '{':
		l.pos++
		if strings.HasPrefix(l.src[l.pos:], "-#") {
			l.pos += 2
		}
		return l.tok(tokPunct, start)
	case strings.IndexByte("()}[]<>,:=?*+|", c) >= 0:
		l.pos++
		return l.tok(tokPunct, start)
	}
	l.pos++
	return token{kind: tokError, pos: start, text: l.src[start:l.pos], val: "unexpected character " + quoteChar(c)}
}

func quoteChar(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return "'" + string(c) + "'"
	}
	const hex = "0123456789ABCDEF"
	return "'\\" + string(hex[c>>4]) + string(hex[c&15]) + "'"
}

func (l *lexer) tok(k tokKind, start int) token {
	return token{kind: k, text: l.src[start:l.pos], pos: start}
}

// number lexes 42, 0x2A, 1.5, 1.5e-3 (and, leniently, 1e5).
func (l *lexer) number(start int) token {
	if l.src[l.pos] == '0' && (l.peekByte(1) == 'x' || l.peekByte(1) == 'X') && isHex(l.peekByte(2)) {
		l.pos += 2
		for l.pos < len(l.src) && isHex(l.src[l.pos]) {
			l.pos++
		}
		return l.tok(tokInt, start)
	}
	for l.pos < len(l.src) && isDigit(l.src[l.pos]) {
		l.pos++
	}
	kind := tokInt
	if l.peekByte(0) == '.' {
		kind = tokFloat
		l.pos++
		for l.pos < len(l.src) && isDigit(l.src[l.pos]) {
			l.pos++
		}
	}
	if c := l.peekByte(0); c == 'e' || c == 'E' {
		d := l.peekByte(1)
		if isDigit(d) || (d == '+' || d == '-') && isDigit(l.peekByte(2)) {
			kind = tokFloat
			l.pos += 2
			for l.pos < len(l.src) && isDigit(l.src[l.pos]) {
				l.pos++
			}
		}
	}
	return l.tok(kind, start)
}

// prefixed lexes %name, ^name, #name, !name and @name / @"name"; also the
// "#-}" that closes file metadata.
func (l *lexer) prefixed(c byte, start int) token {
	l.pos++
	if c == '#' && strings.HasPrefix(l.src[l.pos:], "-}") {
		l.pos += 2
		return l.tok(tokPunct, start)
	}
	if c == '@' && l.peekByte(0) == '"' {
		s, err := l.str()
		if err != "" {
			return token{kind: tokError, pos: start, text: l.src[start:l.pos], val: err}
		}
		t := l.tok(tokSymbol, start)
		t.val = s
		return t
	}
	idStart := l.pos
	for l.pos < len(l.src) {
		d := l.src[l.pos]
		if isIDChar(d) || d == '-' && l.peekByte(1) != '>' && c != '@' {
			l.pos++
			continue
		}
		break
	}
	if l.pos == idStart {
		return token{kind: tokError, pos: start, text: l.src[start:l.pos],
			val: "expected an identifier after '" + string(c) + "'"}
	}
	kind := map[byte]tokKind{'%': tokValue, '^': tokBlock, '#': tokHash, '!': tokBang, '@': tokSymbol}[c]
	if c == '%' && l.peekByte(0) == '#' && isDigit(l.peekByte(1)) {
		l.pos++
		for l.pos < len(l.src) && isDigit(l.src[l.pos]) {
			l.pos++
		}
	}
	t := l.tok(kind, start)
	if c == '@' {
		t.val = l.src[idStart:l.pos]
	}
	return t
}

// str lexes a string literal at l.pos and returns its decoded value, or an
// error message.
func (l *lexer) str() (string, string) {
	l.pos++ // opening quote
	// Fast path: no escapes (resource blobs are megabytes of hex digits).
	for i := l.pos; i < len(l.src); i++ {
		if c := l.src[i]; c == '"' {
			v := string(l.src[l.pos:i])
			l.pos = i + 1
			return v, ""
		} else if c == '\\' || c == '\n' {
			break
		}
	}
	var sb strings.Builder
	for {
		if l.pos >= len(l.src) || l.src[l.pos] == '\n' {
			return "", "expected '\"' to end the string literal"
		}
		c := l.src[l.pos]
		l.pos++
		switch c {
		case '"':
			return sb.String(), ""
		case '\\':
			if l.pos >= len(l.src) {
				return "", "expected '\"' to end the string literal"
			}
			e := l.src[l.pos]
			switch {
			case e == '"' || e == '\\':
				sb.WriteByte(e)
				l.pos++
			case e == 'n':
				sb.WriteByte('\n')
				l.pos++
			case e == 't':
				sb.WriteByte('\t')
				l.pos++
			case isHex(e) && l.pos+1 < len(l.src) && isHex(l.src[l.pos+1]):
				sb.WriteByte(unhex(e)<<4 | unhex(l.src[l.pos+1]))
				l.pos += 2
			default:
				return "", "unknown escape " + quoteChar(e) + " in string literal"
			}
		default:
			sb.WriteByte(c)
		}
	}
}

func unhex(c byte) byte {
	switch {
	case isDigit(c):
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}
