package irpa

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// TestWriterLayout checks the bytes of a small archive against the
// layout: header fields, entry table after the header, names in the
// metadata segment, data aligned in the storage segment, file padded.
func TestWriterLayout(t *testing.T) {
	w := Writer{Alignment: 128}
	w.AddData("abc", nil, []byte{1, 2, 3, 4, 5})
	if err := w.AddSplat("s", []byte("m"), []byte{9, 8}, 10); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	n, err := w.WriteTo(&buf)
	b := buf.Bytes()
	if err != nil || int(n) != len(b) || len(b)%DefaultFileAlignment != 0 {
		t.Fatalf("wrote %d (%d bytes), %v", n, len(b), err)
	}
	le := binary.LittleEndian
	if string(b[:4]) != Magic || le.Uint16(b[4:]) != 0 || le.Uint64(b[8:]) != HeaderSize || le.Uint64(b[32:]) != 2 {
		t.Fatalf("header % x", b[:40])
	}
	tab, tabN := le.Uint64(b[40:]), le.Uint64(b[48:])
	meta, store := le.Uint64(b[56:]), le.Uint64(b[72:])
	if tab != 96 || tabN != AlignUp(DataEntrySize, EntryAlignment)+SplatEntrySize || meta != tab+tabN || store%128 != 0 {
		t.Errorf("segments: table %d+%d, metadata %d, storage %d", tab, tabN, meta, store)
	}
	e := b[tab:]
	if le.Uint32(e[8:]) != EntryTypeData || string(b[meta:meta+3]) != "abc" || le.Uint64(e[52:]) != 128 {
		t.Errorf("data entry % x", e[:76])
	}
	if off, l := le.Uint64(e[60:]), le.Uint64(e[68:]); !bytes.Equal(b[store+off:store+off+l], []byte{1, 2, 3, 4, 5}) {
		t.Errorf("data at %d+%d", off, l)
	}
	s := b[tab+AlignUp(DataEntrySize, EntryAlignment):]
	if le.Uint32(s[8:]) != EntryTypeSplat || le.Uint64(s[60:]) != 10 || s[84] != 2 || s[68] != 9 || s[69] != 8 {
		t.Errorf("splat entry % x", s[:85])
	}
	if mo, ml := le.Uint64(s[36:]), le.Uint64(s[44:]); string(b[meta+mo:meta+mo+ml]) != "m" {
		t.Errorf("splat metadata at %d+%d", mo, ml)
	}
	for _, c := range []struct{ n, length uint64 }{{0, 0}, {3, 9}, {2, 9}, {32, 64}} {
		if ValidPattern(c.n, c.length) {
			t.Errorf("ValidPattern(%d, %d)", c.n, c.length)
		}
	}
}
