package module

import (
	"bytes"
	"errors"
	"testing"
)

// TestEncodeToMatchesEncode: streaming a module writes the bytes Encode
// returns, blobs of odd sizes padded to their aligned offsets, and the
// result decodes to the same constants.
func TestEncodeToMatchesEncode(t *testing.T) {
	m := sample()
	for i, n := range []int{1, 63, 64, 65, 200, 0, 7} {
		d := make([]byte, n)
		for j := range d {
			d[j] = byte(i*31 + j)
		}
		m.Constants = append(m.Constants, Constant{ElementType: 0x10000008, Shape: []int64{int64(n)}, Data: d})
	}
	want := Encode(m)
	var buf bytes.Buffer
	n, err := EncodeTo(&buf, m)
	if err != nil || n != int64(buf.Len()) {
		t.Fatalf("EncodeTo: %d bytes, %v (buffer holds %d)", n, err, buf.Len())
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("EncodeTo wrote %d bytes differing from Encode's %d", buf.Len(), len(want))
	}
	back, err := Decode(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range m.Constants {
		if !bytes.Equal(back.Constants[i].Data, c.Data) {
			t.Errorf("constant %d: got % x, want % x", i, back.Constants[i].Data, c.Data)
		}
	}
	// A failing writer's error is returned.
	if _, err := EncodeTo(failAfter{n: 100}, m); err == nil {
		t.Error("EncodeTo hid a write error")
	}
}

type failAfter struct{ n int }

func (f failAfter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		return f.n, errors.New("disk full")
	}
	return len(p), nil
}
