package kir

import (
	"fmt"
	"math"
	"strings"
)

// Fingerprint returns a string that two kernels share exactly when they
// are the same program under different names: every field of the kernel
// and of each of its ops, except Name. The compiler gives regions whose
// kernels share a fingerprint one entry point (a recurrent network's steps
// differ only in the buffers they bind), so that each program is compiled
// once.
func Fingerprint(k *Kernel) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v|%d|%v|%v|%d|%v|%v\n", k.Bindings, k.NumPushConstants, k.Grid, k.WorkgroupSize, k.SubgroupSize, k.Shared, k.Types)
	fingerprintBlock(&b, k.Body)
	return b.String()
}

func fingerprintBlock(b *strings.Builder, blk *Block) {
	if blk == nil {
		b.WriteString("-\n")
		return
	}
	fmt.Fprintf(b, "{%v\n", blk.Args)
	for _, op := range blk.Ops {
		fmt.Fprintf(b, "%d %v %v %d %x %d %v %d %d\n", op.Kind, op.Results, op.Args, op.Imm, math.Float64bits(op.F), op.Binding, op.Bindings, op.Extra, len(op.Regions))
		for _, r := range op.Regions {
			fingerprintBlock(b, r)
		}
	}
	b.WriteString("}\n")
}
