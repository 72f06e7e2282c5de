package codegen

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/kir"
)

// Strategy holds the per-target choices codegen makes.
type Strategy struct {
	// VectorWidth is the number of lanes of the innermost parallel loop
	// (1: no vectorization).
	VectorWidth int
	// ReductionWidth is the number of partial sums of a vectorized
	// reduction (0: VectorWidth). It fixes the order floats are combined
	// in, so targets that should agree bit for bit share it.
	ReductionWidth int
	// WorkgroupElements is the rough number of output elements one
	// workgroup computes.
	WorkgroupElements int64
	// Contract maps f32 matmul-shaped generics to the Contract tile op.
	Contract bool
	// ContractTile is the M×N output tile of one Contract workgroup.
	ContractTile [2]int64
	// ContractMinWorkgroups is the workgroup count below which a
	// Contract over static sizes gets shorter row tiles (halved, down to
	// 32 rows), so that threads share it evenly (a thread's last
	// workgroup is the others' idle time), a row tile then evened out
	// for 2 and 4 threads (balancedRowTile). 0 keeps the tiles fixed; a
	// target sets it only when its Contract is tile-invariant (each
	// element's sum the same operations in the same order for any tile),
	// since a program with a static batch is tiled unlike its dynamic
	// twin and both must give the same bits.
	ContractMinWorkgroups int64
	// ContractEpilogue fuses an f32 bias, residual and bounds consuming a
	// Contract into its stores (kir.ContractBias) instead of sweeping the
	// stored tile.
	ContractEpilogue bool
	// ContractTaps lowers a tapped contraction (linalg.MatchTapped: a
	// convolution over its padded input as B at each tap's offset) as one
	// Contract per tap into the same C tile. Targets whose Contract
	// expands inline (GPUs) leave it unset, and flow gives them windows
	// and one product instead (flow.Options.Untap).
	ContractTaps bool
	// DWConv maps f32 depthwise 2-D convolutions over NCHW tensors (with
	// a fused zero pad or none) to the DWConv tile op.
	DWConv bool
	// Recurrence: a host loop of small steps runs as one kernel
	// (flow.FormRecurrences; Contract tile ops inside loops), in one
	// workgroup unless RecurrenceWorkgroups shares its steps.
	Recurrence bool
	// RecurrenceWorkgroups, when above 1, shares each step of a
	// recurrence whose product is large enough among that many
	// workgroups (cooperativeSteps); a CPU's threads run them. The
	// kernel is correct whether or not they run at the same time.
	RecurrenceWorkgroups int
	// ConvChainChannels, when positive, is the channels per workgroup of
	// a convolution chain's kernel (a 1×1 convolution into a depthwise
	// one, see convChain; flow merges their dispatches where
	// ChainLowerable), and ConvChainScratch the most bytes of its
	// workgroup scratch.
	ConvChainChannels, ConvChainScratch int64
	// ReductionThreads, when positive (GPU targets), makes a generic
	// whose innermost loop is a long vectorized reduction
	// (cooperativeReduction) a thread-level kernel: a workgroup of
	// ReductionThreads threads (a power of two) computes each output
	// point, every thread summing a strided share of the loop, the
	// shares combined through ReductionSubgroup-wide subgroup reductions
	// and workgroup memory (a tree in workgroup memory alone when
	// ReductionSubgroup is 0: the target has no subgroup operations).
	ReductionThreads, ReductionSubgroup int
	// GridAll (GPU targets) makes a generic's grid cover all its parallel
	// loops: the innermost (vectorized) one in tiles of WorkgroupElements
	// along the grid's x dimension, each point of the others a workgroup
	// along y (gridAll). Without it, only the outermost parallel loop is
	// split among workgroups and each workgroup runs the inner loops whole,
	// the right grain for CPU threads but far too coarse for a GPU.
	GridAll bool
}

// CPUStrategy is the strategy of the vmvx target.
var CPUStrategy = Strategy{VectorWidth: 256, WorkgroupElements: 1 << 16, Contract: true, ContractTile: [2]int64{128, 512}, ContractTaps: true}

// Push says where the host finds the value of one push constant.
type Push struct {
	// Value is the tensor (Dim ≥ 0) whose dimension Dim is passed, or the
	// scalar (Dim < 0) passed as its bits.
	Value *ir.Value
	Dim   int
}

// Dispatch is one dispatch region lowered to a kernel.
type Dispatch struct {
	Region *ir.Operation
	Kernel *kir.Kernel
	// Bindings lists the tensor bound at each binding ordinal: captured
	// inputs, or results of Region.
	Bindings []*ir.Value
	// Push lists the push constants in order.
	Push []Push
	// WrittenFirst marks the binding ordinals the kernel reads only where
	// it has written them first (a Contract's C tile, initialized by its
	// workgroup): the host need not zero their buffers.
	WrittenFirst map[int]bool
}
