package ptxsim

import (
	"math/bits"

	"github.com/gree-ml/gree/go/status"
)

// resolveWarps executes every warp-synchronous instruction whose
// membermask lanes have all arrived at it. It reports whether any did.
func (w *worker) resolveWarps() (bool, error) {
	n := len(w.threads)
	progressed := false
	for base := 0; base < n; base += 32 {
		hi := min(base+32, n)
		for l := base; l < hi; l++ {
			t := &w.threads[l]
			if t.state != stWarp {
				continue
			}
			in := &w.e.code[t.pc]
			maskReg := in.e
			if in.op == opWarpSync {
				maskReg = in.a
			}
			mask := uint32(t.regs[maskReg])
			if mask&(1<<uint(l-base)) == 0 {
				return false, w.errf(t, in, status.FailedPrecondition, "executing lane %d is not in membermask %#x", l-base, mask)
			}
			if hi-base < 32 && mask>>uint(hi-base) != 0 {
				return false, w.errf(t, in, status.FailedPrecondition, "membermask %#x names lanes beyond the block's %d threads", mask, n)
			}
			// The group: lanes waiting at the same instruction with the same
			// mask (bar.warp.sync: at any bar.warp.sync, as on sm_70+).
			var group uint32
			for k := base; k < hi; k++ {
				tk := &w.threads[k]
				if tk.state != stWarp {
					continue
				}
				ik := &w.e.code[tk.pc]
				same := tk.pc == t.pc
				if in.op == opWarpSync {
					same = ik.op == opWarpSync
				}
				if same && uint32(tk.regs[maskReg]) == mask {
					group |= 1 << uint(k-base)
				}
			}
			if group != mask {
				if group&^mask != 0 {
					return false, w.errf(t, in, status.FailedPrecondition, "lanes disagree on membermask %#x", mask)
				}
				for k := base; k < hi; k++ {
					if mask&(1<<uint(k-base)) != 0 && w.threads[k].state == stDone {
						return false, w.errf(t, in, status.FailedPrecondition, "lane %d named in membermask %#x has exited", k-base, mask)
					}
				}
				continue // wait for the other lanes
			}
			if err := w.warpOp(in, base, mask); err != nil {
				return false, err
			}
			for k := base; k < hi; k++ {
				if mask&(1<<uint(k-base)) != 0 {
					w.threads[k].state = stRun
					w.threads[k].pc++
				}
			}
			progressed = true
		}
	}
	return progressed, nil
}

// warpOp executes a shfl.sync / vote.sync / bar.warp.sync for the lanes of
// mask in the warp starting at thread base.
func (w *worker) warpOp(in *inst, base int, mask uint32) error {
	switch in.op {
	case opWarpSync:
		return nil
	case opVote:
		var ballot uint32
		for m := mask; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			p := w.threads[base+l].regs[in.a]&1 != 0
			if in.flags&flNotA != 0 {
				p = !p
			}
			if p {
				ballot |= 1 << uint(l)
			}
		}
		var v uint64
		switch in.sub {
		case voAll:
			v = b2u(ballot == mask)
		case voAny:
			v = b2u(ballot != 0)
		case voUni:
			v = b2u(ballot == mask || ballot == 0)
		case voBallot:
			v = uint64(ballot)
		}
		for m := mask; m != 0; m &= m - 1 {
			w.threads[base+bits.TrailingZeros32(m)].regs[in.d] = v
		}
		return nil
	}
	// shfl.sync
	var vals [32]uint64
	var preds [32]bool
	for m := mask; m != 0; m &= m - 1 {
		lane := bits.TrailingZeros32(m)
		r := w.threads[base+lane].regs
		b := int(uint32(r[in.b]) & 31)
		c := uint32(r[in.c])
		cval := int(c & 31)
		seg := int(c >> 8 & 31)
		maxLane := lane&seg | cval&^seg
		minLane := lane & seg
		var j int
		var p bool
		switch in.sub {
		case shUp:
			j = lane - b
			p = j >= maxLane
		case shDown:
			j = lane + b
			p = j <= maxLane
		case shBfly:
			j = lane ^ b
			p = j <= maxLane
		case shIdx:
			j = minLane | b&^seg
			p = j <= maxLane
		}
		if !p {
			j = lane
		}
		if mask&(1<<uint(j)) == 0 {
			t := &w.threads[base+lane]
			return w.errf(t, in, status.FailedPrecondition, "shfl.sync reads lane %d, which is not in membermask %#x", j, mask)
		}
		vals[lane] = w.threads[base+j].regs[in.a] & 0xffffffff
		preds[lane] = p
	}
	for m := mask; m != 0; m &= m - 1 {
		lane := bits.TrailingZeros32(m)
		r := w.threads[base+lane].regs
		r[in.d] = vals[lane]
		if in.d2 >= 0 {
			r[in.d2] = b2u(preds[lane])
		}
	}
	return nil
}
