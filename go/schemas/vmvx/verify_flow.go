package vmvx

import (
	"fmt"
	"strings"
)

// verifyFlow checks that an entry's control flow is what structured kernels
// lower to, so that no run can loop forever: the only backward jumps are
// counted loops' for_next, whose counter, bound and step the loop body
// cannot write (a for_next retargeted to an outer loop's body, say, made a
// kernel that never ended).
//
//   - for_init at p and for_next at q pair up: for_init's target is q+1,
//     for_next's is p+1, and they name the same counter, bound and step
//     registers; loops nest;
//   - jmp, jz and jnz jump forward and never into a loop body they are not
//     inside;
//   - no instruction of a loop body writes its counter, bound or step.
//
// Operands are verified before (instr): register counts and targets are in
// range.
func verifyFlow(code []Instr) error {
	n := len(code)
	// loop[j] is the for_init of the innermost loop whose body (p+1..q)
	// holds instruction j, or -1; loop[n] is the end of the code.
	loop := make([]int, n+1)
	type span struct{ p, q int }
	var open []span
	for j := 0; j <= n; j++ {
		for len(open) > 0 && j > open[len(open)-1].q {
			open = open[:len(open)-1]
		}
		loop[j] = -1
		if len(open) > 0 {
			loop[j] = open[len(open)-1].p
		}
		if j == n {
			break
		}
		in := &code[j]
		// The register in writes: its destination, or a loop's counter.
		d, writes := in.Dst, strings.IndexByte(in.Op.Layout(), 'd') >= 0
		if in.Op == ForInit || in.Op == ForNext {
			d, writes = in.Args[0], true
		}
		for _, l := range open {
			init := &code[l.p]
			if writes && l.q != j && (d == init.Args[0] || d == init.Args[2] || d == init.Args[3]) {
				return fmt.Errorf("instruction %d (%s) writes register %d, the counter, bound or step of the loop at %d..%d",
					j, in.Op, d, l.p, l.q)
			}
		}
		switch in.Op {
		case ForInit:
			q := int(in.Target) - 1
			if q <= j || q >= n || code[q].Op != ForNext || int(code[q].Target) != j+1 {
				return fmt.Errorf("instruction %d (for_init): target %d must follow a for_next that jumps back to %d", j, in.Target, j+1)
			}
			if next := code[q].Args; next[0] != in.Args[0] || next[1] != in.Args[2] || next[2] != in.Args[3] {
				return fmt.Errorf("instruction %d (for_next): counter, bound and step registers %v are not its for_init's %v",
					q, next, []uint32{in.Args[0], in.Args[2], in.Args[3]})
			}
			if len(open) > 0 && q >= open[len(open)-1].q {
				return fmt.Errorf("the loop at %d..%d overlaps the loop at %d..%d", j, q, open[len(open)-1].p, open[len(open)-1].q)
			}
			open = append(open, span{j, q})
		case ForNext:
			if t := int(in.Target); t < 1 || code[t-1].Op != ForInit || int(code[t-1].Target) != j+1 {
				return fmt.Errorf("instruction %d (for_next): target %d is not the body of the for_init it closes", j, in.Target)
			}
		}
	}
	for j := range code {
		switch in := &code[j]; in.Op {
		case Jmp, Jz, Jnz:
			t := int(in.Target)
			if t <= j {
				return fmt.Errorf("instruction %d (%s): jumps back to %d (only for_next may)", j, in.Op, t)
			}
			l := loop[j]
			for l != loop[t] && l != -1 {
				l = loop[l]
			}
			if l != loop[t] {
				return fmt.Errorf("instruction %d (%s): jumps to %d, inside a loop it is not in", j, in.Op, t)
			}
		}
	}
	return nil
}
