package llvmcpu

import "github.com/gree-ml/gree/go/schemas/internal/wire"

// Decode parses and verifies an llvm-cpu executable: DATA_LOSS for
// damaged bytes (truncation, checksum, bad varints, trailing bytes),
// INVALID_ARGUMENT for files that are not llvm-cpu executables of this
// version or break a rule. It never panics.
func Decode(data []byte) (*Executable, error) {
	r, err := wire.Open(data, "llvm-cpu executable", Magic, Version)
	if err != nil {
		return nil, err
	}
	x := &Executable{}
	x.Triple = r.Str(MaxStringLen)
	x.CPU = r.Str(MaxStringLen)
	x.Features = r.Str(MaxStringLen)
	nf := r.Count(MaxFeatures)
	for i := 0; i < nf && r.Err() == nil; i++ {
		x.Required = append(x.Required, r.Str(MaxNameLen))
	}
	ne := r.Count(MaxEntries)
	for i := 0; i < ne && r.Err() == nil; i++ {
		e := Entry{Name: r.Str(MaxNameLen), Symbol: r.Str(MaxNameLen)}
		e.NumPushConstants = r.Count(MaxPushConstants)
		e.NumBindings = r.Count(MaxBindings)
		x.Entries = append(x.Entries, e)
	}
	x.Object = r.Bytes(MaxObjectBytes)
	if err := r.Done(); err != nil {
		return nil, err
	}
	if err := Verify(x); err != nil {
		return nil, err
	}
	return x, nil
}
