package vmvx

import (
	"unsafe"

	"github.com/gree-ml/gree/go/schemas/vmvx"
	"github.com/gree-ml/gree/go/status"
)

// handler executes one prepared instruction.
type handler func(t *thread, in *inst) error

// xop selects how the interpreter loop runs an instruction: most call their
// handler; control flow, scalar i64 arithmetic and the workgroup queries
// run inline.
type xop uint8

const (
	xCall xop = iota
	xJmp
	xJz
	xJnz
	xForInit // iv d, lo a, hi b, step c
	xForNext // iv d, hi b, step c
	xMov8    // copy one 8-byte scalar slot
	xConst8  // store imm into an 8-byte scalar slot
	xAddI64
	xSubI64
	xMulI64
	xCmpI64
	xPushConst
	xWgID
	xWgCount
	xThreadID
	xWgSize
	xSubgroupSize
	xLaneID
	xBarrier
	xSubgroupReduce
	xSubgroupShuffle
)

// inst is a prepared instruction: register operands as byte offsets in
// the frame, and everything its handler needs precomputed.
type inst struct {
	op         xop
	vop        vmvx.Opcode
	pred       uint8
	isI1       bool // i1 memory access: bytes 0/1 ↔ lanes 0/-1
	shared     bool // the buffer is a shared allocation
	d, a, b, c uint32
	n          int // lanes of the destination (or of the stored value)
	na         int // lanes of a (reduce source, select condition)
	size       int // element bytes (memory, extract, insert); register bytes (mov)
	bits       int // integer width
	mask       uint64
	imm        int64
	target     int
	bind       [3]int
	elems      [3]vmvx.Elem
	args       []uint32 // contract operands
	fn         handler
	half       *halfOp
	sub        [2]*inst // subgroup reduce over a full and a partial subgroup
	pc         int      // index in the entry's code, for errors
	name       string   // opcode name, for errors
}

// runCtx is what the threads of one workgroup share.
type runCtx struct {
	prog     *program
	wg       [3]int64
	count    [3]int64
	pcs      []int64
	bindings [][]byte
	shared   [][]byte
	single   bool
}

// thread is one invocation's execution state; its registers are the frame
// at p.
type thread struct {
	p      unsafe.Pointer
	run    *runCtx
	tid    [3]int64
	linear int64
	pc     int
	parked bool
	done   bool
}

// exec runs t from t.pc until the end of the code (false) or, in a
// workgroup of several threads, until a barrier or subgroup operation
// (true, with t.pc at that instruction).
func (t *thread) exec() (bool, error) {
	code := t.run.prog.code
	pc := t.pc
	for pc < len(code) {
		in := &code[pc]
		pc++
		switch in.op {
		case xCall:
			if err := in.fn(t, in); err != nil {
				t.pc = pc
				return false, err
			}
		case xJmp:
			pc = in.target
		case xJz:
			if *ptr[int8](t, in.a) == 0 {
				pc = in.target
			}
		case xJnz:
			if *ptr[int8](t, in.a) != 0 {
				pc = in.target
			}
		case xForInit:
			step := *ptr[int64](t, in.c)
			if step <= 0 {
				t.pc = pc
				return false, status.Errorf(status.InvalidArgument, "vmvx: entry %q instruction %d (for_init): step %d is not positive", t.run.prog.entry.Name, in.pc, step)
			}
			lo := *ptr[int64](t, in.a)
			*ptr[int64](t, in.d) = lo
			if lo >= *ptr[int64](t, in.b) {
				pc = in.target
			}
		case xForNext:
			iv := ptr[int64](t, in.d)
			next := *iv + *ptr[int64](t, in.c)
			if next > *iv && next < *ptr[int64](t, in.b) {
				*iv = next
				pc = in.target
			}
		case xMov8:
			*ptr[uint64](t, in.d) = *ptr[uint64](t, in.a)
		case xConst8:
			*ptr[int64](t, in.d) = in.imm
		case xAddI64:
			*ptr[int64](t, in.d) = *ptr[int64](t, in.a) + *ptr[int64](t, in.b)
		case xSubI64:
			*ptr[int64](t, in.d) = *ptr[int64](t, in.a) - *ptr[int64](t, in.b)
		case xMulI64:
			*ptr[int64](t, in.d) = *ptr[int64](t, in.a) * *ptr[int64](t, in.b)
		case xCmpI64:
			*ptr[int8](t, in.d) = i1(cmpI64(in.pred, *ptr[int64](t, in.a), *ptr[int64](t, in.b)))
		case xPushConst:
			*ptr[int64](t, in.d) = t.run.pcs[in.imm]
		case xWgID:
			*ptr[int64](t, in.d) = t.run.wg[in.imm]
		case xWgCount:
			*ptr[int64](t, in.d) = t.run.count[in.imm]
		case xThreadID:
			*ptr[int64](t, in.d) = t.tid[in.imm]
		case xWgSize:
			*ptr[int64](t, in.d) = t.run.prog.ws[in.imm]
		case xSubgroupSize:
			*ptr[int64](t, in.d) = int64(t.run.prog.sgSize)
		case xLaneID:
			*ptr[int64](t, in.d) = t.linear % int64(t.run.prog.sgSize)
		case xBarrier, xSubgroupReduce, xSubgroupShuffle:
			if !t.run.single {
				t.pc = pc - 1
				return true, nil
			}
			if in.op != xBarrier { // a subgroup of one thread
				*ptr[uint64](t, in.d) = *ptr[uint64](t, in.a)
			}
		}
	}
	t.pc = pc
	return false, nil
}

func cmpI64(p uint8, a, b int64) bool {
	switch p {
	case 0:
		return a == b
	case 1:
		return a != b
	case 2:
		return a < b
	case 3:
		return a <= b
	case 4:
		return a > b
	case 5:
		return a >= b
	case 6:
		return uint64(a) < uint64(b)
	case 7:
		return uint64(a) <= uint64(b)
	case 8:
		return uint64(a) > uint64(b)
	}
	return uint64(a) >= uint64(b)
}
