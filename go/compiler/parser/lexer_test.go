package parser

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLexer(t *testing.T) {
	type tok struct {
		Kind tokKind
		Text string
	}
	cases := []struct {
		src  string
		want []tok
	}{
		{"foo arith.addf f32 x$y", []tok{{tokIdent, "foo"}, {tokIdent, "arith.addf"}, {tokIdent, "f32"}, {tokIdent, "x$y"}}},
		{"%0 %arg0#1 %a-b ^bb3 @sym @\"q s\" #map !hal.buffer_view",
			[]tok{{tokValue, "%0"}, {tokValue, "%arg0#1"}, {tokValue, "%a-b"}, {tokBlock, "^bb3"}, {tokSymbol, "@sym"},
				{tokSymbol, `@"q s"`}, {tokHash, "#map"}, {tokBang, "!hal.buffer_view"}}},
		{"42 0x2A 1.5 2.0e-3 1e5 3. 0xf32", []tok{{tokInt, "42"}, {tokInt, "0x2A"}, {tokFloat, "1.5"}, {tokFloat, "2.0e-3"},
			{tokFloat, "1e5"}, {tokFloat, "3."}, {tokInt, "0xf32"}}},
		{`"a\"b" "\0A"`, []tok{{tokString, `"a\"b"`}, {tokString, `"\0A"`}}},
		{"-> - ... ( ) { } [ ] < > , : = ? * + |", []tok{{tokPunct, "->"}, {tokPunct, "-"}, {tokPunct, "..."}, {tokPunct, "("},
			{tokPunct, ")"}, {tokPunct, "{"}, {tokPunct, "}"}, {tokPunct, "["}, {tokPunct, "]"}, {tokPunct, "<"}, {tokPunct, ">"},
			{tokPunct, ","}, {tokPunct, ":"}, {tokPunct, "="}, {tokPunct, "?"}, {tokPunct, "*"}, {tokPunct, "+"}, {tokPunct, "|"}}},
		{"{-# x #-}", []tok{{tokPunct, "{-#"}, {tokIdent, "x"}, {tokPunct, "#-}"}}},
		{"a // comment ) (\n b", []tok{{tokIdent, "a"}, {tokIdent, "b"}}},
		{"%x->", []tok{{tokValue, "%x"}, {tokPunct, "->"}}},
		{"-1", []tok{{tokPunct, "-"}, {tokInt, "1"}}},
		{"\"open\n", []tok{{tokError, "\"open"}}},
		{"%", []tok{{tokError, "%"}}},
	}
	for _, c := range cases {
		l := lexer{src: c.src}
		var got []tok
		for {
			tk := l.next()
			if tk.kind == tokEOF {
				break
			}
			got = append(got, tok{tk.kind, tk.text})
			if tk.kind == tokError {
				break
			}
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", c.src, diff)
		}
	}
}

func TestStringEscapes(t *testing.T) {
	l := lexer{src: `"tab\there\n \"q\" \\ \41\7e"`}
	tk := l.next()
	if tk.kind != tokString || tk.val != "tab\there\n \"q\" \\ A~" {
		t.Errorf("got %v %q", tk.kind, tk.val)
	}
}
