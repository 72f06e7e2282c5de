package vmvx

import (
	"fmt"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/schemas/vmvx"
	"github.com/gree-ml/gree/go/status"
)

// Emit translates kernels into one vmvx executable; entry i is kernels[i].
// Each kernel is verified first. Errors are INVALID_ARGUMENT statuses
// naming the kernel.
func Emit(kernels []*kir.Kernel) ([]byte, error) {
	x, err := Translate(kernels)
	if err != nil {
		return nil, err
	}
	return vmvx.Encode(x)
}

// Translate is Emit without the final encoding: it returns the executable
// as a data structure (for inspection and tests).
func Translate(kernels []*kir.Kernel) (*vmvx.Executable, error) {
	x := &vmvx.Executable{Entries: make([]vmvx.Entry, len(kernels))}
	for i, k := range kernels {
		if err := kir.Verify(k); err != nil {
			return nil, fmt.Errorf("vmvx: kernel %d: %w", i, err)
		}
		// vmvx's index registers are 64-bit: i32 indices (kernels
		// legalized for GPUs without Int64) widen.
		kir.WidenIndices(k)
		e, err := emitKernel(k)
		if err != nil {
			return nil, fmt.Errorf("vmvx: kernel %d (@%s): %w", i, k.Name, err)
		}
		x.Entries[i] = *e
	}
	return x, nil
}

// emitter translates one kernel.
type emitter struct {
	k     *kir.Kernel
	e     *vmvx.Entry
	live  *liveness
	dies  [][]kir.Value
	reg   []int32                   // register of each value, -1 when none
	free  map[vmvx.RegType][]uint32 // free registers by type
	types []vmvx.RegType            // type of each register (e.Regs)
	sub   *emulated                 // subgroups of another size than vmvx's, or nil
}

func emitKernel(k *kir.Kernel) (*vmvx.Entry, error) {
	e := &vmvx.Entry{
		Name:             k.Name,
		NumPushConstants: uint32(k.NumPushConstants),
	}
	for d, n := range k.WorkgroupSize {
		e.WorkgroupSize[d] = uint32(n)
	}
	for _, b := range k.Bindings {
		e.Bindings = append(e.Bindings, vmvx.Binding{Elem: vmvx.Elem(b.Elem), Access: vmvx.Access(b.Access)})
	}
	for _, s := range k.Shared {
		e.Shared = append(e.Shared, vmvx.Shared{Elem: vmvx.Elem(s.Elem), Count: uint64(s.Count)})
	}
	for v, t := range k.Types {
		if t.Width() > vmvx.MaxLanes {
			return nil, status.Errorf(status.InvalidArgument, "value %%%d has %d lanes; vmvx registers hold at most %d", v, t.Width(), vmvx.MaxLanes)
		}
	}
	em := &emitter{k: k, e: e, live: computeLiveness(k), free: map[vmvx.RegType][]uint32{}}
	em.dies = em.live.dying()
	em.reg = make([]int32, len(k.Types))
	for i := range em.reg {
		em.reg[i] = -1
	}
	em.setupSubgroups()
	if err := em.block(k.Body); err != nil {
		return nil, err
	}
	e.Regs = em.types
	return e, nil
}

func regType(t kir.Type) vmvx.RegType {
	return vmvx.RegType{Elem: vmvx.Elem(t.Elem), Lanes: uint32(t.Width())}
}

// newReg takes a free register of type t, or makes one.
func (em *emitter) newReg(t vmvx.RegType) uint32 {
	if fl := em.free[t]; len(fl) > 0 {
		r := fl[len(fl)-1]
		em.free[t] = fl[:len(fl)-1]
		return r
	}
	em.types = append(em.types, t)
	return uint32(len(em.types) - 1)
}

func (em *emitter) freeReg(r uint32) {
	t := em.types[r]
	em.free[t] = append(em.free[t], r)
}

// define gives v a register.
func (em *emitter) define(v kir.Value) uint32 {
	r := em.newReg(regType(em.k.Types[v]))
	em.reg[v] = int32(r)
	return r
}

// release frees the registers of the values whose last use is pos.
func (em *emitter) release(pos int) {
	for _, v := range em.dies[pos] {
		if r := em.reg[v]; r >= 0 {
			em.freeReg(uint32(r))
			em.reg[v] = -1
		}
	}
}

func (em *emitter) r(v kir.Value) (uint32, error) {
	if r := em.reg[v]; r >= 0 {
		return uint32(r), nil
	}
	return 0, status.Errorf(status.Internal, "value %%%d has no register (allocator bug)", v)
}

func (em *emitter) regs(vs []kir.Value) ([]uint32, error) {
	out := make([]uint32, len(vs))
	for i, v := range vs {
		r, err := em.r(v)
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}

func (em *emitter) emit(in vmvx.Instr) int {
	em.e.Code = append(em.e.Code, in)
	return len(em.e.Code) - 1
}

// here returns the index of the next instruction, a jump target.
func (em *emitter) here() uint32 { return uint32(len(em.e.Code)) }

func (em *emitter) block(b *kir.Block) error {
	for _, op := range b.Ops {
		var err error
		switch op.Kind {
		case kir.Yield:
			continue // the enclosing For or If moves the yielded values
		case kir.For:
			err = em.forOp(op)
		case kir.If:
			err = em.ifOp(op)
		default:
			err = em.simple(op)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
