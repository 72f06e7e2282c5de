package module

import "testing"

func TestModuleDevices(t *testing.T) {
	m := &Module{}
	if m.Devices() != nil || m.DeviceCount() != 1 {
		t.Error("a module without hal.devices uses one device")
	}
	m.Attrs = []Attr{{Key: "target", Value: "vmvx"}, {Key: AttrDevices, Value: "a, b"}}
	if got := m.Devices(); len(got) != 2 || got[0] != "a" || got[1] != "b" || m.DeviceCount() != 2 {
		t.Errorf("Devices() = %q", got)
	}
	// The attribute survives encoding.
	back, err := Decode(Encode(m))
	if err != nil || back.DeviceCount() != 2 {
		t.Errorf("after encode/decode: %v, %v", err, back.Devices())
	}
}
