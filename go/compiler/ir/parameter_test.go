package ir

import "testing"

func TestParseParameterAttr(t *testing.T) {
	for text, want := range map[string]ParameterRef{
		`#flow.parameter.named<"scope"::"key">`:                      {"scope", "key"},
		`#stream.parameter.named<"key">`:                             {"", "key"},
		`#stream.parameter.named<"s"::"k", {some.config = "hello"}>`: {"s", "k"},
		`#flow.parameter.named<"a\"b"::"c\\d">`:                      {`a"b`, `c\d`},
		`#flow.parameter.named<"" :: "layer.0.weight">`:              {"", "layer.0.weight"},
		`#flow.parameter.named<"m"::"\E2\82\AC">`:                    {"m", "€"},
	} {
		got, err := ParseParameterAttr(&OpaqueAttr{Text: text})
		if err != nil || got != want {
			t.Errorf("%s: %+v, %v; want %+v", text, got, err, want)
		}
	}
	for _, bad := range []string{`#flow.parameter.named<>`, `#flow.parameter.named<"s"::>`, `#flow.parameter.named<"">`,
		`#flow.parameter.named<key>`, `#flow.parameter.named<"s" "k">`, `#flow.other<"k">`, `#flow.parameter.named<"unterminated>`} {
		if _, err := ParseParameterAttr(&OpaqueAttr{Text: bad}); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
	typed := &ParameterAttr{Text: `#flow.parameter.named<"m"::"w">`, Type: &IntegerType{Width: 8}}
	if r, err := ParseParameterAttr(typed); err != nil || r.Key != "w" || !IsParameterAttr(typed) {
		t.Errorf("typed: %+v %v", r, err)
	}
}
