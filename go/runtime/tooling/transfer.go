package tooling

import (
	"github.com/gree-ml/gree/go/runtime/hal"
	"github.com/gree-ml/gree/go/runtime/vm"
)

// TransferToHost returns results with every buffer view the host cannot
// read directly (device memory of a GPU without host-visible memory)
// replaced by a host copy read through dev, in lists too (new lists; the
// originals are not changed), as IREE's tools transfer their outputs
// before printing, comparing or writing them. Views the host can read are
// kept as they are.
func TransferToHost(dev hal.Device, results []vm.Value) ([]vm.Value, error) {
	out := make([]vm.Value, len(results))
	for i, v := range results {
		t, err := transferValue(dev, v)
		if err != nil {
			return nil, err
		}
		out[i] = t
	}
	return out, nil
}

func transferValue(dev hal.Device, v vm.Value) (vm.Value, error) {
	switch r := v.Ref.(type) {
	case *hal.BufferView:
		if r.Buffer == nil || r.ByteLength() == 0 || r.Bytes() != nil {
			return v, nil
		}
		host, err := hal.NewHostBufferView(r.Shape, r.Type)
		if err != nil {
			return v, err
		}
		if err := hal.ReadBufferInto(dev, r.Buffer, 0, host.Bytes()); err != nil {
			return v, err
		}
		return vm.RefValue(host), nil
	case *vm.List:
		l := &vm.List{Items: make([]vm.Value, len(r.Items))}
		for i, it := range r.Items {
			t, err := transferValue(dev, it)
			if err != nil {
				return v, err
			}
			l.Items[i] = t
		}
		return vm.RefValue(l), nil
	}
	return v, nil
}
