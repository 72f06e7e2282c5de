package ir

import (
	"fmt"
	"strconv"
	"strings"
)

// ParameterRef is the reference of IREE's #flow.parameter.named and
// #stream.parameter.named attributes: a key in a scope ("" is the global
// scope) of the parameter files a program is run with.
type ParameterRef struct {
	Scope, Key string
}

// parameterPrefixes are the spellings of a named parameter reference.
var parameterPrefixes = []string{"#flow.parameter.named<", "#stream.parameter.named<"}

// IsParameterAttr reports whether a is a named parameter reference
// (#flow.parameter.named<…> or #stream.parameter.named<…>).
func IsParameterAttr(a Attribute) bool {
	return IsParameterText(parameterText(a))
}

// ParseParameterAttr reads a named parameter reference:
// <"scope"::"key">, <"key"> or <"scope"::"key", {config}> (the config
// dictionary is accepted and ignored).
func ParseParameterAttr(a Attribute) (ParameterRef, error) {
	text := parameterText(a)
	if !IsParameterText(text) || !strings.HasSuffix(text, ">") {
		return ParameterRef{}, fmt.Errorf("%s is not a #flow.parameter.named<\"scope\"::\"key\"> reference", a)
	}
	o := &OpaqueAttr{Text: text}
	body := text[strings.IndexByte(text, '<')+1 : len(text)-1]
	first, rest, err := quotedPrefix(body)
	if err != nil {
		return ParameterRef{}, fmt.Errorf("%s: %v", o.Text, err)
	}
	rest = strings.TrimSpace(rest)
	ref := ParameterRef{Key: first}
	if strings.HasPrefix(rest, "::") {
		key, r2, err := quotedPrefix(strings.TrimSpace(rest[2:]))
		if err != nil {
			return ParameterRef{}, fmt.Errorf("%s: %v", o.Text, err)
		}
		ref, rest = ParameterRef{Scope: first, Key: key}, strings.TrimSpace(r2)
	}
	if rest != "" && !strings.HasPrefix(rest, ",") {
		return ParameterRef{}, fmt.Errorf("%s: unexpected %q after the key", o.Text, rest)
	}
	if ref.Key == "" {
		return ParameterRef{}, fmt.Errorf("%s: the parameter key is empty", o.Text)
	}
	return ref, nil
}

// quotedPrefix splits a leading MLIR string literal off s.
func quotedPrefix(s string) (string, string, error) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, `"`) {
		return "", "", fmt.Errorf("expected a quoted string at %q", s)
	}
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			v, err := unquoteMLIR(s[:i+1])
			return v, s[i+1:], err
		}
	}
	return "", "", fmt.Errorf("unterminated string %q", s)
}

// unquoteMLIR decodes an MLIR string literal (\\, \", \n, \t and \XX hex
// escapes).
func unquoteMLIR(q string) (string, error) {
	if v, err := strconv.Unquote(q); err == nil {
		return v, nil
	}
	var b strings.Builder
	s := q[1 : len(q)-1]
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case '\\', '"':
			b.WriteByte(s[i])
		default:
			if i+1 < len(s) {
				if x, err := strconv.ParseUint(s[i:i+2], 16, 8); err == nil {
					b.WriteByte(byte(x))
					i++
					continue
				}
			}
			return "", fmt.Errorf("bad escape in %s", q)
		}
	}
	return b.String(), nil
}

// ParameterAttr is a named parameter reference with its type, as IREE
// prints it: #flow.parameter.named<"scope"::"key"> : tensor<4x8xf32>.
type ParameterAttr struct {
	Text string // the reference, e.g. #flow.parameter.named<"m"::"w">
	Type Type
}

// String returns the reference and its type.
func (a *ParameterAttr) String() string { return a.Text + " : " + a.Type.String() }

// AttrType returns the type.
func (a *ParameterAttr) AttrType() Type { return a.Type }

// parameterText returns the reference text of a parameter attribute
// (typed or not), or "".
func parameterText(a Attribute) string {
	switch a := a.(type) {
	case *OpaqueAttr:
		return a.Text
	case *ParameterAttr:
		return a.Text
	}
	return ""
}

// IsParameterText reports whether text starts a named parameter reference.
func IsParameterText(text string) bool {
	for _, p := range parameterPrefixes {
		if strings.HasPrefix(text, p) {
			return true
		}
	}
	return false
}
