package vmvx

import (
	"math"

	"github.com/gree-ml/gree/go/schemas/vmvx"
	"github.com/gree-ml/gree/go/status"
)

// program is an entry point prepared for execution.
type program struct {
	entry      *vmvx.Entry
	code       []inst
	frameBytes int // register storage and scratch of one thread
	threads    int
	sgSize     int
	ws         [3]int64
	sgScratch  uint32 // gather area of subgroup reductions
}

// preparer turns a verified entry into a program.
type preparer struct {
	e         *vmvx.Entry
	p         *program
	offs      []uint32
	halfBase  uint32 // first of four f32 scratch slots for f16/bf16 ops
	halfSlot  uint32 // bytes per slot
	frameSize uint32
}

func align8(n uint64) uint64 { return (n + 7) &^ 7 }

func prepare(e *vmvx.Entry) (*program, error) {
	p := &program{entry: e, threads: e.Threads(), sgSize: e.SubgroupSize()}
	for d, n := range e.WorkgroupSize {
		p.ws[d] = int64(n)
	}
	pr := &preparer{e: e, p: p, offs: make([]uint32, len(e.Regs))}
	var off uint64
	maxHalf := uint64(0)
	for i, r := range e.Regs {
		pr.offs[i] = uint32(off)
		off += r.Bytes()
		if r.Elem == vmvx.F16 || r.Elem == vmvx.BF16 {
			maxHalf = max(maxHalf, uint64(r.Lanes))
		}
	}
	pr.halfBase, pr.halfSlot = uint32(off), uint32(align8(4*maxHalf))
	off += 4 * uint64(pr.halfSlot)
	p.sgScratch = uint32(off)
	off += 8 * vmvx.MaxSubgroupSize
	if off > math.MaxUint32/2 {
		return nil, status.Errorf(status.ResourceExhausted, "frame of %d bytes is too large", off)
	}
	p.frameBytes = int(off)
	p.code = make([]inst, len(e.Code))
	for i := range e.Code {
		if err := pr.instr(i, &e.Code[i], &p.code[i]); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// scratch returns the offset of f32 scratch slot i (0..3); a slot holds as
// many lanes as the widest f16 or bf16 register.
func (pr *preparer) scratch(i uint32) uint32 {
	return pr.halfBase + i*pr.halfSlot
}

func (pr *preparer) reg(r uint32) opnd {
	return opnd{off: pr.offs[r], t: pr.e.Regs[r]}
}

func (pr *preparer) instr(pc int, vi *vmvx.Instr, in *inst) error {
	*in = inst{pc: pc, name: vi.Op.String(), imm: vi.Imm, target: int(vi.Target)}
	for i, b := range vi.Bindings {
		in.bind[i] = int(b)
	}
	var dst opnd
	if vi.Op.HasDst() {
		dst = pr.reg(vi.Dst)
	}
	args := make([]opnd, len(vi.Args))
	for i, r := range vi.Args {
		args[i] = pr.reg(r)
	}
	in.vop = vi.Op
	if err := pr.build(in, dst, args); err != nil {
		return err
	}
	if in.op == xCall && in.fn == nil {
		return status.Errorf(status.Internal, "instruction %d (%s) on %s: no handler", pc, vi.Op, dst.t)
	}
	return nil
}

// isHalf reports f16 and bf16.
func isHalf(e vmvx.Elem) bool { return e == vmvx.F16 || e == vmvx.BF16 }

// setOperands stores the offsets and lane counts of dst and args in in:
// d, then a, b, c in order.
func setOperands(in *inst, dst opnd, args []opnd) {
	in.d, in.n = dst.off, dst.n()
	offs := [3]*uint32{&in.a, &in.b, &in.c}
	for i := 0; i < len(args) && i < 3; i++ {
		*offs[i] = args[i].off
	}
	if len(args) > 0 {
		in.na = args[0].n()
	}
	e := dst.t.Elem
	if e.IsInt() {
		in.bits, in.mask = e.Bits(), mask(e)
	}
}
