package vmvx

import (
	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/schemas/vmvx"
)

// EmitUnverified is Emit of one kernel without kir.Verify, for tests of
// what the runtime does with code no verifier has seen: k must be well
// formed, but may break the thread-level contract.
func EmitUnverified(k *kir.Kernel) ([]byte, error) {
	e, err := emitKernel(k)
	if err != nil {
		return nil, err
	}
	return vmvx.Encode(&vmvx.Executable{Entries: []vmvx.Entry{*e}})
}
