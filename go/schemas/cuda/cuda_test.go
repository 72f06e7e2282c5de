package cuda

import (
	"encoding/binary"
	"hash/crc32"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gree-ml/gree/go/status"
)

func sample() *Executable {
	ptx := func(arch string) []byte {
		return []byte(".version 7.8\n.target " + arch + "\n.address_size 64\n.visible .entry k0(.param .u64 p0)\n{\n\tret;\n}\n.visible .entry k1()\n{\n\tret;\n}\n")
	}
	entries := []Entry{
		{Name: "main_dispatch_0", Symbol: "k0", BlockSize: [3]int{64, 1, 1}, SharedBytes: 1024, NumPushConstants: 2, Bindings: []Access{Read, Write}, Flags: FlagErrors},
		{Name: "main_dispatch_1", Symbol: "k1", BlockSize: [3]int{1, 1, 1}},
	}
	return &Executable{Variants: []Variant{
		{Arch: "sm_60", PTXVersion: 60, Entries: entries, PTX: ptx("sm_60")},
		{Arch: "sm_80", PTXVersion: 70, Entries: entries, PTX: ptx("sm_80")},
		{Arch: "sm_90a", PTXVersion: 80, Entries: entries, PTX: ptx("sm_90a")},
	}}
}

func TestRoundTrip(t *testing.T) {
	x := sample()
	data, err := Encode(x)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(x, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if n := x.Variants[0].Entries[0].NumParams(); n != 2*2+1+2 {
		t.Errorf("NumParams = %d, want 7", n)
	}
}

func TestDamageIsAnErrorNeverAPanic(t *testing.T) {
	data, err := Encode(sample())
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < len(data); n++ {
		if _, err := Decode(data[:n]); err == nil {
			t.Fatalf("truncated to %d bytes: no error", n)
		}
	}
	// Flip each body byte and fix the checksum: the decoder must reject or
	// accept without panicking; flips of the header are rejected.
	for i := 0; i < len(data); i++ {
		d := append([]byte(nil), data...)
		d[i] ^= 0x5a
		if i >= HeaderSize {
			body := d[HeaderSize:]
			binary.LittleEndian.PutUint32(d[12:], crcOf(body))
		}
		x, err := Decode(d)
		if i < HeaderSize && err == nil {
			t.Errorf("header byte %d flipped: no error", i)
		}
		if err == nil {
			if verr := Verify(x); verr != nil {
				t.Errorf("byte %d: Decode accepted what Verify rejects: %v", i, verr)
			}
		}
	}
	d := append([]byte(nil), data...)
	d[HeaderSize+3] ^= 1
	if _, err := Decode(d); status.CodeOf(err) != status.DataLoss {
		t.Errorf("checksum mismatch: %v, want DATA_LOSS", err)
	}
}

func TestVerifyRules(t *testing.T) {
	for name, edit := range map[string]func(x *Executable){
		"no variants":   func(x *Executable) { x.Variants = nil },
		"bad arch":      func(x *Executable) { x.Variants[0].Arch = "gfx90a" },
		"repeated arch": func(x *Executable) { x.Variants[1].Arch = "sm_60" },
		"names differ": func(x *Executable) {
			x.Variants[1].Entries = []Entry{x.Variants[0].Entries[1], x.Variants[0].Entries[0]}
		},
		"missing entry":    func(x *Executable) { x.Variants[0].PTX = []byte(".version 7.8\n") },
		"non-ASCII":        func(x *Executable) { x.Variants[0].PTX = append([]byte("\xff"), x.Variants[0].PTX...) },
		"big block":        func(x *Executable) { x.Variants[0].Entries[0].BlockSize = [3]int{64, 32, 1} },
		"bad symbol":       func(x *Executable) { x.Variants[0].Entries[0].Symbol = "a-b" },
		"too much shared":  func(x *Executable) { x.Variants[0].Entries[0].SharedBytes = MaxStaticSharedBytes + 1 },
		"unknown flag":     func(x *Executable) { x.Variants[0].Entries[0].Flags = 4 },
		"bad access":       func(x *Executable) { x.Variants[0].Entries[0].Bindings = []Access{0} },
		"bad PTX version":  func(x *Executable) { x.Variants[0].PTXVersion = 0 },
		"different counts": func(x *Executable) { x.Variants[2].Entries = x.Variants[2].Entries[:1] },
	} {
		x := sample()
		for i := range x.Variants {
			x.Variants[i].Entries = append([]Entry(nil), x.Variants[i].Entries...)
		}
		edit(x)
		if err := Verify(x); status.CodeOf(err) != status.InvalidArgument {
			t.Errorf("%s: Verify = %v, want INVALID_ARGUMENT", name, err)
		} else if !strings.Contains(err.Error(), "cuda-nvptx-fb executable") {
			t.Errorf("%s: %v does not name the format", name, err)
		}
	}
}

func TestBestVariant(t *testing.T) {
	x := sample()
	for _, c := range []struct {
		cc   int
		want string
	}{{50, ""}, {60, "sm_60"}, {75, "sm_60"}, {80, "sm_80"}, {89, "sm_80"}, {90, "sm_90a"}, {100, "sm_80"}, {120, "sm_80"}} {
		got := ""
		if i := x.Best(c.cc); i >= 0 {
			got = x.Variants[i].Arch
		}
		if got != c.want {
			t.Errorf("Best(%d) = %q, want %q", c.cc, got, c.want)
		}
	}
}

func crcOf(b []byte) uint32 { return crc32.ChecksumIEEE(b) }
