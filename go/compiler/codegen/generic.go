package codegen

import (
	"fmt"

	"github.com/gree-ml/gree/go/compiler/flow"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// loopSize says how big one loop is: a static size or a kernel value.
type loopSize struct {
	static int64 // ≥ 0 when known
	value  kir.Value
	push   int // push-constant index when dynamic
}

// genericLowering holds the analysis of one linalg.generic.
type genericLowering struct {
	g       *gen
	op      linalg.Generic
	maps    []*ir.AffineMap
	its     []linalg.Iterator
	nIn     int
	results []*ir.Value // the tensors the outputs are written to
	used    []bool      // block argument i is read by the body
	sizes   []loopSize
	pars    []int // parallel loops, outermost first
	reds    []int
	vecDim  int // -1: none
	width   int
	// wrap, when set, is the range of the vectorized loop where reads at
	// (a·vecDim + L + c) mod n (a zero pad's wrapped read, also fused into
	// a convolution) do not wrap: vectors run only there.
	wrap *wrapRead
	// ranges, where set, narrow the range of a loop's index (over all
	// lanes) while the points are emitted: vector points of a static range
	// and the rows where a wrapped read along an outer loop does not wrap.
	ranges map[int]interval
	// unrollReds: the reduction loops of the points being emitted are
	// unrolled when small (border points of a wrapped read).
	unrollReds bool
	// borderRows: the points being emitted lie in an outer loop's border
	// rows (emitted apart), whose own border points stay loops.
	borderRows bool
	// Reduction vectorization of the innermost loop.
	redVec   bool
	redWidth int
	combs    []combiner
	// coop: the reduction is cooperative (Strategy.ReductionThreads):
	// tid is the thread's index, shared the workgroup memory of each
	// output's partial results.
	coop   bool
	tid    kir.Value
	shared []int
	// epi, when set, consumes the root's output at each point.
	epi    *epilogue
	initOf []initSource
}

// initSource is where output j's initial value comes from.
type initSource struct {
	fill    *ir.Value // a scalar every element starts as
	binding int       // else the binding holding the init tensor
}

// lowerGeneric lowers op, whose results are stored into results.
func (g *gen) lowerGeneric(op linalg.Generic, results []*ir.Value) error {
	if err := op.Verify(); err != nil {
		return ir.OpErrorf(op.Op, "%v", err)
	}
	l := &genericLowering{g: g, op: op, maps: op.Maps(), its: op.Iterators(), nIn: op.NumInputs(), results: results, vecDim: -1}
	if err := l.analyze(); err != nil {
		return err
	}
	return l.emit()
}

func (l *genericLowering) analyze() error {
	g, op := l.g, l.op
	operands := op.Op.Operands
	body := op.Body()
	l.used = make([]bool, len(operands))
	gather := false
	var extracts []*ir.Operation
	var err error
	op.Op.Walk(func(o *ir.Operation) bool {
		for _, v := range o.Operands {
			if v.ArgBlock() == body {
				l.used[v.Index()] = true
			}
		}
		if o.Name == "tensor.extract" {
			gather = true
			extracts = append(extracts, o)
		}
		return true
	})
	// Outputs first: their dimensions give most loop sizes.
	for _, r := range l.results {
		if _, err = g.bind(r, kir.Write); err != nil {
			return err
		}
	}
	for j := range l.op.Outputs() {
		l.initOf = append(l.initOf, initSource{binding: -1})
		if l.used[l.nIn+j] || l.hasReduction() {
			l.initOf[j] = l.initSource(operands[l.nIn+j], j)
		}
	}
	for i := 0; i < l.nIn; i++ {
		if _, ok := operands[i].Type.(*ir.RankedTensorType); ok {
			if _, err = g.bind(operands[i], kir.Read); err != nil {
				return err
			}
		}
	}
	// Loop sizes from the first operand that indexes the loop directly.
	l.sizes = make([]loopSize, len(l.its))
	for k := range l.sizes {
		l.sizes[k].static = -2
	}
	tensorOf := func(i int) *ir.Value {
		if i >= l.nIn {
			return l.results[i-l.nIn]
		}
		return operands[i]
	}
	order := make([]int, 0, len(operands))
	for i := l.nIn; i < len(operands); i++ {
		order = append(order, i)
	}
	for i := 0; i < l.nIn; i++ {
		order = append(order, i)
	}
	for _, i := range order {
		t, ok := tensorOf(i).Type.(*ir.RankedTensorType)
		if !ok {
			continue
		}
		for r, e := range l.maps[i].Results {
			d, ok := e.(*ir.AffineDimExpr)
			if !ok || l.sizes[d.Pos].static != -2 {
				continue
			}
			if t.Dims[r] >= 0 {
				l.sizes[d.Pos] = loopSize{static: t.Dims[r], value: g.idx(t.Dims[r])}
			} else {
				v := g.dims[tensorOf(i)][r]
				l.sizes[d.Pos] = loopSize{static: -1, value: v, push: g.pushOf[Push{Value: tensorOf(i), Dim: r}]}
			}
		}
	}
	for k, s := range l.sizes {
		if s.static == -2 {
			return ir.OpErrorf(op.Op, "loop d%d is not the dimension of any operand, so its size is unknown", k)
		}
	}
	for k, it := range l.its {
		if it == linalg.Parallel {
			l.pars = append(l.pars, k)
		} else {
			l.reds = append(l.reds, k)
		}
	}
	l.width = 1
	if l.useReductionVectors(gather) {
		l.redVec = true
		l.coop = l.cooperative()
		if len(l.pars) > 0 {
			l.vecDim = l.pars[len(l.pars)-1]
		}
		return nil
	}
	if len(l.pars) > 0 {
		l.vecDim = l.pars[len(l.pars)-1]
		if g.st.VectorWidth > 1 && l.linearIn(l.vecDim) && l.extractsLinear(extracts, l.vecDim) {
			l.width = g.st.VectorWidth
		} else if g.st.VectorWidth > 1 && !gather {
			if w, ok := l.wrappedIn(l.vecDim); ok {
				l.width, l.wrap = g.st.VectorWidth, w
			}
		}
	}
	return nil
}

func (l *genericLowering) hasReduction() bool {
	for _, it := range l.its {
		if it == linalg.Reduction {
			return true
		}
	}
	return false
}

// linearIn reports whether every map is linear in loop k.
func (l *genericLowering) linearIn(k int) bool {
	for _, m := range l.maps {
		for _, e := range m.Results {
			if _, ok := linearCoef(e, k); !ok {
				return false
			}
		}
	}
	return true
}

// initSource finds where output j starts: a fill's scalar, the init
// tensor, or (for tensor.empty) the result buffer itself.
func (l *genericLowering) initSource(init *ir.Value, j int) initSource {
	g := l.g
	if def := init.Owner(); def != nil {
		if def.Name == "tensor.empty" {
			bi := g.bindingOf[l.results[j]]
			g.k.Bindings[bi].Access = kir.ReadWrite
			return initSource{binding: bi}
		}
		if s := flow.FillScalar(init); s != nil {
			return initSource{fill: s, binding: -1}
		}
	}
	bi, err := g.bind(init, kir.Read)
	if err != nil {
		bi = g.bindingOf[l.results[j]]
		g.k.Bindings[bi].Access = kir.ReadWrite
	}
	return initSource{binding: bi}
}

func (l *genericLowering) errorf(format string, args ...any) error {
	return ir.OpErrorf(l.op.Op, "%s", fmt.Sprintf(format, args...))
}
