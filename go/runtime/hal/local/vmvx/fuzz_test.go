package vmvx

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/gree-ml/gree/go/schemas/vmvx"
	"github.com/gree-ml/gree/go/status"
)

// FuzzLoad feeds damaged executables (with a valid checksum, so the
// structure is what gets tested) to Load; those that load and have no
// backward jumps are run on one workgroup with small buffers. Neither may
// panic.
func FuzzLoad(f *testing.F) {
	seeds := []*vmvx.Executable{chainExe(8, 5), chainExe(3, 2)}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 4; i++ {
		seeds = append(seeds, &vmvx.Executable{Entries: []vmvx.Entry{randomEntry(r, firstOpcodes)}})
	}
	for _, x := range seeds {
		data, _ := vmvx.Encode(x)
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, d []byte) {
		if len(d) >= vmvx.HeaderSize {
			copy(d, vmvx.Magic)
			binary.LittleEndian.PutUint16(d[4:], vmvx.Version)
			binary.LittleEndian.PutUint16(d[6:], 0)
			d = reseal(d)
		}
		ex, err := Load(d)
		if status.CodeOf(err) == status.Internal {
			t.Fatalf("Load: %v", err)
		}
		if err != nil {
			return
		}
		dec, _ := vmvx.Decode(d)
		st := NewState()
		for i, e := range dec.Entries {
			if !forwardOnly(&e) {
				continue
			}
			bufs := make([][]byte, len(e.Bindings))
			for j := range bufs {
				bufs[j] = make([]byte, 64)
			}
			pcs := make([]int64, e.NumPushConstants)
			if err := ex.RunWorkgroup(st, i, [3]int64{}, [3]int64{1, 1, 1}, pcs, bufs); status.CodeOf(err) == status.Internal {
				t.Fatalf("RunWorkgroup: %v", err)
			}
		}
	})
}

func forwardOnly(e *vmvx.Entry) bool {
	for pc, in := range e.Code {
		if strings := in.Op.Layout(); len(strings) > 0 && strings[len(strings)-1] == 't' && int(in.Target) <= pc {
			return false
		}
	}
	return true
}
