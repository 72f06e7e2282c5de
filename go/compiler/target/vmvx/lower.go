package vmvx

import (
	"strings"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/schemas/vmvx"
	"github.com/gree-ml/gree/go/status"
)

// opcodes maps the kir op kinds that become one instruction.
var opcodes = map[kir.Kind]vmvx.Opcode{
	kir.ConstInt: vmvx.ConstInt, kir.ConstFloat: vmvx.ConstFloat, kir.PushConstant: vmvx.PushConstant,
	kir.WorkgroupID: vmvx.WorkgroupID, kir.WorkgroupCount: vmvx.WorkgroupCount,
	kir.ThreadID: vmvx.ThreadID, kir.WorkgroupSize: vmvx.WorkgroupSize,
	kir.SubgroupSize: vmvx.SubgroupSize, kir.LaneID: vmvx.LaneID,
	kir.Add: vmvx.Add, kir.Sub: vmvx.Sub, kir.Mul: vmvx.Mul, kir.DivS: vmvx.DivS, kir.DivU: vmvx.DivU,
	kir.RemS: vmvx.RemS, kir.RemU: vmvx.RemU, kir.FloorDivS: vmvx.FloorDivS,
	kir.CeilDivS: vmvx.CeilDivS, kir.CeilDivU: vmvx.CeilDivU, kir.MinS: vmvx.MinS,
	kir.MinU: vmvx.MinU, kir.MaxS: vmvx.MaxS, kir.MaxU: vmvx.MaxU, kir.And: vmvx.And,
	kir.Or: vmvx.Or, kir.Xor: vmvx.Xor, kir.Shl: vmvx.Shl, kir.ShrS: vmvx.ShrS, kir.ShrU: vmvx.ShrU,
	kir.DivF: vmvx.DivF, kir.RemF: vmvx.RemF, kir.MinF: vmvx.MinF, kir.MaxF: vmvx.MaxF,
	kir.MinNumF: vmvx.MinNumF, kir.MaxNumF: vmvx.MaxNumF, kir.PowF: vmvx.PowF,
	kir.Atan2: vmvx.Atan2, kir.CopySign: vmvx.CopySign,
	kir.NegF: vmvx.NegF, kir.AbsF: vmvx.AbsF, kir.AbsI: vmvx.AbsI, kir.Sqrt: vmvx.Sqrt,
	kir.Rsqrt: vmvx.Rsqrt, kir.Cbrt: vmvx.Cbrt, kir.Exp: vmvx.Exp, kir.Exp2: vmvx.Exp2,
	kir.Expm1: vmvx.Expm1, kir.Log: vmvx.Log, kir.Log2: vmvx.Log2, kir.Log10: vmvx.Log10,
	kir.Log1p: vmvx.Log1p, kir.Sin: vmvx.Sin, kir.Cos: vmvx.Cos, kir.Tan: vmvx.Tan,
	kir.Sinh: vmvx.Sinh, kir.Cosh: vmvx.Cosh, kir.Tanh: vmvx.Tanh, kir.Asin: vmvx.Asin,
	kir.Acos: vmvx.Acos, kir.Atan: vmvx.Atan, kir.Asinh: vmvx.Asinh, kir.Acosh: vmvx.Acosh,
	kir.Atanh: vmvx.Atanh, kir.Erf: vmvx.Erf, kir.Erfc: vmvx.Erfc, kir.Floor: vmvx.Floor,
	kir.Ceil: vmvx.Ceil, kir.Round: vmvx.Round, kir.RoundEven: vmvx.RoundEven,
	kir.Trunc: vmvx.Trunc, kir.CtLz: vmvx.CtLz, kir.CtTz: vmvx.CtTz, kir.CtPop: vmvx.CtPop,
	kir.IsNaN: vmvx.IsNaN, kir.IsInf: vmvx.IsInf, kir.IsFinite: vmvx.IsFinite,
	kir.FMA: vmvx.FMA, kir.Select: vmvx.Select, kir.CmpI: vmvx.CmpI, kir.CmpF: vmvx.CmpF,
	kir.ExtS: vmvx.ExtS, kir.ExtU: vmvx.ExtU, kir.TruncI: vmvx.TruncI, kir.SIToFP: vmvx.SIToFP,
	kir.UIToFP: vmvx.UIToFP, kir.FPToSI: vmvx.FPToSI, kir.FPToUI: vmvx.FPToUI,
	kir.FPExt: vmvx.FPExt, kir.FPTrunc: vmvx.FPTrunc, kir.Bitcast: vmvx.Bitcast,
	kir.Broadcast: vmvx.Broadcast, kir.Extract: vmvx.Extract, kir.Insert: vmvx.Insert,
	kir.LaneIota: vmvx.LaneIota, kir.Reduce: vmvx.Reduce,
	kir.Load: vmvx.Load, kir.Store: vmvx.Store, kir.LoadStrided: vmvx.LoadStrided,
	kir.StoreStrided: vmvx.StoreStrided, kir.LoadShared: vmvx.LoadShared,
	kir.StoreShared: vmvx.StoreShared, kir.Barrier: vmvx.Barrier,
	kir.SubgroupReduce: vmvx.SubgroupReduce, kir.SubgroupShuffle: vmvx.SubgroupShuffle,
	kir.Contract: vmvx.Contract, kir.AtomicRMW: vmvx.AtomicRMW,
}

// simple emits the one instruction of an op without regions.
func (em *emitter) simple(op *kir.Op) error {
	switch op.Kind {
	case kir.LaneID, kir.SubgroupSize, kir.SubgroupReduce, kir.SubgroupShuffle:
		if em.sub != nil {
			return em.emulatedSubgroupOp(op)
		}
	}
	opc, ok := opcodes[op.Kind]
	if !ok {
		return status.Errorf(status.Unimplemented, "op %s has no vmvx instruction", op.Kind)
	}
	if op.Kind == kir.SubgroupShuffle && em.k.Types[op.Args[0]].IsVector() {
		return status.Errorf(status.Unimplemented, "vmvx shuffles scalars only, not %s", em.k.Types[op.Args[0]])
	}
	args, err := em.regs(op.Args)
	if err != nil {
		return err
	}
	in := vmvx.Instr{Op: opc, Args: args, Imm: op.Imm}
	switch op.Kind {
	case kir.ConstFloat:
		in.Imm = vmvx.FloatImm(op.F)
	case kir.Load, kir.Store, kir.LoadStrided, kir.StoreStrided, kir.LoadShared, kir.StoreShared, kir.AtomicRMW:
		in.Bindings[0] = uint32(op.Binding)
	case kir.Contract:
		if op.Imm&^(kir.ContractUnsigned|kir.ContractZero) != 0 {
			return status.Errorf(status.Unimplemented, "vmvx has no fused Contract epilogue (flags %#x); codegen sweeps it for this target", op.Imm)
		}
		for i, b := range op.Bindings {
			if _, shared, _ := em.k.TileMem(b); shared >= 0 {
				return status.Errorf(status.Unimplemented, "vmvx has no Contract on workgroup scratch (operand %d is shared allocation %d); codegen keeps such chains in separate dispatches for this target", i, shared)
			}
			in.Bindings[i] = uint32(b)
		}
	}
	if opc.HasDst() {
		in.Dst = em.define(op.Results[0])
	}
	if !strings.ContainsAny(opc.Layout(), "iuf") {
		in.Imm = 0
	}
	em.emit(in)
	em.release(em.live.start[op])
	return nil
}
