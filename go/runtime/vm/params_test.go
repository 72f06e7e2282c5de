package vm

import (
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/schemas/module"
	"github.com/gree-ml/gree/go/status"
)

// constDevice records the data of the constants the context makes.
type constDevice struct {
	Device
	data [][]byte
}

func (d *constDevice) Constant(c *module.Constant) (any, error) {
	d.data = append(d.data, c.Data)
	return c, nil
}

type mapSource map[string][]byte

func (s mapSource) Parameter(scope, key string, length, align int64) ([]byte, error) {
	b, ok := s[scope+"::"+key]
	if !ok {
		return nil, status.Errorf(status.NotFound, "parameter '%s::%s' not found", scope, key)
	}
	return b, nil
}

func paramModule() *Module {
	m := &module.Module{
		Name:      "p",
		Constants: []module.Constant{{ElementType: 0x21000020, Shape: []int64{2}, Parameter: &module.ParameterRef{Scope: "s", Key: "w"}}},
		Globals:   []module.Global{{Name: "w", Kind: module.KindRef, Init: 0}},
	}
	mod, err := LoadModule(module.Encode(m))
	if err != nil {
		panic(err)
	}
	return mod
}

func TestParametersFromSource(t *testing.T) {
	saved := DefaultParameters
	DefaultParameters = nil
	defer func() { DefaultParameters = saved }()

	w := []byte{0, 0, 128, 63, 0, 0, 0, 64}
	dev := &constDevice{}
	c := NewContext(dev)
	c.SetParameters(mapSource{"s::w": w})
	if err := c.Register(paramModule()); err != nil {
		t.Fatal(err)
	}
	// The constant and the global use the source's bytes themselves.
	if len(dev.data) != 2 || &dev.data[0][0] != &w[0] || &dev.data[1][0] != &w[0] {
		t.Errorf("constants got %v, not the source's bytes", dev.data)
	}

	err := NewContext(&constDevice{}).Register(paramModule())
	if status.CodeOf(err) != status.NotFound || !strings.Contains(err.Error(), "global @w needs parameter 's::w'") || !strings.Contains(err.Error(), "--parameters") {
		t.Errorf("no source: %v", err)
	}
	c = NewContext(&constDevice{})
	c.SetParameters(mapSource{"s::w": w[:4]})
	if err := c.Register(paramModule()); status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), "is 4 bytes, want 8") {
		t.Errorf("short parameter: %v", err)
	}
	c = NewContext(&constDevice{})
	c.SetParameters(mapSource{})
	if err := c.Register(paramModule()); status.CodeOf(err) != status.NotFound || !strings.Contains(err.Error(), "module 'p': global @w") {
		t.Errorf("missing parameter: %v", err)
	}
}
