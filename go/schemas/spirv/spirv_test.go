package spirv

import (
	"encoding/binary"
	hashcrc32 "hash/crc32"
	"math/rand"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gree-ml/gree/go/status"
)

// module returns a fake SPIR-V module of n words starting with the magic.
func module(n int) []byte {
	b := make([]byte, 4*n)
	binary.LittleEndian.PutUint32(b, SPIRVMagic)
	for i := 1; i < n; i++ {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(i*7))
	}
	return b
}

func sample() *Executable {
	return &Executable{Target: "llvmpipe", Entries: []Entry{
		{Name: "main_dispatch_0", WorkgroupSize: [3]int{64, 1, 1}, NumPushConstants: 3, Bindings: []Access{Read, Write},
			Flags: FlagErrors, Capabilities: []string{"Shader", "Int64"}, SPIRV: module(40)},
		{Name: "main_dispatch_1", WorkgroupSize: [3]int{8, 8, 1}, SubgroupSize: 32, SharedBytes: 4096, Bindings: []Access{ReadWrite},
			Capabilities: []string{"Shader"}, SPIRV: module(8)},
	}}
}

func TestRoundTrip(t *testing.T) {
	data, err := Encode(sample())
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(sample(), got); diff != "" {
		t.Fatalf("round trip (-want +got):\n%s", diff)
	}
}

func TestVerifyRejects(t *testing.T) {
	for name, mutate := range map[string]func(x *Executable){
		"no target":        func(x *Executable) { x.Target = "" },
		"no entries":       func(x *Executable) { x.Entries = nil },
		"repeated name":    func(x *Executable) { x.Entries[1].Name = x.Entries[0].Name },
		"zero workgroup":   func(x *Executable) { x.Entries[0].WorkgroupSize[1] = 0 },
		"bad access":       func(x *Executable) { x.Entries[0].Bindings[0] = 7 },
		"unknown flag":     func(x *Executable) { x.Entries[0].Flags = 4 },
		"not spirv":        func(x *Executable) { x.Entries[0].SPIRV = make([]byte, 40) },
		"odd module":       func(x *Executable) { x.Entries[0].SPIRV = x.Entries[0].SPIRV[:22] },
		"empty capability": func(x *Executable) { x.Entries[0].Capabilities = []string{""} },
	} {
		x := sample()
		mutate(x)
		if _, err := Encode(x); status.CodeOf(err) != status.InvalidArgument {
			t.Errorf("%s: %v, want INVALID_ARGUMENT", name, err)
		}
	}
}

func TestDecodeDamagedFiles(t *testing.T) {
	data, err := Encode(sample())
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < len(data); n++ {
		if _, err := Decode(data[:n]); err == nil {
			t.Fatalf("truncated to %d bytes: decoded", n)
		}
	}
	if _, err := Decode(append(append([]byte(nil), data...), 0)); status.CodeOf(err) != status.DataLoss {
		t.Errorf("a trailing byte: %v", err)
	}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 2000; i++ {
		b := append([]byte(nil), data...)
		b[rng.Intn(len(b))] ^= byte(1 + rng.Intn(255))
		if x, err := Decode(b); err == nil && x == nil {
			t.Fatal("nil executable without an error")
		}
	}
	// With a valid checksum over damaged counts.
	for i := 0; i < 2000; i++ {
		b := append([]byte(nil), data...)
		b[HeaderSize+rng.Intn(len(b)-HeaderSize)] ^= byte(1 + rng.Intn(255))
		body := b[HeaderSize:]
		binary.LittleEndian.PutUint32(b[12:], hashcrc32.ChecksumIEEE(body))
		if x, err := Decode(b); err == nil {
			if verr := Verify(x); verr != nil {
				t.Fatalf("decoded an executable that does not verify: %v", verr)
			}
		}
	}
}
