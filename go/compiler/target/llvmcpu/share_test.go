package llvmcpu

import (
	"strings"
	"testing"
)

// TestArgConstantsThroughHelpers: an argument is a constant of W when
// every call passes the same literal, directly or through a helper whose
// own argument is that literal at each of its calls; a value computed at
// run time, a second literal or an expression is not.
func TestArgConstantsThroughHelpers(t *testing.T) {
	a, b := &module{decls: map[string]string{}}, &module{decls: map[string]string{}}
	a.body.WriteString("  call void @W(i64 1, i64 %t3, i64 7, float 0xFFF0000000000000, ptr null)\n" +
		"  call void @V(i64 1, i64 9)\n")
	b.body.WriteString("  call void @W(i64 1, i64 4, i64 8, float 0xFFF0000000000000, ptr null)\n" +
		"  call void @V(i64 1, i64 9)\n")
	b.declare("V", "define internal void @V(i64 %x, i64 %y) #0 {\nentry:\n"+
		"  call void @W(i64 %x, i64 %y, i64 7, float 0xFFF0000000000000, ptr getelementptr (i8, ptr null, i64 8))\n  ret void\n}\n")
	got := argConstants([]*module{a, b})
	want := []string{"1", "-", "-", "0xFFF0000000000000", "-"}
	if strings.Join(got["W"], " ") != strings.Join(want, " ") {
		t.Fatalf("W's constants %q, want %q", got["W"], want)
	}
	w := "define internal void @W(i64 %acs, i64 %n, i64 %k, float %lo, ptr %R) #0 {\nentry:\n  ret void\n}\n"
	spec := specialize(w, "W", got["W"])
	for _, s := range []string{"(i64 %acs.arg, i64 %n, i64 %k, float %lo.arg, ptr %R)", "entry:\n  %acs = select i1 true, i64 1, i64 1\n", "%lo = select i1 true, float 0xFFF0000000000000"} {
		if !strings.Contains(spec, s) {
			t.Errorf("specialized W lacks %q:\n%s", s, spec)
		}
	}
	if specialize(w, "W", want[:3]) != w {
		t.Errorf("constants for the wrong number of parameters changed W")
	}
}
