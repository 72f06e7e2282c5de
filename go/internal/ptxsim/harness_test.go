package ptxsim

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// opCase is one instruction (or a few) tested over input vectors: thread i
// loads A, B and C from 8-byte slots i of three arrays, runs op and stores
// D to slot i of the output. Placeholders A B C D name registers of the
// given types; scratch registers %p1..%p3, %t0..%t7 (b32), %x0..%x7 (b64)
// are declared too.
type opCase struct {
	name           string
	op             string
	td, ta, tb, tc string
	in             [][3]uint64
	want           []uint64
}

var regPrefix = map[string]string{
	"b16": "%h", "u16": "%h", "s16": "%h", "f16": "%h", "bf16": "%h",
	"b32": "%i", "u32": "%i", "s32": "%i",
	"b64": "%l", "u64": "%l", "s64": "%l",
	"f32": "%f", "f64": "%g",
}

func typeBits(t string) int {
	switch regPrefix[t] {
	case "%h":
		return 16
	case "%i", "%f":
		return 32
	}
	return 64
}

func ldType(t string) string {
	switch t {
	case "f32", "f64":
		return t
	}
	return fmt.Sprintf("b%d", typeBits(t))
}

func (c opCase) entryName() string { return "op_" + c.name }

// kernel returns the PTX entry for the case (without module header).
func (c opCase) kernel() string {
	var sb strings.Builder
	name := c.entryName()
	fmt.Fprintf(&sb, ".visible .entry %s(.param .u64 %s_a, .param .u64 %s_b, .param .u64 %s_c, .param .u64 %s_d)\n{\n", name, name, name, name, name)
	sb.WriteString("\t.reg .pred %p<4>;\n\t.reg .b16 %ha, %hb, %hc, %hd;\n\t.reg .b32 %ia, %ib, %ic, %id, %t<8>;\n")
	sb.WriteString("\t.reg .b64 %la, %lb, %lc, %ld, %x<8>, %addr<4>, %off;\n\t.reg .f32 %fa, %fb, %fc, %fd;\n\t.reg .f64 %ga, %gb, %gc, %gd;\n")
	sb.WriteString("\tmov.u32 %t0, %tid.x;\n\tmul.wide.u32 %off, %t0, 8;\n")
	for i, r := range "abcd" {
		fmt.Fprintf(&sb, "\tld.param.u64 %%addr%d, [%s_%c];\n\tadd.s64 %%addr%d, %%addr%d, %%off;\n", i, name, r, i, i)
	}
	op := c.op
	for i, t := range []string{c.ta, c.tb, c.tc} {
		if t == "" {
			continue
		}
		reg := regPrefix[t] + string("abc"[i])
		fmt.Fprintf(&sb, "\tld.global.%s %s, [%%addr%d];\n", ldType(t), reg, i)
		op = strings.ReplaceAll(op, string("ABC"[i]), reg)
	}
	op = strings.ReplaceAll(op, "D", regPrefix[c.td]+"d")
	for _, l := range strings.Split(op, ";") {
		if l = strings.TrimSpace(l); l != "" {
			fmt.Fprintf(&sb, "\t%s;\n", l)
		}
	}
	fmt.Fprintf(&sb, "\tst.global.%s [%%addr3], %sd;\n\tret;\n}\n", ldType(c.td), regPrefix[c.td])
	return sb.String()
}

const ptxHeader = ".version 8.0\n.target sm_90\n.address_size 64\n\n"

func runOpCase(t *testing.T, c opCase) {
	t.Helper()
	if len(c.in) != len(c.want) {
		t.Fatalf("%s: %d inputs, %d wants", c.name, len(c.in), len(c.want))
	}
	src := ptxHeader + c.kernel()
	m, err := Load(src)
	if err != nil {
		t.Fatalf("%s: Load: %v\n%s", c.name, err, src)
	}
	n := len(c.in)
	var a, b, cc []uint64
	for _, v := range c.in {
		a, b, cc = append(a, v[0]), append(b, v[1]), append(cc, v[2])
	}
	ar := NewArena()
	pa, pb, pc, pd := ar.Alloc(u64s(a...)), ar.Alloc(u64s(b...)), ar.Alloc(u64s(cc...)), ar.Alloc(make([]byte, 8*n))
	if err := m.Launch(c.entryName(), [3]int{1, 1, 1}, [3]int{n, 1, 1}, []uint64{pa, pb, pc, pd}, ar); err != nil {
		t.Errorf("%s: Launch: %v", c.name, err)
		return
	}
	mask := uint64(1)<<typeBits(c.td) - 1
	if typeBits(c.td) == 64 {
		mask = ^uint64(0)
	}
	out := ar.Bytes(pd)
	for i := 0; i < n; i++ {
		got, want := getU64(out, i)&mask, c.want[i]&mask
		if got != want {
			t.Errorf("%s: case %d %s(%#x, %#x, %#x) = %#x, want %#x", c.name, i, c.op, c.in[i][0], c.in[i][1], c.in[i][2], got, want)
		}
	}
}

func f32b(x float64) uint64 { return uint64(math.Float32bits(float32(x))) }
func f64b(x float64) uint64 { return math.Float64bits(x) }
func i64(x int64) uint64    { return uint64(x) }

var (
	nanF32  = uint64(0x7fc00000)
	nanF64  = math.Float64bits(math.NaN())
	infF32  = uint64(0x7f800000)
	ninfF32 = uint64(0xff800000)
	maxF32  = uint64(0x7f7fffff)
	negZ32  = uint64(0x80000000)
)

// ab builds two-operand inputs.
func ab(pairs ...uint64) [][3]uint64 {
	var r [][3]uint64
	for i := 0; i+1 < len(pairs); i += 2 {
		r = append(r, [3]uint64{pairs[i], pairs[i+1], 0})
	}
	return r
}

// a1 builds one-operand inputs.
func a1(vals ...uint64) [][3]uint64 {
	var r [][3]uint64
	for _, v := range vals {
		r = append(r, [3]uint64{v, 0, 0})
	}
	return r
}

func abc(triples ...uint64) [][3]uint64 {
	var r [][3]uint64
	for i := 0; i+2 < len(triples); i += 3 {
		r = append(r, [3]uint64{triples[i], triples[i+1], triples[i+2]})
	}
	return r
}

func ws(v ...uint64) []uint64 { return v }

// allOpCases lists every table-driven case (the ptxas test assembles them).
func allOpCases() []opCase {
	var all []opCase
	for _, tab := range [][]opCase{intCases, floatCases, cvtCases} {
		all = append(all, tab...)
	}
	return all
}
