package llvmcpu

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/gree-ml/gree/go/status"
)

func sample() *Executable {
	return &Executable{
		Triple: "x86_64-pc-linux-gnu", CPU: "znver4", Features: "+avx2,+fma,-avx512f",
		Required: []string{"avx2", "fma"},
		Entries: []Entry{
			{Name: "main_dispatch_0", Symbol: "gree_entry_0", NumPushConstants: 2, NumBindings: 3},
			{Name: "main_dispatch_1", Symbol: "gree_entry_1", NumBindings: 1},
		},
		Object: append([]byte("\x7fELF"), bytes.Repeat([]byte{7}, 100)...),
	}
}

func code(err error) status.Code { return status.CodeOf(err) }

func TestRoundTrip(t *testing.T) {
	x := sample()
	data, err := Encode(x)
	if err != nil {
		t.Fatal(err)
	}
	y, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if y.Triple != x.Triple || y.CPU != x.CPU || y.Features != x.Features || len(y.Required) != 2 || y.Required[1] != "fma" ||
		len(y.Entries) != 2 || y.Entries[0] != x.Entries[0] || y.Entries[1] != x.Entries[1] || !bytes.Equal(y.Object, x.Object) {
		t.Fatalf("round trip: got %+v", y)
	}
	if y.Arch() != "x86_64" {
		t.Errorf("Arch() = %q", y.Arch())
	}
}

func TestDamagedFilesAreErrorsNotPanics(t *testing.T) {
	data, _ := Encode(sample())
	for n := 0; n < len(data); n++ {
		if _, err := Decode(data[:n]); err == nil {
			t.Fatalf("truncated to %d bytes: no error", n)
		}
	}
	for i := 0; i < len(data); i++ {
		d := bytes.Clone(data)
		d[i] ^= 0x10
		if _, err := Decode(d); err == nil {
			t.Fatalf("bit flip at byte %d: no error", i)
		}
	}
	if _, err := Decode(append(bytes.Clone(data), 0)); code(err) != status.DataLoss {
		t.Errorf("trailing byte: %v", err)
	}
	d := bytes.Clone(data)
	copy(d, "GVMX")
	if _, err := Decode(d); code(err) != status.InvalidArgument {
		t.Errorf("wrong magic: %v", err)
	}
	r := rand.New(rand.NewPCG(1, 1))
	for i := 0; i < 2000; i++ {
		b := make([]byte, r.IntN(64))
		for j := range b {
			b[j] = byte(r.Uint32())
		}
		if i%2 == 0 && len(b) >= 4 {
			copy(b, Magic)
		}
		Decode(b) // must not panic
	}
}

func TestVerifyRules(t *testing.T) {
	for name, mod := range map[string]func(*Executable){
		"no triple":      func(x *Executable) { x.Triple = "" },
		"no entries":     func(x *Executable) { x.Entries = nil },
		"repeated name":  func(x *Executable) { x.Entries[1].Name = x.Entries[0].Name },
		"bad symbol":     func(x *Executable) { x.Entries[0].Symbol = "1bad-name" },
		"not ELF":        func(x *Executable) { x.Object = []byte("MZ..") },
		"empty feature":  func(x *Executable) { x.Required = []string{""} },
		"negative count": func(x *Executable) { x.Entries[0].NumBindings = -1 },
	} {
		x := sample()
		mod(x)
		if _, err := Encode(x); code(err) != status.InvalidArgument {
			t.Errorf("%s: Encode error %v, want INVALID_ARGUMENT", name, err)
		}
	}
}

func TestErrorCodes(t *testing.T) {
	c := MakeError(ErrOutOfBounds, 3, 17)
	kind, b, check := DecodeError(int64(c))
	if kind != ErrOutOfBounds || b != 3 || check != 17 {
		t.Fatalf("DecodeError(%#x) = %v %v %v", c, kind, b, check)
	}
	if got := Describe(int64(c)); got != "load or store outside binding 3 (check 17)" {
		t.Errorf("Describe = %q", got)
	}
}
