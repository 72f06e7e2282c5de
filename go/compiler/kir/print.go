package kir

import (
	"fmt"
	"strconv"
	"strings"
)

var kindNames = [...]string{
	BadKind: "bad", ConstInt: "constant", ConstFloat: "constantf", PushConstant: "push_constant",
	WorkgroupID: "workgroup_id", WorkgroupCount: "workgroup_count", ThreadID: "thread_id",
	WorkgroupSize: "workgroup_size", SubgroupSize: "subgroup_size", LaneID: "lane_id",
	Add: "add", Sub: "sub", Mul: "mul", DivS: "divs", DivU: "divu", RemS: "rems", RemU: "remu",
	FloorDivS: "floordivs", CeilDivS: "ceildivs", CeilDivU: "ceildivu",
	MinS: "mins", MinU: "minu", MaxS: "maxs", MaxU: "maxu", And: "and", Or: "or", Xor: "xor",
	Shl: "shl", ShrS: "shrs", ShrU: "shru", DivF: "divf", RemF: "remf",
	MinF: "minimumf", MaxF: "maximumf", MinNumF: "minnumf", MaxNumF: "maxnumf",
	PowF: "powf", Atan2: "atan2", CopySign: "copysign",
	NegF: "negf", AbsF: "absf", AbsI: "absi", Sqrt: "sqrt", Rsqrt: "rsqrt", Cbrt: "cbrt",
	Exp: "exp", Exp2: "exp2", Expm1: "expm1", Log: "log", Log2: "log2", Log10: "log10",
	Log1p: "log1p", Sin: "sin", Cos: "cos", Tan: "tan", Sinh: "sinh", Cosh: "cosh",
	Tanh: "tanh", Asin: "asin", Acos: "acos", Atan: "atan", Asinh: "asinh", Acosh: "acosh",
	Atanh: "atanh", Erf: "erf", Erfc: "erfc", Floor: "floor", Ceil: "ceil", Round: "round",
	RoundEven: "roundeven", Trunc: "trunc", CtLz: "ctlz", CtTz: "cttz", CtPop: "ctpop",
	IsNaN: "isnan", IsInf: "isinf", IsFinite: "isfinite", FMA: "fma", Select: "select",
	CmpI: "cmpi", CmpF: "cmpf", ExtS: "extsi", ExtU: "extui", TruncI: "trunci",
	SIToFP: "sitofp", UIToFP: "uitofp", FPToSI: "fptosi", FPToUI: "fptoui",
	FPExt: "extf", FPTrunc: "truncf", Bitcast: "bitcast",
	Broadcast: "broadcast", Extract: "extract", Insert: "insert", LaneIota: "iota",
	Reduce: "reduce", Load: "load", Store: "store", LoadStrided: "load_strided",
	StoreStrided: "store_strided", LoadShared: "load_shared", StoreShared: "store_shared",
	AtomicRMW: "atomic_rmw", FetchAdd: "fetch_add", SpinUntil: "spin_until", Barrier: "barrier", SubgroupReduce: "subgroup_reduce",
	SubgroupShuffle: "subgroup_shuffle", Contract: "contract", DWConv: "dwconv", For: "for", If: "if",
	Yield: "yield",
}

// String returns the op's name in the printed form, e.g. "add".
func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

var intPredNames = [...]string{"eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"}

var floatPredNames = [...]string{"false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
	"ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true"}

var reduceNames = [...]string{"add", "mul", "mins", "maxs", "minu", "maxu", "minimumf",
	"maximumf", "and", "or", "xor"}

// String returns the reduction's name in the printed form, e.g. "add".
func (r ReduceKind) String() string {
	if int(r) < len(reduceNames) {
		return reduceNames[r]
	}
	return "reduce(" + strconv.Itoa(int(r)) + ")"
}

var atomicNames = [...]string{"and", "or"}

// String returns the atomic kind's name in the printed form, e.g. "or".
func (a AtomicKind) String() string {
	if int(a) < len(atomicNames) {
		return atomicNames[a]
	}
	return "atomic(" + strconv.Itoa(int(a)) + ")"
}

func nameOr(names []string, i int64, what string) string {
	if i >= 0 && i < int64(len(names)) {
		return names[i]
	}
	return what + "(" + strconv.FormatInt(i, 10) + ")"
}

// String prints the kernel in a readable, deterministic text form: the
// interface on the first lines, then the body with one op per line, e.g.
// "%5 = add %3, %4 : i64", loops as
// "for %iv = %lo to %hi step %s iter(%a = %init) -> (f32) { … }".
func (k *Kernel) String() string {
	p := &printer{k: k}
	p.header()
	p.block(k.Body, 1)
	p.sb.WriteString("}\n")
	return p.sb.String()
}

type printer struct {
	k  *Kernel
	sb strings.Builder
}

func (p *printer) f(format string, args ...any) { fmt.Fprintf(&p.sb, format, args...) }

func (p *printer) header() {
	k := p.k
	p.f("kernel @%s(", k.Name)
	for i, b := range k.Bindings {
		if i > 0 {
			p.f(", ")
		}
		p.f("b%d: %s %s", i, b.Elem, b.Access)
	}
	p.f(") push_constants(%d) workgroup_size(%d, %d, %d)\n", k.NumPushConstants,
		k.WorkgroupSize[0], k.WorkgroupSize[1], k.WorkgroupSize[2])
	p.f("    grid(")
	for i, g := range k.Grid {
		if i > 0 {
			p.f(", ")
		}
		p.f("ceil(%d", g.Static)
		for _, pc := range g.PushConstants {
			p.f("*pc%d", pc)
		}
		p.f("/%d)", g.Tile)
		if g.Max > 0 {
			p.f(" max %d", g.Max)
		}
	}
	p.f(")\n")
	for i, s := range k.Shared {
		p.f("    shared s%d: %s x %d", i, s.Elem, s.Count)
		if s.Scratch {
			p.f(" scratch (b%d)", k.SharedOrdinal(i))
		}
		p.f("\n")
	}
	p.f("{\n")
}

func (p *printer) typ(v Value) string {
	if v < 0 || int(v) >= len(p.k.Types) {
		return "?"
	}
	return p.k.Types[v].String()
}

func vals(vs []Value) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = "%" + strconv.Itoa(int(v))
	}
	return strings.Join(s, ", ")
}

func (p *printer) types(vs []Value) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = p.typ(v)
	}
	return strings.Join(s, ", ")
}

func (p *printer) block(b *Block, depth int) {
	if b == nil {
		return
	}
	for _, op := range b.Ops {
		p.op(op, depth)
	}
}

func (p *printer) indent(depth int) { p.sb.WriteString(strings.Repeat("  ", depth)) }

func (p *printer) op(op *Op, depth int) {
	p.indent(depth)
	if len(op.Results) > 0 {
		p.f("%s = ", vals(op.Results))
	}
	res := func() string {
		if len(op.Results) == 1 {
			return p.typ(op.Results[0])
		}
		return "(" + p.types(op.Results) + ")"
	}
	arg := func(i int) string {
		if i < len(op.Args) {
			return "%" + strconv.Itoa(int(op.Args[i]))
		}
		return "<missing>"
	}
	switch op.Kind {
	case ConstInt:
		p.f("constant %d : %s\n", op.Imm, res())
	case ConstFloat:
		p.f("constant %s : %s\n", strconv.FormatFloat(op.F, 'g', -1, 64), res())
	case PushConstant, WorkgroupID, WorkgroupCount, ThreadID, WorkgroupSize:
		p.f("%s %d : %s\n", op.Kind, op.Imm, res())
	case CmpI:
		p.f("cmpi %s, %s : %s\n", nameOr(intPredNames[:], op.Imm, "pred"), vals(op.Args), p.types(op.Args))
	case CmpF:
		p.f("cmpf %s, %s : %s\n", nameOr(floatPredNames[:], op.Imm, "pred"), vals(op.Args), p.types(op.Args))
	case ExtS, ExtU, TruncI, SIToFP, UIToFP, FPToSI, FPToUI, FPExt, FPTrunc, Bitcast, Broadcast:
		p.f("%s %s : %s to %s\n", op.Kind, vals(op.Args), p.types(op.Args), res())
	case Extract:
		p.f("extract %s[%d] : %s\n", arg(0), op.Imm, p.types(op.Args))
	case Insert:
		p.f("insert %s, %s[%d] : %s\n", arg(1), arg(0), op.Imm, res())
	case Reduce, SubgroupReduce:
		p.f("%s %s %s : %s\n", op.Kind, ReduceKind(op.Imm), vals(op.Args), p.types(op.Args))
	case Load, LoadShared:
		p.f("%s %s[%s] : %s\n", op.Kind, p.mem(op), arg(0), res())
	case LoadStrided:
		p.f("load_strided b%d[%s, stride %s] : %s\n", op.Binding, arg(0), arg(1), res())
	case Store, StoreShared:
		p.f("%s %s, %s[%s] : %s\n", op.Kind, arg(1), p.mem(op), arg(0), p.types(op.Args[min(1, len(op.Args)):]))
	case StoreStrided:
		p.f("store_strided %s, b%d[%s, stride %s] : %s\n", arg(2), op.Binding, arg(0), arg(1), p.types(op.Args[min(2, len(op.Args)):]))
	case AtomicRMW:
		p.f("atomic_rmw %s %s, b%d[%s] : %s\n", AtomicKind(op.Imm), arg(1), op.Binding, arg(0), p.types(op.Args[min(1, len(op.Args)):]))
	case FetchAdd:
		p.f("fetch_add %s, b%d[%s] : %s\n", arg(1), op.Binding, arg(0), res())
	case SpinUntil:
		p.f("spin_until b%d[%s] >= %s\n", op.Binding, arg(0), arg(1))
	case Contract:
		p.contract(op)
	case DWConv:
		p.dwconv(op)
	case For:
		p.forOp(op, depth)
	case If:
		p.ifOp(op, depth)
	case Yield:
		if len(op.Args) == 0 {
			p.f("yield\n")
		} else {
			p.f("yield %s : %s\n", vals(op.Args), p.types(op.Args))
		}
	default:
		if len(op.Results) == 0 {
			p.f("%s %s\n", op.Kind, vals(op.Args))
		} else if len(op.Args) == 0 {
			p.f("%s : %s\n", op.Kind, res())
		} else {
			p.f("%s %s : %s\n", op.Kind, vals(op.Args), res())
		}
	}
}

func (p *printer) mem(op *Op) string {
	if op.Kind == LoadShared || op.Kind == StoreShared {
		return "s" + strconv.Itoa(op.Binding)
	}
	return "b" + strconv.Itoa(op.Binding)
}

func (p *printer) contract(op *Op) {
	a := op.Args
	if _, n := ContractOperands(op.Imm); len(a) != n {
		p.f("contract <%d args: %s>\n", len(a), vals(a))
		return
	}
	u := ""
	if op.Imm&ContractUnsigned != 0 {
		u = " unsigned"
	}
	acc := "+="
	if op.Imm&ContractZero != 0 {
		acc = "="
	}
	p.f("contract%s b%d[%s] * b%d[%s] %s b%d[%s] size(%s)%s\n", u,
		op.Bindings[0], vals(a[0:3]), op.Bindings[1], vals(a[3:6]), acc,
		op.Bindings[2], vals(a[6:9]), vals(a[9:12]), contractEpilogueText(op))
}

func (p *printer) dwconv(op *Op) {
	a := op.Args
	if len(a) != DWConvOperands(op.Imm) {
		p.f("dwconv <%d args: %s>\n", len(a), vals(a))
		return
	}
	epi, rest := "", a[DWConvArgs:]
	if op.Imm&DWConvBias != 0 {
		epi += fmt.Sprintf(" + bias b%d[%s]", op.Binding, vals(rest[:2]))
		rest = rest[2:]
	}
	if op.Imm&DWConvMax != 0 {
		epi += " max " + vals(rest[:1])
		rest = rest[1:]
	}
	if op.Imm&DWConvMin != 0 {
		epi += " min " + vals(rest[:1])
	}
	p.f("dwconv b%d[%s] * b%d[%s] = b%d[%s] size(%s) window(%s) stride(%s) dilation(%s) pad(%s) sum(%s)%s\n",
		op.Bindings[0], vals(a[0:3]), op.Bindings[1], vals(a[3:7]), op.Bindings[2], vals(a[7:10]),
		vals(a[10:15]), vals(a[15:17]), vals(a[17:19]), vals(a[19:21]), vals(a[21:23]), vals(a[23:26]), epi)
}

func (p *printer) forOp(op *Op, depth int) {
	arg := func(i int) string {
		if i < len(op.Args) {
			return "%" + strconv.Itoa(int(op.Args[i]))
		}
		return "<missing>"
	}
	var body *Block
	if len(op.Regions) > 0 {
		body = op.Regions[0]
	}
	iv := "<missing>"
	if body != nil && len(body.Args) > 0 {
		iv = "%" + strconv.Itoa(int(body.Args[0]))
	}
	p.f("for %s = %s to %s step %s", iv, arg(0), arg(1), arg(2))
	if len(op.Args) > 3 {
		p.f(" iter(")
		for i, init := range op.Args[3:] {
			if i > 0 {
				p.f(", ")
			}
			if body != nil && i+1 < len(body.Args) {
				p.f("%%%d = ", body.Args[i+1])
			}
			p.f("%%%d", init)
		}
		p.f(")")
	}
	if len(op.Results) > 0 {
		p.f(" -> (%s)", p.types(op.Results))
	}
	p.f(" {\n")
	p.block(body, depth+1)
	p.indent(depth)
	p.f("}\n")
}

func (p *printer) ifOp(op *Op, depth int) {
	cond := "<missing>"
	if len(op.Args) > 0 {
		cond = "%" + strconv.Itoa(int(op.Args[0]))
	}
	p.f("if %s", cond)
	if len(op.Results) > 0 {
		p.f(" -> (%s)", p.types(op.Results))
	}
	p.f(" {\n")
	if len(op.Regions) > 0 {
		p.block(op.Regions[0], depth+1)
	}
	p.indent(depth)
	p.f("}")
	if len(op.Regions) > 1 && op.Regions[1] != nil && !onlyEmptyYield(op.Regions[1]) {
		p.f(" else {\n")
		p.block(op.Regions[1], depth+1)
		p.indent(depth)
		p.f("}")
	}
	p.f("\n")
}

func onlyEmptyYield(b *Block) bool {
	return len(b.Ops) == 0 || (len(b.Ops) == 1 && b.Ops[0].Kind == Yield && len(b.Ops[0].Args) == 0)
}
