package vmvx

import "github.com/gree-ml/gree/go/compiler/kir"

// liveness numbers the ops of a kernel in program order and finds each
// value's last use. For and If ops have a start position (before their
// regions) and an end position (after them).
type liveness struct {
	start, end map[*kir.Op]int
	def        []int // position where each value is defined
	last       []int // position of each value's last use
	n          int   // positions handed out
}

type loopSpan struct{ start, end int }

func computeLiveness(k *kir.Kernel) *liveness {
	l := &liveness{start: map[*kir.Op]int{}, end: map[*kir.Op]int{}}
	l.number(k.Body)
	l.def = make([]int, len(k.Types))
	l.last = make([]int, len(k.Types))
	for i := range l.last {
		l.last[i] = -1
	}
	l.uses(k.Body, nil)
	for v := range l.last {
		if l.last[v] < l.def[v] {
			l.last[v] = l.def[v]
		}
	}
	return l
}

func (l *liveness) number(b *kir.Block) {
	for _, op := range b.Ops {
		l.start[op] = l.n
		l.n++
		for _, r := range op.Regions {
			l.number(r)
		}
		if op.Kind == kir.For || op.Kind == kir.If {
			l.end[op] = l.n
			l.n++
		}
	}
}

// use records a use of v at pos inside the loops on stack.
func (l *liveness) use(v kir.Value, pos int, loops []loopSpan) {
	for _, lp := range loops {
		if l.def[v] < lp.start {
			pos = max(pos, lp.end)
			break
		}
	}
	l.last[v] = max(l.last[v], pos)
}

func (l *liveness) uses(b *kir.Block, loops []loopSpan) {
	for _, op := range b.Ops {
		s := l.start[op]
		switch op.Kind {
		case kir.For:
			e := l.end[op]
			for i, a := range op.Args {
				if i == 1 || i == 2 { // hi and step: ForNext reads them at the end
					l.use(a, e, loops)
				} else {
					l.use(a, s, loops)
				}
			}
			body := op.Regions[0]
			for _, a := range body.Args {
				l.def[a] = s
				l.last[a] = max(l.last[a], e)
			}
			for _, r := range op.Results {
				l.def[r] = e
			}
			l.uses(body, append(loops, loopSpan{s, e}))
		case kir.If:
			l.use(op.Args[0], s, loops)
			for _, r := range op.Results {
				// Both branches write the result registers.
				l.def[r] = s
				l.last[r] = max(l.last[r], l.end[op])
			}
			for _, r := range op.Regions {
				l.uses(r, loops)
			}
		default:
			for _, a := range op.Args {
				l.use(a, s, loops)
			}
			for _, r := range op.Results {
				l.def[r] = s
			}
		}
	}
}

// dying returns, for each position, the values whose last use it is.
func (l *liveness) dying() [][]kir.Value {
	d := make([][]kir.Value, l.n)
	for v, p := range l.last {
		if p >= 0 && p < l.n {
			d[p] = append(d[p], kir.Value(v))
		}
	}
	return d
}
