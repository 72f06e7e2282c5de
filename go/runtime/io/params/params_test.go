package params

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/status"
)

func f32bytes(vs ...float32) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return b
}

// sampleIRPA is an archive with two data entries (one with metadata) and a
// splat.
func sampleIRPA(t testing.TB) []byte {
	var w Writer
	w.AddData("weight", nil, f32bytes(1, 2, 3, 4, 5, 6))
	w.AddData("bias", []byte("meta"), f32bytes(0.5, -0.5, 0.25))
	if err := w.AddSplat("zeros", nil, f32bytes(1.5), 64); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func sampleSafetensors(t testing.TB) []byte {
	b, err := EncodeSafetensors([]SafetensorsTensor{
		{Name: "weight", DType: "F32", Shape: []int64{2, 3}, Data: f32bytes(1, 2, 3, 4, 5, 6)},
		{Name: "bias", DType: "F32", Shape: []int64{3}, Data: f32bytes(0.5, -0.5, 0.25)},
	}, map[string]string{"format": "pt"})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func sampleGGUF(t testing.TB) []byte {
	b, err := EncodeGGUF(map[string]string{"general.name": "test"}, []GGUFTensor{
		{Name: "weight", Type: 0, Shape: []int64{2, 3}, Data: f32bytes(1, 2, 3, 4, 5, 6)},
		{Name: "bias", Type: 0, Shape: []int64{3}, Data: f32bytes(0.5, -0.5, 0.25)},
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeTemp(t *testing.T, name string, data []byte) string {
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFormatsRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name   string
		data   []byte
		format Format
	}{
		{"p.irpa", sampleIRPA(t), FormatIRPA},
		{"p.safetensors", sampleSafetensors(t), FormatSafetensors},
		{"p.gguf", sampleGGUF(t), FormatGGUF},
	} {
		t.Run(string(tc.format), func(t *testing.T) {
			f, err := Open(writeTemp(t, tc.name, tc.data))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if f.Format != tc.format {
				t.Fatalf("format %s, want %s", f.Format, tc.format)
			}
			for key, want := range map[string][]byte{"weight": f32bytes(1, 2, 3, 4, 5, 6), "bias": f32bytes(0.5, -0.5, 0.25)} {
				e := f.Lookup(key)
				if e == nil {
					t.Fatalf("no entry %q in %v", key, f.Entries)
				}
				got, err := e.Data()
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s = %x, want %x", key, got, want)
				}
				// No copy: the bytes are the file's mapping.
				if &got[0] != &f.data[e.Offset] {
					t.Errorf("%s: Data copied the bytes", key)
				}
			}
			if tc.format == FormatIRPA {
				for _, e := range f.Entries {
					if e.Kind == StorageFile && e.Offset%DefaultDataAlignment != 0 {
						t.Errorf("%s at offset %d, not %d-aligned", e.Key, e.Offset, DefaultDataAlignment)
					}
				}
				if len(tc.data)%DefaultFileAlignment != 0 {
					t.Errorf("archive is %d bytes, not padded to %d", len(tc.data), DefaultFileAlignment)
				}
				z := f.Lookup("zeros")
				if z == nil || z.Kind != StorageSplat || z.Length != 64 || !bytes.Equal(z.Pattern, f32bytes(1.5)) {
					t.Errorf("splat entry = %+v", z)
				}
				if b := f.Lookup("bias"); string(b.Metadata) != "meta" {
					t.Errorf("bias metadata %q", b.Metadata)
				}
			}
			if tc.format == FormatGGUF {
				if w := f.Lookup("weight"); w.DType != "F32" || len(w.Shape) != 2 || w.Shape[0] != 2 || w.Shape[1] != 3 {
					t.Errorf("gguf weight %v", w)
				}
				if f.Metadata["general.name"] != "test" {
					t.Errorf("gguf metadata %v", f.Metadata)
				}
			}
		})
	}
}

func TestProviderScopesAndErrors(t *testing.T) {
	dir := t.TempDir()
	ir := filepath.Join(dir, "a.irpa")
	os.WriteFile(ir, sampleIRPA(t), 0o644)
	st := filepath.Join(dir, "b.safetensors")
	os.WriteFile(st, sampleSafetensors(t), 0o644)
	var p Provider
	defer p.Close()
	if err := p.AddFlag("model=" + ir); err != nil {
		t.Fatal(err)
	}
	if err := p.AddFlag(st); err != nil {
		t.Fatal(err)
	}
	b, err := p.Parameter("model", "bias", 12, 4)
	if err != nil || !bytes.Equal(b, f32bytes(0.5, -0.5, 0.25)) {
		t.Fatalf("model::bias = %x, %v", b, err)
	}
	if b, err = p.Parameter("", "weight", 24, 4); err != nil || !bytes.Equal(b, f32bytes(1, 2, 3, 4, 5, 6)) {
		t.Fatalf("weight = %x, %v", b, err)
	}
	z, err := p.Parameter("model", "zeros", 64, 4)
	if err != nil || !bytes.Equal(z[60:], f32bytes(1.5)) {
		t.Fatalf("splat = %x, %v", z, err)
	}
	_, err = p.Parameter("model", "nope", 4, 4)
	if status.CodeOf(err) != status.NotFound || !strings.Contains(err.Error(), "model::nope") || !strings.Contains(err.Error(), ir) || !strings.Contains(err.Error(), st) {
		t.Errorf("missing key: %v", err)
	}
	_, err = p.Parameter("other", "weight", 24, 4)
	if status.CodeOf(err) != status.NotFound || !strings.Contains(err.Error(), "other::weight") {
		t.Errorf("missing scope: %v", err)
	}
	_, err = p.Parameter("", "weight", 28, 4)
	if status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), "'weight'") || !strings.Contains(err.Error(), "24 bytes (F32 [2 3])") {
		t.Errorf("size mismatch: %v", err)
	}
	var out bytes.Buffer
	p.Dump(&out)
	for _, want := range []string{"// Parameter scope `model` (3 entries, 100 total bytes)", "// Parameter scope <global> (2 entries, 36 total bytes)", "               - |                - |               64 | `zeros`"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("dump lacks %q:\n%s", want, out.String())
		}
	}
}

func TestOpenErrorsNameTheFile(t *testing.T) {
	p := writeTemp(t, "junk.bin", []byte("definitely not parameters"))
	_, err := Open(p)
	if status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), p) {
		t.Errorf("unknown format: %v", err)
	}
	_, err = Open(filepath.Join(t.TempDir(), "missing.irpa"))
	if status.CodeOf(err) != status.NotFound {
		t.Errorf("missing file: %v", err)
	}
	empty := writeTemp(t, "empty.safetensors", nil)
	if _, err = Open(empty); status.CodeOf(err) != status.DataLoss || !strings.Contains(err.Error(), "empty.safetensors") {
		t.Errorf("empty file: %v", err)
	}
}

// TestTruncatedFiles cuts each format at every length: always an error
// naming the file (never a panic), except at full length.
func TestTruncatedFiles(t *testing.T) {
	for name, data := range map[string][]byte{"t.irpa": sampleIRPA(t), "t.safetensors": sampleSafetensors(t), "t.gguf": sampleGGUF(t)} {
		full := len(data)
		if strings.HasSuffix(name, ".irpa") {
			full = 0 // the archive's end padding may be cut: find the data end
			f, _ := FromBytes(name, data)
			for _, e := range f.Entries {
				if e.Kind == StorageFile {
					full = max(full, int(e.Offset+e.Length))
				}
			}
		}
		for n := 0; n < full; n++ {
			_, err := FromBytes(name, data[:n])
			if err == nil {
				t.Errorf("%s cut to %d of %d bytes: no error", name, n, len(data))
				continue
			}
			if !strings.Contains(err.Error(), name) {
				t.Errorf("%s cut to %d: error does not name the file: %v", name, n, err)
			}
		}
	}
}

func TestSplatValidation(t *testing.T) {
	var w Writer
	if err := w.AddSplat("x", nil, []byte{1, 2, 3}, 9); err == nil {
		t.Error("3-byte pattern accepted")
	}
	if err := w.AddSplat("x", nil, []byte{1, 2}, 9); err == nil {
		t.Error("pattern not dividing the length accepted")
	}
	dst := make([]byte, 10)
	FillSplat(dst, []byte{1, 2})
	if !bytes.Equal(dst, []byte{1, 2, 1, 2, 1, 2, 1, 2, 1, 2}) {
		t.Errorf("FillSplat = %v", dst)
	}
}

// TestLinkedArchives concatenates two archives linked by
// next_header_offset, as IREE's format allows.
func TestLinkedArchives(t *testing.T) {
	a := sampleIRPA(t)
	var w Writer
	w.AddData("second", nil, f32bytes(7, 8))
	var buf bytes.Buffer
	w.WriteTo(&buf)
	both := append(append([]byte(nil), a...), buf.Bytes()...)
	binary.LittleEndian.PutUint64(both[16:], uint64(len(a)))
	f, err := FromBytes("linked.irpa", both)
	if err != nil {
		t.Fatal(err)
	}
	e := f.Lookup("second")
	if e == nil {
		t.Fatalf("entries %v", f.Entries)
	}
	if d, _ := e.Data(); !bytes.Equal(d, f32bytes(7, 8)) {
		t.Errorf("second = %x", d)
	}
	binary.LittleEndian.PutUint64(both[16:], uint64(len(both))) // past the end
	if _, err := FromBytes("linked.irpa", both); err == nil {
		t.Error("a next header past the end of the file was accepted")
	}
}

// TestGGUFAlignmentKey: a general.alignment value moves the data start and
// the offsets must honour it; ggml block types get their block sizes.
func TestGGUFAlignmentKey(t *testing.T) {
	var f []byte
	str := func(s string) {
		f = binary.LittleEndian.AppendUint64(f, uint64(len(s)))
		f = append(f, s...)
	}
	f = append(f, "GGUF"...)
	f = binary.LittleEndian.AppendUint32(f, 3)
	f = binary.LittleEndian.AppendUint64(f, 2)
	f = binary.LittleEndian.AppendUint64(f, 2)
	str("general.alignment")
	f = binary.LittleEndian.AppendUint32(f, ggufU32)
	f = binary.LittleEndian.AppendUint32(f, 128)
	str("tokenizer.ggml.tokens")
	f = binary.LittleEndian.AppendUint32(f, ggufArray)
	f = binary.LittleEndian.AppendUint32(f, ggufString)
	f = binary.LittleEndian.AppendUint64(f, 2)
	str("a")
	str("b")
	str("q")
	f = binary.LittleEndian.AppendUint32(f, 2)
	f = binary.LittleEndian.AppendUint64(f, 64) // innermost
	f = binary.LittleEndian.AppendUint64(f, 2)
	f = binary.LittleEndian.AppendUint32(f, 2) // Q4_0: 32 elements in 18 bytes
	f = binary.LittleEndian.AppendUint64(f, 0)
	str("v")
	f = binary.LittleEndian.AppendUint32(f, 1)
	f = binary.LittleEndian.AppendUint64(f, 3)
	f = binary.LittleEndian.AppendUint32(f, 26) // I32
	f = binary.LittleEndian.AppendUint64(f, 128)
	start := (len(f) + 127) / 128 * 128
	f = append(f, make([]byte, start+128+12-len(f))...)
	pf, err := FromBytes("a.gguf", f)
	if err != nil {
		t.Fatal(err)
	}
	q, v := pf.Lookup("q"), pf.Lookup("v")
	if q.Offset != uint64(start) || q.Length != 4*18 || q.DType != "Q4_0" || q.Shape[0] != 2 || q.Shape[1] != 64 {
		t.Errorf("q = %+v (data starts at %d)", q, start)
	}
	if v.Offset != uint64(start+128) || v.Length != 12 || v.DType != "I32" {
		t.Errorf("v = %+v", v)
	}
	if pf.Metadata["tokenizer.ggml.tokens"] != "[a, b]" || pf.Metadata["general.alignment"] != "128" {
		t.Errorf("metadata %v", pf.Metadata)
	}
	// Misalign v's offset.
	bad := append([]byte(nil), f...)
	i := bytes.Index(bad, []byte{26, 0, 0, 0, 128, 0, 0, 0, 0, 0, 0, 0})
	bad[i+4] = 100
	if _, err := FromBytes("bad.gguf", bad); err == nil || !strings.Contains(err.Error(), "'v'") || !strings.Contains(err.Error(), "not 128-byte aligned") {
		t.Errorf("misaligned offset: %v", err)
	}
}

// TestProviderUsesTheMapping: aligned file entries are the mapped bytes
// themselves; a misaligned one is copied once and counted.
func TestProviderUsesTheMapping(t *testing.T) {
	p := &Provider{}
	defer p.Close()
	if err := p.AddFlag(writeTemp(t, "a.irpa", sampleIRPA(t))); err != nil {
		t.Fatal(err)
	}
	e, _ := p.Lookup("", "weight")
	mapped, _ := e.Data()
	got, err := p.Parameter("", "weight", 24, 64)
	if err != nil || &got[0] != &mapped[0] || p.Copied != 0 {
		t.Fatalf("aligned entry: copied=%d err=%v", p.Copied, err)
	}
	// bias lies at a 64-byte aligned offset: ask for more to force a copy.
	e, _ = p.Lookup("", "bias")
	mapped, _ = e.Data()
	got, err = p.Parameter("", "bias", 12, 8192)
	if err != nil || &got[0] == &mapped[0] || !bytes.Equal(got, mapped) || p.Copied != 1 {
		t.Fatalf("misaligned entry: copied=%d err=%v", p.Copied, err)
	}
	// A second request (another context) shares the copy.
	again, err := p.Parameter("", "bias", 12, 8192)
	if err != nil || &again[0] != &got[0] || p.Copied != 1 {
		t.Fatalf("second request: copied=%d err=%v", p.Copied, err)
	}
	z1, _ := p.Parameter("", "zeros", 64, 4)
	z2, _ := p.Parameter("", "zeros", 64, 4)
	if &z1[0] != &z2[0] {
		t.Error("a splat was materialized twice")
	}
}
