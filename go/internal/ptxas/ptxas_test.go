package ptxas

import (
	"strings"
	"testing"
)

func TestAssembleReportsRegistersAndErrors(t *testing.T) {
	p := Need(t)
	good := []byte(".version 6.0\n.target sm_60\n.address_size 64\n.visible .entry k(.param .u64 a)\n{\n\t.reg .b64 %rd<3>;\n\tld.param.u64 %rd1, [a];\n\tcvta.to.global.u64 %rd2, %rd1;\n\tst.global.u64 [%rd2], %rd1;\n\tret;\n}\n")
	infos, err := Assemble(p, good, "sm_80")
	if err != nil {
		t.Fatal(err)
	}
	if in, ok := infos["k"]; !ok || in.Registers == 0 {
		t.Errorf("infos = %+v, want entry k with registers", infos)
	}
	bad := []byte(strings.Replace(string(good), "st.global.u64", "st.global.bogus", 1))
	if _, err := Assemble(p, bad, "sm_80"); err == nil || !strings.Contains(err.Error(), "ptxas") {
		t.Errorf("bad PTX: err = %v, want ptxas's message", err)
	}
}
