package module

import (
	"encoding/binary"
	"testing"
)

func withParameters() *Module {
	m := sample()
	m.Constants = append(m.Constants,
		Constant{ElementType: 0x21000020, Shape: []int64{4, 8}, Parameter: &ParameterRef{Scope: "model", Key: "w"}},
		Constant{ElementType: 0x21000020, Shape: []int64{8}, Parameter: &ParameterRef{Key: "b"}})
	m.Globals = []Global{{Name: "w", Kind: KindRef, Init: 1}, {Name: "b", Kind: KindRef, Init: 2}}
	return m
}

func TestParameterConstantsRoundTrip(t *testing.T) {
	data := Encode(withParameters())
	if v := binary.LittleEndian.Uint32(data[8:]); v != VersionParameters {
		t.Fatalf("format version %d, want %d", v, VersionParameters)
	}
	m, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if !m.HasParameters() || m.Constants[0].Parameter != nil {
		t.Fatalf("parameters lost: %+v", m.Constants)
	}
	if p := m.Constants[1].Parameter; p == nil || p.String() != "model::w" || len(m.Constants[1].Data) != 0 || m.Constants[1].ByteLength() != 128 {
		t.Errorf("constant 1: %+v", m.Constants[1])
	}
	if p := m.Constants[2].Parameter; p == nil || p.String() != "b" || p.Scope != "" {
		t.Errorf("constant 2: %+v", m.Constants[2])
	}
	// A module without parameters keeps the older version.
	if v := binary.LittleEndian.Uint32(Encode(sample())[8:]); v != Version {
		t.Errorf("module without parameters has version %d", v)
	}
	// Damage: truncation and bit flips never panic.
	for n := 0; n < len(data); n++ {
		if _, err := Decode(data[:n]); err == nil {
			t.Fatalf("truncated to %d bytes: no error", n)
		}
	}
	for i := 0; i < len(data); i++ {
		c := append([]byte(nil), data...)
		c[i] ^= 0x41
		Decode(c)
	}
}

func TestParameterConstantWithDataRejected(t *testing.T) {
	m := withParameters()
	m.Constants[1].Data = []byte{1, 2, 3}
	if err := Verify(m); err == nil {
		t.Error("a parameter constant with the wrong amount of data verified")
	}
}
