package hal

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gree-ml/gree/go/status"
)

func TestParseURI(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want URI
	}{
		{"cuda", URI{Driver: "cuda", Params: map[string]string{}}},
		{"cuda://", URI{Driver: "cuda", Params: map[string]string{}}},
		{"cuda:0", URI{Driver: "cuda", Path: "0", Params: map[string]string{}}},
		{"cuda:/0", URI{Driver: "cuda", Path: "0", Params: map[string]string{}}},
		{"cuda://0", URI{Driver: "cuda", Path: "0", Params: map[string]string{}}},
		{"cuda://GPU-0a1b2c3d-0000-1111-2222-333344445555", URI{Driver: "cuda", Path: "GPU-0a1b2c3d-0000-1111-2222-333344445555", Params: map[string]string{}}},
		{"hip://0,1?k=v&flag&x=a%20b", URI{Driver: "hip", Path: "0,1", Params: map[string]string{"k": "v", "flag": "", "x": "a b"}}},
		{"local-task://", URI{Driver: "local-task", Params: map[string]string{}}},
	} {
		got, err := ParseURI(tc.in)
		if err != nil {
			t.Errorf("ParseURI(%q): %v", tc.in, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("ParseURI(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
	if _, err := ParseURI("://x"); status.CodeOf(err) != status.InvalidArgument {
		t.Errorf("empty driver: %v", err)
	}
}

type fakeDriver struct{ name string }

func (d *fakeDriver) Name() string                                 { return d.name }
func (d *fakeDriver) QueryAvailableDevices() ([]DeviceInfo, error) { return nil, nil }
func (d *fakeDriver) DumpDeviceInfo(DeviceID) (string, error)      { return "", nil }
func (d *fakeDriver) CreateDevice(DeviceID, map[string]string) (Device, error) {
	return nil, errors.New("no")
}
func (d *fakeDriver) CreateDeviceByPath(string, map[string]string) (Device, error) {
	return nil, errors.New("no")
}
func (d *fakeDriver) Close() error { return nil }

func TestRegistryOrderAndLookup(t *testing.T) {
	r := &Registry{}
	mk := func(name, full string) Factory {
		return Factory{Name: name, FullName: full, Create: func() (Driver, error) { return &fakeDriver{name}, nil }}
	}
	r.Register(mk("b", "first b"))
	r.Register(mk("a", "a"))
	r.Register(mk("b", "second b"))
	if diff := cmp.Diff([]string{"b", "a"}, r.Names()); diff != "" {
		t.Errorf("Names (-want +got):\n%s", diff)
	}
	f, err := r.Lookup("b")
	if err != nil || f.FullName != "second b" {
		t.Errorf("Lookup(b) = %v, %v; want the most recent registration", f.FullName, err)
	}
	if _, err := r.Lookup("nope"); status.CodeOf(err) != status.NotFound || !strings.Contains(err.Error(), "no driver 'nope' registered") {
		t.Errorf("Lookup(nope) = %v", err)
	}
	d, err := r.CreateDriver("a://7")
	if err != nil || d.Name() != "a" {
		t.Errorf("CreateDriver(a://7) = %v, %v", d, err)
	}
}

func TestCreateDriverRecoversPanics(t *testing.T) {
	r := &Registry{}
	r.Register(Factory{Name: "boom", Create: func() (Driver, error) { panic("kaboom") }})
	_, err := r.CreateDriver("boom")
	if status.CodeOf(err) != status.Internal || !strings.Contains(err.Error(), "kaboom") {
		t.Errorf("err = %v", err)
	}
}

func TestSelectDevice(t *testing.T) {
	devs := []DeviceInfo{
		{ID: 1, Path: "GPU-00000000-1111-2222-3333-444444444444", Name: "A"},
		{ID: 2, Path: "GPU-aaaaaaaa-1111-2222-3333-444444444444", Name: "B"},
	}
	for path, want := range map[string]DeviceID{
		"":  1,
		"1": 2,
		"GPU-aaaaaaaa-1111-2222-3333-444444444444": 2,
		"aaaaaaaa-1111-2222-3333-444444444444":     2,
		"GPU-AAAAAAAA-1111-2222-3333-444444444444": 2,
	} {
		got, err := SelectDevice("cuda", devs, path, 0)
		if err != nil || got.ID != want {
			t.Errorf("SelectDevice(%q) = %v, %v; want id %d", path, got, err, want)
		}
	}
	if _, err := SelectDevice("cuda", devs, "5", 0); status.CodeOf(err) != status.OutOfRange {
		t.Errorf("ordinal 5: %v", err)
	}
	if _, err := SelectDevice("cuda", devs, "GPU-ffffffff-1111-2222-3333-444444444444", 0); status.CodeOf(err) != status.NotFound {
		t.Errorf("unknown uuid: %v", err)
	}
	if _, err := SelectDevice("cuda", nil, "", 0); status.CodeOf(err) != status.NotFound {
		t.Errorf("no devices: %v", err)
	}
	if _, err := FindDevice("cuda", devs, 5555); status.CodeOf(err) != status.NotFound || !strings.Contains(err.Error(), "[1, 2]") {
		t.Errorf("FindDevice: %v", err)
	}
}

func TestFormatGPUUUID(t *testing.T) {
	b := [16]byte{0xde, 0xad, 0xbe, 0xef, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0xa, 0xb}
	if got, want := FormatGPUUUID(b), "GPU-deadbeef-0001-0203-0405-060708090a0b"; got != want {
		t.Errorf("got %s want %s", got, want)
	}
}
